import XCTest
import EssentialFeed

final class ValidateFeedCacheUseCaseTests: XCTestCase {

    func test_init_doesNotMessageStoreUponCreation() {
        let (_, store) = makeSUT()

        XCTAssertEqual(store.messages, [])
    }

    func test_validateCache_deletesCacheOnRetrievalError() {
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: anyStoreError())

        _ = try? sut.validateCache()

        XCTAssertEqual(store.messages, [.beginRead, .retrieveHeader, .endRead, .beginTransaction, .retrieveHeader, .deleteCachedFeed, .commit])
    }

    func test_validateCache_doesNotDeleteCacheOnEmptyCache() {
        let (sut, store) = makeSUT()
        store.completeRetrievalWithEmptyCache()

        _ = try? sut.validateCache()

        XCTAssertEqual(store.messages, [.beginRead, .retrieveHeader, .endRead], "nothing to delete: no write transaction")
    }

    func test_validateCache_doesNotDeleteLessThanSevenDaysOldCache() {
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge().adding(seconds: 1)))

        _ = try? sut.validateCache()

        XCTAssertEqual(store.messages, [.beginRead, .retrieveHeader, .forEachCachedImage, .endRead],
                       "Expected the images read one by one, to find a damaged one")
    }

    func test_validateCache_deletesSevenDaysOldCache() {
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge()))

        _ = try? sut.validateCache()

        XCTAssertEqual(store.messages, [.beginRead, .retrieveHeader, .endRead, .beginTransaction, .retrieveHeader, .deleteCachedFeed, .commit])
    }

    func test_validateCache_deletesMoreThanSevenDaysOldCache() {
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge().adding(seconds: -1)))

        _ = try? sut.validateCache()

        XCTAssertEqual(store.messages, [.beginRead, .retrieveHeader, .endRead, .beginTransaction, .retrieveHeader, .deleteCachedFeed, .commit])
    }

    func test_validateCache_failsOnDeletionErrorOfFailedRetrieval() {
        let (sut, store) = makeSUT()
        let deletionError = ErrorRecord(.store, "cannot write /x/feed.sqlite: disk I/O error")
        store.completeRetrieval(with: anyStoreError())
        store.deletionError = deletionError

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.validateCache() }), deletionError)
        XCTAssertEqual(store.messages, [.beginRead, .retrieveHeader, .endRead, .beginTransaction, .retrieveHeader, .deleteCachedFeed, .rollback])
    }

    func test_validateCache_succeedsOnSuccessfulDeletionOfFailedRetrieval() throws {
        let (sut, store) = makeSUT()
        let retrievalError = ErrorRecord(.store, "/x/feed.json: damaged feed cache: feed item 2 has no url")
        store.completeRetrieval(with: retrievalError)

        XCTAssertEqual(try sut.validateCache(), .deletedUnreadable(retrievalError))
    }

    func test_validateCache_succeedsOnEmptyCache() throws {
        let (sut, store) = makeSUT()
        store.completeRetrievalWithEmptyCache()

        XCTAssertEqual(try sut.validateCache(), .empty)
    }

    func test_validateCache_succeedsOnNonExpiredCache() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge().adding(seconds: 1))
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)

        XCTAssertEqual(try sut.validateCache(), .valid(CachedFeedHeader(timestamp: cached.timestamp, count: cached.feed.count)))
    }

    func test_validateCache_failsOnDeletionErrorOfExpiredCache() {
        let (sut, store) = makeSUT()
        let deletionError = anyStoreError()
        store.completeRetrieval(with: cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge()))
        store.deletionError = deletionError

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.validateCache() }), deletionError)
        XCTAssertEqual(store.messages.last, .rollback)
    }

    func test_validateCache_succeedsOnSuccessfulDeletionOfExpiredCache() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge())
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)

        XCTAssertEqual(try sut.validateCache(), .deletedExpired(CachedFeedHeader(timestamp: cached.timestamp, count: cached.feed.count)))
    }

    func test_validateCache_doesNotDeleteWhenRetrievalIsBusy() {
        let (sut, store) = makeSUT()
        let busy = ErrorRecord(.busy, "/x/feed.sqlite: store is busy")
        store.completeRetrieval(with: busy)

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.validateCache() }), busy)
        XCTAssertEqual(store.messages, [.beginRead, .retrieveHeader, .endRead])
    }

    func test_validateCache_failsWithoutTouchingTheCacheWhenTheStoreCannotBeOpened() {
        let (sut, store) = makeSUT()
        let openingError = ErrorRecord(.store, "/x/feed.sqlite: not a feed cache (a SQLite database of another application)")
        store.openingError = openingError

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.validateCache() }), openingError)
        XCTAssertEqual(store.messages, [])
    }

    /// A store this user may only read (a JSON store in a folder that is
    /// not theirs: no lock file can be made) validates a valid or empty
    /// cache all the same; it was a store failure (74).
    func test_validateCache_ofAValidOrEmptyCache_needsNoWriteTransaction() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge().adding(seconds: 1))
        let (sut, store) = makeSUT()
        store.transactionError = ErrorRecord(.store, "cannot create /x/feed.json.lock: Permission denied")
        store.completeRetrieval(with: cached)
        XCTAssertEqual(try sut.validateCache(), .valid(CachedFeedHeader(timestamp: cached.timestamp, count: cached.feed.count)))
        store.completeRetrievalWithEmptyCache()
        XCTAssertEqual(try sut.validateCache(), .empty)
        store.completeRetrieval(with: cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge()))
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.validateCache() })?.message, "cannot create /x/feed.json.lock: Permission denied",
                       "an expired one still needs the write, and says why it failed")
    }

    func test_validateCache_honoursAConfiguredMaxAge() throws {
        let policy = FeedCachePolicy(maxAge: try CacheMaxAge(parsing: "90m"))
        let cached = cachedFeed(savedAt: fixedCurrentDate.adding(seconds: -90 * 60))
        let (sut, store) = makeSUT(policy: policy)
        store.completeRetrieval(with: cached)

        XCTAssertEqual(try sut.validateCache(), .deletedExpired(CachedFeedHeader(timestamp: cached.timestamp, count: cached.feed.count)))
    }

    // MARK: Helpers

    private func makeSUT(policy: FeedCachePolicy = FeedCachePolicy(),
                         currentDate: @escaping () -> Timestamp = { fixedCurrentDate }) -> (sut: LocalFeedLoader, store: FeedStoreSpy) {
        let store = FeedStoreSpy()
        let sut = LocalFeedLoader(store: store, policy: policy, currentDate: currentDate)
        return (sut, store)
    }
}
