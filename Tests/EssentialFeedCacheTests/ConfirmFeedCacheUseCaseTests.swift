import EssentialFeed
import XCTest

/// Conditional requests' side of the cache: validators saved with a feed,
/// and a feed a server confirmed current (304) stamped anew.
final class ConfirmFeedCacheUseCaseTests: XCTestCase {
    private let now = Timestamp(seconds: 1_800_000_000, nanoseconds: 0)
    private let validators = FeedValidators(url: "https://any-url.com/v1/feed?limit=10", etag: "\"v1\"", lastModified: nil)

    func test_saveReading_keepsTheValidatorsAskedForOnceTheImagesAreRead() throws {
        let store = FeedStoreSpy()
        let sut = LocalFeedLoader(store: store, currentDate: { self.now })
        let image = FeedImage(id: UUID(), description: nil, location: nil, url: "https://any-url.com/0.jpg")
        var read = false
        _ = try sut.save(reading: { (add) throws(ErrorRecord) -> Bool in
            guard !read else { return false }
            read = true
            _ = try CachedImageText.lending(image) { (text) throws(ErrorRecord) in try add(text) }
            return true
        }, validators: { self.validators })
        XCTAssertEqual(store.messages, [
            .beginTransaction, .retrieveHeader, .deleteCachedFeed, .beginFeed(now, keepingCachedImages: false), .add(image), .setValidators(validators), .commit,
        ])
    }

    func test_confirm_stampsTheCachedFeedWithTheCurrentTime_andKeepsTheValidatorsGiven() throws {
        let store = FeedStoreSpy()
        store.completeRetrieval(with: CachedFeed(feed: [], timestamp: now))
        let sut = LocalFeedLoader(store: store, currentDate: { self.now })
        XCTAssertEqual(try sut.confirm(validators: validators), CachedFeedHeader(timestamp: now, count: 0))
        XCTAssertEqual(store.messages, [.beginTransaction, .touchCachedFeed(now), .setValidators(validators), .retrieveHeader, .commit])
    }

    func test_confirm_withoutNewValidators_keepsThoseCached() throws {
        let store = FeedStoreSpy()
        store.completeRetrieval(with: CachedFeed(feed: [], timestamp: now))
        _ = try LocalFeedLoader(store: store, currentDate: { self.now }).confirm(validators: nil)
        XCTAssertEqual(store.messages, [.beginTransaction, .touchCachedFeed(now), .retrieveHeader, .commit])
    }

    func test_confirm_onAnEmptyCache_confirmsNothing() throws {
        let store = FeedStoreSpy()
        store.touches = false
        XCTAssertNil(try LocalFeedLoader(store: store, currentDate: { self.now }).confirm(validators: validators))
        XCTAssertEqual(store.messages, [.beginTransaction, .touchCachedFeed(now), .commit])
    }

    func test_validators_areReadInOneReadTransaction() throws {
        let store = FeedStoreSpy()
        store.validatorsResult = .success(validators)
        XCTAssertEqual(try LocalFeedLoader(store: store, currentDate: { self.now }).validators(), validators)
        XCTAssertEqual(store.messages, [.beginRead, .retrieveValidators, .endRead])
    }
}
