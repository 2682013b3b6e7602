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
        case retrieveHeader
        case forEachCachedImage
        case insert([FeedImage], Timestamp)
        case beginFeed(Timestamp, keepingCachedImages: Bool)
        case add(FeedImage)
        case deleteCachedFeed
        case insertImageData([UInt8], for: String)
        case retrieveImageData(for: String)
        case cachedImageDataURLs
        case retrieveValidators
        case setValidators(FeedValidators?)
        case touchCachedFeed(Timestamp)
    }

    private(set) var messages: [Message] = []

    /// What `transaction` and `read` fail with before running their body (a busy or unopenable store).
    var openingError: ErrorRecord?
    /// What `transaction` alone fails with (a store this user may only read).
    var transactionError: ErrorRecord?
    var retrievalResult: Result<CachedFeed?, ErrorRecord> = .success(nil)
    /// Whether `add` says each image was added (else: its id was in the feed already).
    var addsImages = true
    var deletionError: ErrorRecord?
    var insertionError: ErrorRecord?
    var imageDataInsertionError: ErrorRecord?
    var imageDataRetrievalResult: Result<[UInt8]?, ErrorRecord> = .success(nil)
    var cachedURLsResult: Result<Set<String>, ErrorRecord> = .success([])
    var validatorsResult: Result<FeedValidators?, ErrorRecord> = .success(nil)
    /// What `touchCachedFeed` answers (whether a feed is cached).
    var touches = true

    func completeRetrieval(with cached: CachedFeed?) { retrievalResult = .success(cached) }
    func completeRetrieval(with error: ErrorRecord) { retrievalResult = .failure(error) }
    func completeRetrievalWithEmptyCache() { retrievalResult = .success(nil) }

    // MARK: FeedStore

    func transaction<T>(_ body: (any FeedStoreTransaction) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        if let openingError { throw openingError }
        if let transactionError { throw transactionError }
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
        func retrieveHeader() throws(ErrorRecord) -> CachedFeedHeader? { try spy.retrieveHeader() }
        func forEachCachedImage(_ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) { try spy.forEachCachedImage(body) }
        func retrieveImageData(for url: String) throws(ErrorRecord) -> [UInt8]? { try spy.retrieveImageData(for: url) }
        func cachedImageDataURLs() throws(ErrorRecord) -> Set<ExactText> { try spy.cachedImageDataURLs() }
        func retrieveValidators() throws(ErrorRecord) -> FeedValidators? { try spy.retrieveValidators() }
    }

    // MARK: FeedStoreTransaction

    func retrieve() throws(ErrorRecord) -> CachedFeed? {
        messages.append(.retrieve)
        return try retrievalResult.get()
    }

    func retrieveHeader() throws(ErrorRecord) -> CachedFeedHeader? {
        messages.append(.retrieveHeader)
        return try retrievalResult.get().map { CachedFeedHeader(timestamp: $0.timestamp, count: $0.feed.count) }
    }

    func forEachCachedImage(_ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        messages.append(.forEachCachedImage)
        for image in try retrievalResult.get()?.feed ?? [] { try CachedImageText.lending(image, to: body) }
    }

    func beginFeed(timestamp: Timestamp, keepingCachedImages: Bool) throws(ErrorRecord) -> any FeedImageWriter {
        messages.append(.beginFeed(timestamp, keepingCachedImages: keepingCachedImages))
        if let insertionError { throw insertionError }
        return Writer(spy: self)
    }

    private final class Writer: FeedImageWriter {
        let spy: FeedStoreSpy
        init(spy: FeedStoreSpy) { self.spy = spy }
        func add(_ image: FeedImage) throws(ErrorRecord) -> Bool {
            spy.messages.append(.add(image))
            return spy.addsImages
        }
        func add(_ image: CachedImageText) throws(ErrorRecord) -> Bool { try add(image.image) }
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

    func cachedImageDataURLs() throws(ErrorRecord) -> Set<ExactText> {
        messages.append(.cachedImageDataURLs)
        return Set(try cachedURLsResult.get().map(ExactText.init))
    }

    func retrieveValidators() throws(ErrorRecord) -> FeedValidators? {
        messages.append(.retrieveValidators)
        return try validatorsResult.get()
    }

    func setValidators(_ validators: FeedValidators?) throws(ErrorRecord) {
        messages.append(.setValidators(validators))
    }

    func touchCachedFeed(timestamp: Timestamp) throws(ErrorRecord) -> Bool {
        messages.append(.touchCachedFeed(timestamp))
        return touches
    }
}
