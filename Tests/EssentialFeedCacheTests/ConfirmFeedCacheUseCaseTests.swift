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
        XCTAssertEqual(store.messages, [.beginTransaction, .touchCachedFeed(now), .retrieveValidators, .setValidators(validators), .retrieveHeader, .commit])
    }

    /// A 304 updates the validators it gives and keeps the others (RFC
    /// 9111, 4.3.4): an ETag alone keeps the Last-Modified kept for the
    /// same URL (it was dropped); for another URL, nothing is kept.
    func test_confirm_keepsAKeptValidatorThe304DidNotGive_forTheSameURL() throws {
        let kept = FeedValidators(url: validators.url, etag: "\"v0\"", lastModified: "Tue, 01 Dec 2026 00:00:00 GMT")
        let store = FeedStoreSpy()
        store.completeRetrieval(with: CachedFeed(feed: [], timestamp: now))
        store.validatorsResult = .success(kept)
        _ = try LocalFeedLoader(store: store, currentDate: { self.now }).confirm(validators: validators)
        let merged = FeedValidators(url: validators.url, etag: "\"v1\"", lastModified: "Tue, 01 Dec 2026 00:00:00 GMT")
        XCTAssertEqual(store.messages, [.beginTransaction, .touchCachedFeed(now), .retrieveValidators, .setValidators(merged), .retrieveHeader, .commit])

        let other = FeedStoreSpy()
        other.completeRetrieval(with: CachedFeed(feed: [], timestamp: now))
        other.validatorsResult = .success(FeedValidators(url: "https://other/v1/feed", etag: nil, lastModified: "Tue, 01 Dec 2026 00:00:00 GMT"))
        _ = try LocalFeedLoader(store: other, currentDate: { self.now }).confirm(validators: validators)
        XCTAssertEqual(other.messages, [.beginTransaction, .touchCachedFeed(now), .retrieveValidators, .setValidators(validators), .retrieveHeader, .commit])
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

    /// A 304 confirms the cached feed only as the answer to the conditional
    /// request the cache would have made: for the page its validators were
    /// kept for, naming the entity tag kept if it names one (weakly alike).
    func test_notModified_confirmsOnlyAnAnswerToTheCachesConditionalRequest() throws {
        func outcome(kept: FeedValidators?, given: FeedValidators?, cached: Bool = true) throws -> (LocalFeedLoader.NotModifiedOutcome, Bool) {
            let store = FeedStoreSpy()
            if cached { store.completeRetrieval(with: CachedFeed(feed: [], timestamp: now)) } else { store.touches = false }
            store.validatorsResult = .success(kept)
            let result = try LocalFeedLoader(store: store, currentDate: { self.now }).notModified(url: validators.url, validators: given)
            return (result, store.messages.contains(.touchCachedFeed(now)))
        }
        let header = CachedFeedHeader(timestamp: now, count: 0)
        let weak = FeedValidators(url: validators.url, etag: "W/\"v1\"", lastModified: nil)
        let other = FeedValidators(url: "https://other/v1/feed", etag: "\"v1\"", lastModified: nil)
        XCTAssertEqual(try outcome(kept: weak, given: validators).0, .confirmed(header))
        XCTAssertEqual(try outcome(kept: validators, given: nil).0, .confirmed(header))
        let dated = FeedValidators(url: validators.url, etag: nil, lastModified: "Tue, 01 Dec 2026 00:00:00 GMT")
        XCTAssertEqual(try outcome(kept: dated, given: dated).0, .confirmed(header))
        XCTAssertEqual(try outcome(kept: dated, given: FeedValidators(url: validators.url, etag: nil, lastModified: "Tuesday, 01-Dec-26 00:00:00 GMT")).0,
                       .confirmed(header), "the same date in another form")
        let refused: [(FeedValidators?, FeedValidators?, LocalFeedLoader.NotModifiedOutcome)] = [
            (nil, validators, .unasked), (other, validators, .unasked), (other, nil, .unasked),
            (FeedValidators(url: validators.url, etag: "\"v0\"", lastModified: nil), validators, .otherValidator),
            (FeedValidators(url: validators.url, etag: nil, lastModified: "Tue, 01 Dec 2026 00:00:00 GMT"), validators, .otherValidator),
            (FeedValidators(url: validators.url, etag: "W/\"v1\"", lastModified: "Tue, 01 Dec 2026 00:00:00 GMT"),
             FeedValidators(url: validators.url, etag: nil, lastModified: "Wed, 02 Dec 2026 00:00:00 GMT"), .otherValidator),
            // Dates in no form HTTPDate reads are compared as written.
            (FeedValidators(url: validators.url, etag: nil, lastModified: "Tue, 01 Dec 2026 00:00:00 +0000"),
             FeedValidators(url: validators.url, etag: nil, lastModified: "Wed, 02 Dec 2026 00:00:00 +0000"), .otherValidator),
        ]
        for (kept, given, expected) in refused {
            let (result, touched) = try outcome(kept: kept, given: given)
            XCTAssertEqual(result, expected)
            XCTAssertFalse(touched, "nothing stamped")
        }
        XCTAssertEqual(try outcome(kept: nil, given: validators, cached: false).0, .nothingCached)
    }

    func test_validators_areReadInOneReadTransaction() throws {
        let store = FeedStoreSpy()
        store.validatorsResult = .success(validators)
        XCTAssertEqual(try LocalFeedLoader(store: store, currentDate: { self.now }).validators(), validators)
        XCTAssertEqual(store.messages, [.beginRead, .retrieveValidators, .endRead])
    }
}
