import XCTest
import EssentialFeed

final class CacheFeedUseCaseTests: XCTestCase {

    func test_init_doesNotMessageStoreUponCreation() {
        let (_, store) = makeSUT()

        XCTAssertEqual(store.messages, [])
    }

    func test_save_requestsCacheDeletionFirst() {
        let (sut, store) = makeSUT()

        try? sut.save(uniqueFeed())

        XCTAssertEqual(store.messages.prefix(2), [.beginTransaction, .deleteCachedFeed])
    }

    func test_save_doesNotRequestCacheInsertionOnDeletionError() {
        let (sut, store) = makeSUT()
        store.deletionError = anyStoreError()

        try? sut.save(uniqueFeed())

        XCTAssertEqual(store.messages, [.beginTransaction, .deleteCachedFeed, .rollback])
    }

    func test_save_requestsNewCacheInsertionWithTimestampOnSuccessfulDeletion() {
        let timestamp = Timestamp(seconds: 1_709_208_000, nanoseconds: 42)
        let feed = uniqueFeed()
        let (sut, store) = makeSUT(currentDate: { timestamp })

        try? sut.save(feed)

        XCTAssertEqual(store.messages, [.beginTransaction, .deleteCachedFeed, .insert(feed, timestamp), .commit])
    }

    func test_save_failsOnDeletionError() {
        let (sut, store) = makeSUT()
        let deletionError = anyStoreError()
        store.deletionError = deletionError

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.save(uniqueFeed()) }), deletionError)
    }

    func test_save_failsOnInsertionErrorAndKeepsNothing() {
        let (sut, store) = makeSUT()
        let insertionError = ErrorRecord(.store, "cannot write /x/feed.sqlite: database or disk is full")
        store.insertionError = insertionError

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.save(uniqueFeed()) }), insertionError)
        XCTAssertEqual(store.messages.last, .rollback, "Expected the deletion to be rolled back with the failed insertion")
    }

    func test_save_failsWithBusyWhenTheStoreStaysLocked() {
        let (sut, store) = makeSUT()
        let busy = ErrorRecord(.busy, "/x/feed.sqlite: store is busy")
        store.openingError = busy

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.save(uniqueFeed()) }), busy)
        XCTAssertEqual(store.messages, [])
    }

    func test_save_succeedsOnSuccessfulCacheInsertion() {
        let (sut, store) = makeSUT()

        XCTAssertNoThrow(try sut.save(uniqueFeed()))
        XCTAssertEqual(store.messages.last, .commit)
    }

    func test_save_storesAnEmptyFeedAsGiven() {
        let (sut, store) = makeSUT()

        try? sut.save([])

        XCTAssertEqual(store.messages, [.beginTransaction, .deleteCachedFeed, .insert([], fixedCurrentDate), .commit])
    }

    func test_save_readsTheClockOncePerSave() {
        var calls = 0
        let (sut, _) = makeSUT(currentDate: { calls += 1; return fixedCurrentDate })

        try? sut.save(uniqueFeed())

        XCTAssertEqual(calls, 1)
    }

    // MARK: Helpers

    private func makeSUT(currentDate: @escaping () -> Timestamp = { fixedCurrentDate }) -> (sut: LocalFeedLoader, store: FeedStoreSpy) {
        let store = FeedStoreSpy()
        let sut = LocalFeedLoader(store: store, currentDate: currentDate)
        return (sut, store)
    }
}
