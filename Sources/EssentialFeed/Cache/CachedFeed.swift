

/// The feed a store holds, with the time it was saved.
public struct CachedFeed: Equatable, Hashable, Sendable {
    public var feed: [FeedImage]
    public var timestamp: Timestamp

    public init(feed: [FeedImage], timestamp: Timestamp) {
        self.feed = feed
        self.timestamp = timestamp
    }
}
