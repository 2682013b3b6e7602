import XCTest
import EssentialFeed

/// `merge`: a page saved into the cached feed, keeping what it does not
/// cover, so that a viewer's first page never shrinks what a sync kept and
/// the image data of later pages stays.
final class MergeFeedPageUseCaseTests: XCTestCase {
    private let feed = (0..<8).map { uniqueImage(url: "https://a.example/\($0).png") }

    func test_merge_atTheHead_replacesTheCoveredHeadAndKeepsTheRest() throws {
        let (sut, store) = try makeSUT(cached: feed)
        let new = uniqueImage()
        // The server's first page now: a new image, then 0, 2, 3 (1 was deleted).
        let page = [new, feed[0], feed[2], feed[3]]

        let result = try sut.merge(reading: reading(page), after: nil)

        XCTAssertEqual(try store.retrieve()?.feed, page + Array(feed[4...]))
        XCTAssertEqual(try store.retrieve()?.timestamp, fixedCurrentDate)
        XCTAssertEqual(result, FeedCacheMergeResult(ahead: 0, saved: 4, skipped: 0, after: 4, replaced: 4, droppedExpired: 0))
    }

    func test_merge_keepsTheImageDataOfEveryImageStillInTheFeed() throws {
        let (sut, store) = try makeSUT(cached: feed)
        for image in feed { try store.insertImageData(Array(image.url.utf8), for: image.url) }

        try sut.merge(reading: reading([uniqueImage(), feed[0], feed[2]]), after: nil)

        XCTAssertEqual(try store.cachedImageDataURLs(), Set(feed.map { ExactText($0.url) }).subtracting([ExactText(feed[1].url)]))
    }

    func test_merge_afterAnImage_replacesWhatThePageCoversThereOnly() throws {
        let (sut, store) = try makeSUT(cached: feed)
        let new = uniqueImage()
        let page = [feed[3], new, feed[5]]  // after 2: 4 is gone, a new one came

        let result = try sut.merge(reading: reading(page), after: feed[2].id)

        XCTAssertEqual(try store.retrieve()?.feed, Array(feed[...2]) + page + Array(feed[6...]))
        XCTAssertEqual(result, FeedCacheMergeResult(ahead: 3, saved: 3, skipped: 0, after: 2, replaced: 3, droppedExpired: 0))
    }

    func test_merge_aPageWhoseLastImageIsNotCached_coversNothing() throws {
        let (sut, store) = try makeSUT(cached: feed)
        let page = [uniqueImage(), uniqueImage()]

        try sut.merge(reading: reading(page), after: nil)

        XCTAssertEqual(try store.retrieve()?.feed, page + feed)
    }

    /// A page shorter than the limit it was asked for with is the end of
    /// the feed: what is cached after it goes, in the same transaction.
    func test_merge_withAPageLimit_aShorterPageEndsTheFeed_aFullOneKeepsTheRest() throws {
        let (sut, store) = try makeSUT(cached: feed)

        let short = try sut.merge(reading: reading([feed[0], feed[1]]), after: nil, pageLimit: 3)
        XCTAssertEqual(try store.retrieve()?.feed, Array(feed[...1]))
        XCTAssertEqual(short.droppedAfter, 6)

        try store.insert(feed, timestamp: fixedCurrentDate)
        let full = try sut.merge(reading: reading([feed[0], feed[1]]), after: nil, pageLimit: 2)
        XCTAssertEqual(try store.retrieve()?.feed, feed)
        XCTAssertEqual(full.droppedAfter, 0)
    }

