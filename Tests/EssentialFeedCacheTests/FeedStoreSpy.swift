import EssentialFeed

/// Records what the use cases ask of the store, and answers with stubs.
final class FeedStoreSpy: FeedStore, FeedStoreTransaction {
    enum Message: Equatable {
        case beginTransaction
        case commit
        case rollback
        case beginRead
        case endRead
        case retrieve
        case insert([FeedImage], Timestamp)
        case deleteCachedFeed
        case insertImageData([UInt8], for: String)
        case retrieveImageData(for: String)
        case cachedImageDataURLs
    }

    private(set) var messages: [Message] = []

    /// What `transaction` and `read` fail with before running their body (a busy or unopenable store).
    var openingError: ErrorRecord?
    var retrievalResult: Result<CachedFeed?, ErrorRecord> = .success(nil)
    var deletionError: ErrorRecord?
    var insertionError: ErrorRecord?
    var imageDataInsertionError: ErrorRecord?
    var imageDataRetrievalResult: Result<[UInt8]?, ErrorRecord> = .success(nil)
    var cachedURLsResult: Result<Set<String>, ErrorRecord> = .success([])

    func completeRetrieval(with cached: CachedFeed?) { retrievalResult = .success(cached) }
    func completeRetrieval(with error: ErrorRecord) { retrievalResult = .failure(error) }
    func completeRetrievalWithEmptyCache() { retrievalResult = .success(nil) }

    // MARK: FeedStore

    func transaction<T>(_ body: (any FeedStoreTransaction) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        if let openingError { throw openingError }
        messages.append(.beginTransaction)
        do {
            let result = try body(self)
            messages.append(.commit)
            return result
        } catch {
            messages.append(.rollback)
            throw error
        }
    }

    func read<T>(_ body: (any FeedStoreReader) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        if let openingError { throw openingError }
        messages.append(.beginRead)
        defer { messages.append(.endRead) }
        return try body(ReadOnly(spy: self))
    }

    func info() throws(ErrorRecord) -> FeedStoreInfo {
        FeedStoreInfo(kind: "spy", path: nil, exists: true, schemaVersion: nil, itemCount: nil, timestamp: nil, imageDataCount: 0, imageDataBytes: 0)
    }

    /// Hands out reads only, so that a use case cannot write through a read.
    private struct ReadOnly: FeedStoreReader {
        let spy: FeedStoreSpy
        func retrieve() throws(ErrorRecord) -> CachedFeed? { try spy.retrieve() }
        func retrieveImageData(for url: String) throws(ErrorRecord) -> [UInt8]? { try spy.retrieveImageData(for: url) }
        func cachedImageDataURLs() throws(ErrorRecord) -> Set<String> { try spy.cachedImageDataURLs() }
    }

    // MARK: FeedStoreTransaction

    func retrieve() throws(ErrorRecord) -> CachedFeed? {
        messages.append(.retrieve)
        return try retrievalResult.get()
    }

    func insert(_ feed: [FeedImage], timestamp: Timestamp) throws(ErrorRecord) {
        messages.append(.insert(feed, timestamp))
        if let insertionError { throw insertionError }
    }

    func deleteCachedFeed() throws(ErrorRecord) {
        messages.append(.deleteCachedFeed)
        if let deletionError { throw deletionError }
    }

    func insertImageData(_ data: [UInt8], for url: String) throws(ErrorRecord) {
        messages.append(.insertImageData(data, for: url))
        if let imageDataInsertionError { throw imageDataInsertionError }
    }

    func retrieveImageData(for url: String) throws(ErrorRecord) -> [UInt8]? {
        messages.append(.retrieveImageData(for: url))
        return try imageDataRetrievalResult.get()
    }

    func cachedImageDataURLs() throws(ErrorRecord) -> Set<String> {
        messages.append(.cachedImageDataURLs)
        return try cachedURLsResult.get()
    }
}
