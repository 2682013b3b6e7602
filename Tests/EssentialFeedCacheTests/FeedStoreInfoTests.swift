import XCTest
import EssentialFeed

final class FeedStoreInfoTests: XCTestCase {

    func test_write_describesAStoreWithAValidFeed() {
        let info = FeedStoreInfo(kind: "sqlite", path: "/x/feed.sqlite", exists: true, schemaVersion: 1, fileBytes: 8192,
                                 itemCount: 3, timestamp: Timestamp(seconds: 1_709_208_000, nanoseconds: 5_000_000),
                                 imageDataCount: 2, imageDataBytes: 300)
        var writer = JSONWriter()

        info.write(to: &writer, now: fixedCurrentDate.adding(days: 1))

        XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self),
                       #"{"store":"sqlite","path":"/x/feed.sqlite","exists":true,"schema_version":1,"file_bytes":8192,"items":3,"timestamp":"2024-02-29T12:00:00.005Z","expires_at":"2024-03-07T12:00:00.005Z","status":"valid","image_data_count":2,"image_data_bytes":300}"#)
    }

    /// An expiry past year 9999 (a long `--max-age`, a date near the end) is
    /// left out: written with five digits or more, no tool read it back.
    func test_write_leavesOutAnExpiryPastYear9999() throws {
        let info = FeedStoreInfo(kind: "sqlite", path: nil, exists: true, schemaVersion: 1,
                                 itemCount: 1, timestamp: try XCTUnwrap(Timestamp(iso8601: "9999-12-30T00:00:00Z")), imageDataCount: 0, imageDataBytes: 0)
        for (policy, expires) in [(FeedCachePolicy(maxAge: CacheMaxAge(seconds: 86_400)), #""expires_at":"9999-12-31T00:00:00Z","#),
                                  (FeedCachePolicy(), ""), (FeedCachePolicy(maxAge: CacheMaxAge(seconds: .max)), "")] {
            var writer = JSONWriter()
            info.write(to: &writer, policy: policy)
            XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self),
                           #"{"store":"sqlite","exists":true,"schema_version":1,"items":1,"timestamp":"9999-12-30T00:00:00Z","# + expires + #""image_data_count":0,"image_data_bytes":0}"#)
        }
    }

    func test_write_describesAMissingStoreWithoutOptionalMembers() {
        let info = FeedStoreInfo(kind: "json", path: "/x/feed.json", exists: false, schemaVersion: nil,
                                 itemCount: nil, timestamp: nil, imageDataCount: 0, imageDataBytes: 0)
        var writer = JSONWriter()

        info.write(to: &writer)

        XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self),
                       #"{"store":"json","path":"/x/feed.json","exists":false,"items":0,"image_data_count":0,"image_data_bytes":0}"#)
    }

    func test_status_tellsEmptyValidAndExpiredApartUnderThePolicy() {
        var info = FeedStoreInfo(kind: "memory", path: nil, exists: true, schemaVersion: nil,
                                 itemCount: nil, timestamp: nil, imageDataCount: 0, imageDataBytes: 0)
        XCTAssertEqual(info.status(at: fixedCurrentDate, policy: FeedCachePolicy()), "empty")

        info.itemCount = 1
        info.timestamp = fixedCurrentDate.minusFeedCacheMaxAge()
        XCTAssertEqual(info.status(at: fixedCurrentDate, policy: FeedCachePolicy()), "expired")
        XCTAssertEqual(info.status(at: fixedCurrentDate, policy: FeedCachePolicy(maxAge: CacheMaxAge(seconds: 8 * 86_400))), "valid")
    }
}
