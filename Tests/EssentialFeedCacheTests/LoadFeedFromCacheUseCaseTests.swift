import XCTest
import EssentialFeed

final class LoadFeedFromCacheUseCaseTests: XCTestCase {

    func test_init_doesNotMessageStoreUponCreation() {
        let (_, store) = makeSUT()

        XCTAssertEqual(store.messages, [])
    }

    func test_load_requestsCacheRetrievalInAReadTransaction() {
        let (sut, store) = makeSUT()

        _ = try? sut.load()

        XCTAssertEqual(store.messages, [.beginRead, .retrieve, .endRead])
    }

    func test_load_failsOnRetrievalError() {
        let (sut, store) = makeSUT()
        let retrievalError = ErrorRecord(.store, "/x/feed.sqlite: not a feed cache (file is not a database)")
        store.completeRetrieval(with: retrievalError)

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.load() }), retrievalError)
    }

    func test_load_deliversNoImagesOnEmptyCache() throws {
        let (sut, store) = makeSUT()
        store.completeRetrievalWithEmptyCache()

        let result = try sut.load()

        XCTAssertEqual(result, .empty)
        XCTAssertNil(result.feed)
    }

    func test_load_deliversCachedImagesOnLessThanSevenDaysOldCache() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge().adding(seconds: 1))
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)

        let result = try sut.load()

        XCTAssertEqual(result, .found(cached))
        XCTAssertEqual(result.feed, cached.feed)
    }

    func test_load_deliversCachedImagesOnCacheOneNanosecondYoungerThanSevenDays() throws {
        let timestamp = fixedCurrentDate.minusFeedCacheMaxAge()
        let cached = cachedFeed(savedAt: Timestamp(seconds: timestamp.seconds, nanoseconds: 1))
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)

        XCTAssertEqual(try sut.load().feed, cached.feed)
    }

    func test_load_deliversNoImagesOnSevenDaysOldCache() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge())
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)

        let result = try sut.load()

        XCTAssertEqual(result, .expired(cached))
        XCTAssertNil(result.feed)
    }

    func test_load_deliversNoImagesOnMoreThanSevenDaysOldCache() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge().adding(seconds: -1))
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)

        let result = try sut.load()

        XCTAssertEqual(result, .expired(cached))
        XCTAssertNil(result.feed)
    }

    func test_load_deliversCachedImagesOnCacheFromTheFuture() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.adding(days: 1))
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)

        XCTAssertEqual(try sut.load(), .found(cached))
    }

    func test_load_honoursAConfiguredMaxAge() throws {
        let policy = FeedCachePolicy(maxAge: try CacheMaxAge(parsing: "36h"))
        let young = cachedFeed(savedAt: fixedCurrentDate.adding(seconds: -36 * 3600 + 1))
        let old = cachedFeed(savedAt: fixedCurrentDate.adding(seconds: -36 * 3600))
        let (sut, store) = makeSUT(policy: policy)

        store.completeRetrieval(with: young)
        XCTAssertEqual(try sut.load(), .found(young))

        store.completeRetrieval(with: old)
        XCTAssertEqual(try sut.load(), .expired(old))
    }

    func test_load_hasNoSideEffectsOnRetrievalError() {
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: anyStoreError())

        _ = try? sut.load()

        XCTAssertEqual(store.messages, [.beginRead, .retrieve, .endRead])
    }

    func test_load_hasNoSideEffectsOnEmptyCache() {
        let (sut, store) = makeSUT()
        store.completeRetrievalWithEmptyCache()

        _ = try? sut.load()

        XCTAssertEqual(store.messages, [.beginRead, .retrieve, .endRead])
    }

    func test_load_hasNoSideEffectsOnLessThanSevenDaysOldCache() {
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge().adding(seconds: 1)))

        _ = try? sut.load()

        XCTAssertEqual(store.messages, [.beginRead, .retrieve, .endRead])
    }

    func test_load_hasNoSideEffectsOnSevenDaysOldCache() {
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge()))

        _ = try? sut.load()

        XCTAssertEqual(store.messages, [.beginRead, .retrieve, .endRead])
    }

    func test_load_hasNoSideEffectsOnMoreThanSevenDaysOldCache() {
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge().adding(seconds: -1)))

        _ = try? sut.load()

        XCTAssertEqual(store.messages, [.beginRead, .retrieve, .endRead])
    }

    func test_load_readsTheCurrentDateAtEachLoad() throws {
        var now = fixedCurrentDate
        let cached = cachedFeed(savedAt: fixedCurrentDate)
        let (sut, store) = makeSUT(currentDate: { now })
        store.completeRetrieval(with: cached)

        XCTAssertEqual(try sut.load(), .found(cached))
        now = fixedCurrentDate.adding(days: 7)
        XCTAssertEqual(try sut.load(), .expired(cached))
    }

    // MARK: Helpers

    private func makeSUT(policy: FeedCachePolicy = FeedCachePolicy(),
                         currentDate: @escaping () -> Timestamp = { fixedCurrentDate }) -> (sut: LocalFeedLoader, store: FeedStoreSpy) {
        let store = FeedStoreSpy()
        let sut = LocalFeedLoader(store: store, policy: policy, currentDate: currentDate)
        return (sut, store)
    }
}
