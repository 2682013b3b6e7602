import XCTest
import EssentialFeed

/// 2024-02-29T12:00:00Z, a fixed "now" for every test that depends on it.
let fixedCurrentDate = Timestamp(seconds: 1_709_208_000)

extension Timestamp {
    func adding(seconds: Int64) -> Timestamp {
        Timestamp(seconds: self.seconds + seconds, nanoseconds: nanoseconds)
    }

    func adding(days: Int64) -> Timestamp { adding(seconds: days * 86_400) }

    /// The oldest a cache can be and still be valid under the default policy: 7 days.
    func minusFeedCacheMaxAge() -> Timestamp { adding(days: -7) }
}

func cachedFeed(savedAt timestamp: Timestamp, count: Int = 2) -> CachedFeed {
    CachedFeed(feed: uniqueFeed(count: count), timestamp: timestamp)
}