    /// A save on the condition of the cached feed it is for: when another
    /// writer saved since (by the store's own stamp, whatever its clock:
    /// here an earlier time), that feed stays as it is and the page is not
    /// read; when nothing was cached, any feed cached since is another's.
    func test_merge_ifSavedAt_keepsAFeedAnotherWriterSavedSince() throws {
        let (sut, store) = try makeSUT(cached: feed, savedAt: fixedCurrentDate.adding(seconds: -10))
        var read = false
        let notRead: LocalFeedLoader.FeedImageReading = { (_) throws(ErrorRecord) in read = true; return false }

        let declined = try sut.merge(reading: notRead, after: nil, ifSavedAt: .savedAt(fixedCurrentDate.adding(seconds: -5)))
        XCTAssertEqual(declined.declined, .savedAt(fixedCurrentDate.adding(seconds: -10)))
        let overNothing = try sut.merge(reading: notRead, after: nil, ifSavedAt: .nothingCached)
        XCTAssertEqual(overNothing.declined, .savedAt(fixedCurrentDate.adding(seconds: -10)))
        XCTAssertFalse(read)
        XCTAssertEqual(try store.retrieve()?.feed, feed)
        XCTAssertEqual(try store.retrieve()?.timestamp, fixedCurrentDate.adding(seconds: -10))

        let saved = try sut.merge(reading: reading([feed[1]]), after: nil, ifSavedAt: .savedAt(fixedCurrentDate.adding(seconds: -10)))
        XCTAssertNil(saved.declined)
        XCTAssertEqual(try store.retrieve()?.feed, Array(feed[1...]))

        try store.deleteCachedFeed()
        XCTAssertNil(try sut.merge(reading: reading([feed[0]]), after: nil, ifSavedAt: .nothingCached).declined)
        XCTAssertEqual(try store.retrieve()?.feed, [feed[0]])
    }

    func test_merge_anEmptyPage_endsTheFeedWhereItStarts() throws {
        let (sut, store) = try makeSUT(cached: feed)

        try sut.merge(reading: reading([]), after: feed[4].id)

        XCTAssertEqual(try store.retrieve()?.feed, Array(feed[...4]))
    }

    func test_merge_afterAnImageNotCached_addsThePageAfterEverything() throws {
        let (sut, store) = try makeSUT(cached: feed)
        let page = [uniqueImage(), feed[1]]

        try sut.merge(reading: reading(page), after: UUID())

        XCTAssertEqual(try store.retrieve()?.feed, feed + [page[0]], "an id already cached stays where it was")
    }

    func test_merge_doesNotKeepAnExpiredCache() throws {
        let (sut, store) = try makeSUT(cached: feed, savedAt: fixedCurrentDate.minusFeedCacheMaxAge())
        let page = [feed[0], feed[1]]

        let result = try sut.merge(reading: reading(page), after: nil)

        XCTAssertEqual(try store.retrieve()?.feed, page)
        XCTAssertEqual(result.droppedExpired, feed.count)
    }

    func test_merge_atTheHead_keepsThePagesValidators_afterAnImage_keepsTheFeeds() throws {
        let (sut, store) = try makeSUT(cached: feed)
        let first = FeedValidators(url: "https://a.example/v1/feed?limit=4", etag: "\"1\"", lastModified: nil)
        let other = FeedValidators(url: "https://a.example/v1/feed?limit=4&after_id=X", etag: "\"2\"", lastModified: nil)

        try sut.merge(reading: reading([feed[0]]), after: nil, validators: { first })
        try sut.merge(reading: reading([feed[2]]), after: feed[1].id, validators: { other })

        XCTAssertEqual(try LocalFeedLoader(store: store, currentDate: { fixedCurrentDate }).validators(), first)
    }

    func test_merge_rollsBackWhenReadingFails() throws {
        let (sut, store) = try makeSUT(cached: feed)
        let failure = ErrorRecord(.invalidData, "stdin:2: not a feed image record")
        var calls = 0

        let error = caughtRecord({ () throws(ErrorRecord) in
            try sut.merge(reading: { (add) throws(ErrorRecord) in
                calls += 1
                if calls == 2 { throw failure }
                return try CachedImageText.lending(uniqueImage()) { (text) throws(ErrorRecord) in try add(text) }
            }, after: nil)
        })

        XCTAssertEqual(error, failure)
        XCTAssertEqual(try store.retrieve()?.feed, feed)
    }

    // MARK: - Helpers

    private func makeSUT(cached: [FeedImage], savedAt: Timestamp = fixedCurrentDate.adding(seconds: -60)) throws -> (LocalFeedLoader, InMemoryFeedStore) {
        let store = InMemoryFeedStore()
        try store.insert(cached, timestamp: savedAt)
        return (LocalFeedLoader(store: store, currentDate: { fixedCurrentDate }), store)
    }
}
