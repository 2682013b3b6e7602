import XCTest
import EssentialFeed

/// The cache use cases that save and load image by image (bounded memory).
final class StreamingCacheUseCaseTests: XCTestCase {

    func test_saveReading_deletesThenAddsEachImageReadInOneTransaction() throws {
        let feed = uniqueFeed(count: 3)
        let (sut, store) = makeSUT()

        let result = try sut.save(reading: reading(feed))

        XCTAssertEqual(store.messages, [.beginTransaction, .retrieveHeader, .deleteCachedFeed, .beginFeed(fixedCurrentDate, keepingCachedImages: false)]
                       + feed.map { .add($0) } + [.commit])
        XCTAssertEqual(result, FeedCacheSaveResult(saved: 3, skipped: 0))
    }

    func test_saveReading_countsTheImagesTheStoreSkipped() throws {
        let (sut, store) = makeSUT()
        store.addsImages = false

        let result = try sut.save(reading: reading(uniqueFeed(count: 2)))

        XCTAssertEqual(result, FeedCacheSaveResult(saved: 0, skipped: 2))
    }

    func test_saveReading_rollsBackAndRethrowsWhenReadingFails() {
        let (sut, store) = makeSUT()
        let failure = ErrorRecord(.invalidData, "stdin:2: not a feed image record")
        var calls = 0

        let error = caughtRecord({ () throws(ErrorRecord) in
            try sut.save { (add) throws(ErrorRecord) in
                calls += 1
                if calls == 2 { throw failure }
                return try CachedImageText.lending(uniqueImage()) { (text) throws(ErrorRecord) in try add(text) }
            }
        })

        XCTAssertEqual(error, failure)
        XCTAssertEqual(store.messages.last, .rollback)
    }

    func test_saveReading_stopsOnADeletionErrorBeforeReadingAnything() {
        let (sut, store) = makeSUT()
        store.deletionError = anyStoreError()
        var calls = 0

        let error = caughtRecord({ () throws(ErrorRecord) in
            try sut.save { (_) throws(ErrorRecord) in
                calls += 1
                return false
            }
        })

        XCTAssertEqual(error, anyStoreError())
        XCTAssertEqual(calls, 0)
        XCTAssertEqual(store.messages, [.beginTransaction, .retrieveHeader, .deleteCachedFeed, .rollback])
    }

    func test_appendReading_keepsAValidCacheAndAddsAfterIt() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.adding(days: -1), count: 2)
        let new = uniqueFeed(count: 1)
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)

        let result = try sut.append(reading: reading(new))

        XCTAssertEqual(store.messages, [.beginTransaction, .retrieveHeader, .beginFeed(fixedCurrentDate, keepingCachedImages: true), .add(new[0]), .commit])
        XCTAssertEqual(result, FeedCacheAppendResult(kept: 2, added: 1, droppedExpired: 0))
    }

    func test_appendReading_dropsAnExpiredCache() throws {
        let expired = cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge(), count: 3)
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: expired)

        let result = try sut.append(reading: reading([]))

        XCTAssertEqual(store.messages, [.beginTransaction, .retrieveHeader, .beginFeed(fixedCurrentDate, keepingCachedImages: false), .commit])
        XCTAssertEqual(result, FeedCacheAppendResult(kept: 0, added: 0, droppedExpired: 3))
    }

    func test_appendReading_failsOnAnUnreadableCacheWithoutWriting() {
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: anyStoreError())

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.append(reading: reading(uniqueFeed())) }), anyStoreError())
        XCTAssertEqual(store.messages, [.beginTransaction, .retrieveHeader, .rollback])
    }

    func test_loadVisiting_visitsAValidFeedInOrderInOneReadTransaction() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.adding(seconds: -1), count: 3)
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)
        var visited: [FeedImage] = []

        let summary = try sut.load { visited.append($0.image) }

        XCTAssertEqual(summary, .found(CachedFeedHeader(timestamp: cached.timestamp, count: 3)))
        XCTAssertEqual(visited, cached.feed)
        XCTAssertEqual(store.messages, [.beginRead, .retrieveHeader, .forEachCachedImage, .endRead])
    }

    func test_loadVisiting_visitsNothingOfAFeedExactlySevenDaysOld() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge())
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)
        var visited = 0

        let summary = try sut.load { _ in visited += 1 }

        XCTAssertEqual(summary, .expired(CachedFeedHeader(timestamp: cached.timestamp, count: 2)))
        XCTAssertEqual(visited, 0)
        XCTAssertEqual(store.messages, [.beginRead, .retrieveHeader, .endRead])
    }

    func test_loadVisitingAfterwards_readsImageDataByKeyAfterTheImages_inTheSameReadTransaction() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.adding(seconds: -1), count: 2)
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)
        var visited = 0
        var header: CachedFeedHeader?

        let summary = try sut.load(visiting: { _ in visited += 1 }, afterwards: { (found, imageData) throws(ErrorRecord) in
            header = found
            _ = try imageData("https://ann:s3cret@h/a.png")
        })

        XCTAssertEqual(summary, .found(CachedFeedHeader(timestamp: cached.timestamp, count: 2)))
        XCTAssertEqual(header, CachedFeedHeader(timestamp: cached.timestamp, count: 2))
        XCTAssertEqual(visited, 2)
        XCTAssertEqual(store.messages, [.beginRead, .retrieveHeader, .forEachCachedImage, .retrieveImageData(for: "https://ann:***@h/a.png"), .endRead])
    }

    func test_loadVisitingAfterwards_callsNothingForAnExpiredOrEmptyCache() throws {
        let (sut, store) = makeSUT()
        XCTAssertEqual(try sut.load(visiting: { _ in XCTFail("nothing to visit") }, afterwards: { _, _ in XCTFail("nothing to add") }), .empty)
        store.completeRetrieval(with: cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge()))
        let summary = try sut.load(visiting: { _ in XCTFail("nothing to visit") }, afterwards: { _, _ in XCTFail("nothing to add") })
        guard case .expired = summary else { return XCTFail("\(summary)") }
    }

    func test_loadVisiting_deliversEmptyOnAnEmptyCache() throws {
        let (sut, _) = makeSUT()

        XCTAssertEqual(try sut.load { _ in XCTFail("nothing to visit") }, .empty)
    }

    func test_saveReadingThenLoadVisiting_throughARealStore_keepTheFirstOfEachID() throws {
        let store = InMemoryFeedStore()
        let sut = LocalFeedLoader(store: store, currentDate: { fixedCurrentDate })
        let feed = demandingFeed()

        let saved = try sut.save(reading: reading(feed + [feed[2], feed[0]]))
        var loaded: [FeedImage] = []
        let summary = try sut.load { loaded.append($0.image) }

        XCTAssertEqual(saved, FeedCacheSaveResult(saved: feed.count, skipped: 2))
        XCTAssertEqual(summary, .found(CachedFeedHeader(timestamp: fixedCurrentDate, count: feed.count)))
        XCTAssertEqual(loaded, feed)
    }

    // MARK: Helpers

    private func makeSUT() -> (sut: LocalFeedLoader, store: FeedStoreSpy) {
        let store = FeedStoreSpy()
        return (LocalFeedLoader(store: store, currentDate: { fixedCurrentDate }), store)
    }
}
