import EssentialFeed

/// The transaction of a store whose file cannot be read (not a database,
/// not JSON, damaged beyond one feed): reading fails with `error`, and so does
/// writing, except deleting the cached feed, which resets the store to an
/// empty one (image data included), as the validate use case expects of an
/// unreadable cache. After the reset the transaction goes on against the
/// empty store, so a save (delete, then insert) replaces the unreadable file.
///
/// Files that are readable but not a feed cache (another application's
/// database, JSON without the feed cache's format, a newer schema) never get
/// here: the stores refuse them before running the transaction.
///
/// A store that can be reset where it lies, inside the transaction (a
/// PostgreSQL schema of ours with a table or a column missing), gives
/// `resettingStore`: it empties the store and returns the transaction to
/// go on with. Without it the store is reset in memory (`resetSnapshot`),
/// for the caller to write once the transaction is done.
public final class UnreadableStoreTransaction: FeedStoreTransaction {
    let error: ErrorRecord
    private let resettingStore: (() throws(ErrorRecord) -> any FeedStoreTransaction)?
    private var reset: (any FeedStoreTransaction)?
    private var snapshot: FeedStoreSnapshotTransaction?

    public init(_ error: ErrorRecord, resettingStore: (() throws(ErrorRecord) -> any FeedStoreTransaction)? = nil) {
        self.error = error
        self.resettingStore = resettingStore
    }

    /// The content to replace the file with, when the transaction reset the
    /// store in memory.
    var resetSnapshot: FeedStoreSnapshot? { snapshot?.commit() }

    private func store() throws(ErrorRecord) -> any FeedStoreTransaction {
        guard let reset else { throw error }
        return reset
    }

    public func makeCachedImageSpool() -> any CachedImageSpool {
        (reset ?? FeedStoreSnapshotTransaction(FeedStoreSnapshot())).makeCachedImageSpool()
    }

    public func retrieve() throws(ErrorRecord) -> CachedFeed? {
        try store().retrieve()
    }

    public func retrieveHeader() throws(ErrorRecord) -> CachedFeedHeader? {
        try store().retrieveHeader()
    }

    public func forEachCachedImage(_ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        try store().forEachCachedImage(body)
    }

    public func beginFeed(timestamp: Timestamp, keepingCachedImages: Bool) throws(ErrorRecord) -> any FeedImageWriter {
        try store().beginFeed(timestamp: timestamp, keepingCachedImages: keepingCachedImages)
    }

    public func retrieveImageData(for url: String) throws(ErrorRecord) -> [UInt8]? {
        try store().retrieveImageData(for: url)
    }

    public func cachedImageDataURLs() throws(ErrorRecord) -> Set<ExactText> {
        try store().cachedImageDataURLs()
    }

    public func insert(_ feed: [FeedImage], timestamp: Timestamp) throws(ErrorRecord) {
        try store().insert(feed, timestamp: timestamp)
    }

    public func insertImageData(_ data: [UInt8], for url: String) throws(ErrorRecord) {
        try store().insertImageData(data, for: url)
    }

    public func retrieveValidators() throws(ErrorRecord) -> FeedValidators? {
        try store().retrieveValidators()
    }

    public func setValidators(_ validators: FeedValidators?) throws(ErrorRecord) {
        try store().setValidators(validators)
    }

    public func touchCachedFeed(timestamp: Timestamp) throws(ErrorRecord) -> Bool {
        try store().touchCachedFeed(timestamp: timestamp)
    }

    public func deleteCachedFeed() throws(ErrorRecord) {
        if reset == nil {
            if let resettingStore {
                reset = try resettingStore()
            } else {
                let emptied = FeedStoreSnapshotTransaction(FeedStoreSnapshot())
                snapshot = emptied
                reset = emptied
            }
        }
        try store().deleteCachedFeed()
    }
}
