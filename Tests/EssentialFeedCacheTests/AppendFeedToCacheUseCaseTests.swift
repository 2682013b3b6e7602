import XCTest
import EssentialFeed

final class AppendFeedToCacheUseCaseTests: XCTestCase {

    func test_append_retrievesThenInsertsInOneTransaction() throws {
        let new = uniqueFeed()
        let (sut, store) = makeSUT()
        store.completeRetrievalWithEmptyCache()

        try sut.append(new)

        XCTAssertEqual(store.messages, [.beginTransaction, .retrieve, .insert(new, fixedCurrentDate), .commit])
    }

    func test_append_insertsNewItemsAfterTheCachedOnesWithTheCurrentTimestamp() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.adding(days: -1), count: 2)
        let new = uniqueFeed(count: 2)
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)

        let result = try sut.append(new)

        XCTAssertEqual(store.messages, [.beginTransaction, .retrieve, .insert(cached.feed + new, fixedCurrentDate), .commit])
        XCTAssertEqual(result, FeedCacheAppendResult(kept: 2, added: 2, droppedExpired: 0))
    }

    func test_append_doesNotAddAnIdAlreadyCached() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.adding(days: -1), count: 2)
        let again = FeedImage(id: cached.feed[1].id, description: "changed", location: nil, url: "https://changed.example/x.png")
        let new = uniqueImage()
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)

        let result = try sut.append([again, new])

        XCTAssertEqual(store.messages, [.beginTransaction, .retrieve, .insert(cached.feed + [new], fixedCurrentDate), .commit],
                       "Expected the cached item to stay as it was, in its place")
        XCTAssertEqual(result, FeedCacheAppendResult(kept: 2, added: 1, droppedExpired: 0))
    }

    func test_append_addsEachNewIdOnceInInputOrder() throws {
        let a = uniqueImage(), b = uniqueImage(), c = uniqueImage()
        let (sut, store) = makeSUT()
        store.completeRetrievalWithEmptyCache()

        let result = try sut.append([c, a, c, b, a])

        XCTAssertEqual(store.messages, [.beginTransaction, .retrieve, .insert([c, a, b], fixedCurrentDate), .commit])
        XCTAssertEqual(result, FeedCacheAppendResult(kept: 0, added: 3, droppedExpired: 0))
    }

    func test_append_refreshesTheTimestampEvenWhenNothingIsNew() throws {
        let cached = cachedFeed(savedAt: fixedCurrentDate.adding(days: -3))
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: cached)

        try sut.append(cached.feed)

        XCTAssertEqual(store.messages, [.beginTransaction, .retrieve, .insert(cached.feed, fixedCurrentDate), .commit])
    }

    func test_append_doesNotKeepTheItemsOfAnExpiredCache() throws {
        let expired = cachedFeed(savedAt: fixedCurrentDate.minusFeedCacheMaxAge(), count: 3)
        let new = [uniqueImage(), expired.feed[0]]
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: expired)

        let result = try sut.append(new)

        XCTAssertEqual(store.messages, [.beginTransaction, .retrieve, .insert(new, fixedCurrentDate), .commit])
        XCTAssertEqual(result, FeedCacheAppendResult(kept: 0, added: 2, droppedExpired: 3))
    }

    func test_append_failsOnRetrievalErrorWithoutInserting() {
        let retrievalError = ErrorRecord(.store, "/x/feed.json: damaged feed cache: no valid \"timestamp\"")
        let (sut, store) = makeSUT()
        store.completeRetrieval(with: retrievalError)

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.append(uniqueFeed()) }), retrievalError)
        XCTAssertEqual(store.messages, [.beginTransaction, .retrieve, .rollback])
    }

    func test_append_failsOnInsertionError() {
        let insertionError = anyStoreError()
        let (sut, store) = makeSUT()
        store.insertionError = insertionError

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.append(uniqueFeed()) }), insertionError)
        XCTAssertEqual(store.messages.last, .rollback)
    }

    func test_append_deliversTheAppendedFeedThroughARealStore() throws {
        let store = InMemoryFeedStore()
        var now = fixedCurrentDate
        let sut = LocalFeedLoader(store: store, currentDate: { now })
        let first = uniqueFeed(count: 2)
        let second = [first[1], uniqueImage()]

        try sut.save(first)
        now = fixedCurrentDate.adding(seconds: 60)
        try sut.append(second)

        XCTAssertEqual(try sut.load(), .found(CachedFeed(feed: first + [second[1]], timestamp: now)))
    }

    // MARK: Helpers

    private func makeSUT(currentDate: @escaping () -> Timestamp = { fixedCurrentDate }) -> (sut: LocalFeedLoader, store: FeedStoreSpy) {
        let store = FeedStoreSpy()
        let sut = LocalFeedLoader(store: store, currentDate: currentDate)
        return (sut, store)
    }
}
