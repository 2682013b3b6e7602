import XCTest
import EssentialFeed

final class FeedImageDataCacheUseCaseTests: XCTestCase {

    func test_init_doesNotMessageStoreUponCreation() {
        let (_, store) = makeSUT()

        XCTAssertEqual(store.messages, [])
    }

    func test_saveImageData_insertsTheDataForTheURLInATransaction() throws {
        let (sut, store) = makeSUT()

        try sut.save(anyImageData(), for: "https://a.example/1.png")

        XCTAssertEqual(store.messages, [.beginTransaction, .insertImageData(anyImageData(), for: "https://a.example/1.png"), .commit])
    }

    func test_saveImageData_failsOnInsertionError() {
        let (sut, store) = makeSUT()
        store.imageDataInsertionError = anyStoreError()

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.save(anyImageData(), for: "https://a.example/1.png") }), anyStoreError())
    }

    func test_saveImageDataEntries_insertsAllInOneTransactionOrNone() {
        let (sut, store) = makeSUT()
        store.imageDataInsertionError = anyStoreError()

        _ = caughtRecord({ () throws(ErrorRecord) in try sut.save([(url: "https://a.example/1.png", data: [1]), (url: "https://a.example/2.png", data: [2])]) })

        XCTAssertEqual(store.messages, [.beginTransaction, .insertImageData([1], for: "https://a.example/1.png"), .rollback])
    }

    func test_saveImageDataEntries_doesNothingWithoutEntries() throws {
        let (sut, store) = makeSUT()

        try sut.save([])

        XCTAssertEqual(store.messages, [])
    }

    func test_loadImageData_deliversStoredDataOrNotFound() throws {
        let (sut, store) = makeSUT()

        store.imageDataRetrievalResult = .success(anyImageData())
        XCTAssertEqual(try sut.loadImageData(for: "https://a.example/1.png"), anyImageData())

        store.imageDataRetrievalResult = .success(nil)
        XCTAssertNil(try sut.loadImageData(for: "https://a.example/1.png"))

        XCTAssertEqual(store.messages.filter { $0 != .beginRead && $0 != .endRead },
                       [.retrieveImageData(for: "https://a.example/1.png"), .retrieveImageData(for: "https://a.example/1.png")])
    }

    func test_loadImageData_failsOnRetrievalError() {
        let (sut, store) = makeSUT()
        store.imageDataRetrievalResult = .failure(anyStoreError())

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.loadImageData(for: "https://a.example/1.png") }), anyStoreError())
    }

    func test_missingImageURLs_deliversTheURLsWithoutDataOnceInFeedOrder() throws {
        let cached = uniqueImage()
        let a = uniqueImage(), b = uniqueImage()
        let sameURLAsA = uniqueImage(url: a.url)
        let (sut, store) = makeSUT()
        store.cachedURLsResult = .success([cached.url])

        XCTAssertEqual(try sut.missingImageURLs(in: [b, cached, a, sameURLAsA, b]), [b.url, a.url])
    }

    func test_missingImageURLs_failsOnRetrievalError() {
        let (sut, store) = makeSUT()
        store.cachedURLsResult = .failure(anyStoreError())

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.missingImageURLs(in: uniqueFeed()) }), anyStoreError())
    }

    // MARK: Helpers

    private func makeSUT() -> (sut: LocalFeedImageDataLoader, store: FeedStoreSpy) {
        let store = FeedStoreSpy()
        return (LocalFeedImageDataLoader(store: store), store)
    }
}
