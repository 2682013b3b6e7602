/// The boundary between the cache use cases and the storage.
///
/// Every access runs as one transaction. A write transaction is exclusive
/// (across store instances and processes: the others wait up to their wait
/// limit, then fail with `.busy`) and all-or-nothing: when `body` throws,
/// nothing it did is kept and the error is rethrown. A read transaction sees
/// one consistent committed state and never writes.
public protocol FeedStore {
    /// Runs `body` as one atomic, exclusive read-write transaction.
    func transaction<T>(_ body: (any FeedStoreTransaction) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T
    /// Runs `body` against one consistent committed state; creates nothing.
    func read<T>(_ body: (any FeedStoreReader) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T
    /// A description of the store and its content (for `feed-cache info`).
    func info() throws(ErrorRecord) -> FeedStoreInfo
}

/// Single operations, each its own transaction.
extension FeedStore {
    public func retrieve() throws(ErrorRecord) -> CachedFeed? {
        try read { (reader) throws(ErrorRecord) in try reader.retrieve() }
    }

    public func insert(_ feed: [FeedImage], timestamp: Timestamp) throws(ErrorRecord) {
        try transaction { (tx) throws(ErrorRecord) in try tx.insert(feed, timestamp: timestamp) }
    }

    public func deleteCachedFeed() throws(ErrorRecord) {
        try transaction { (tx) throws(ErrorRecord) in try tx.deleteCachedFeed() }
    }

    public func insertImageData(_ data: [UInt8], for url: String) throws(ErrorRecord) {
        try transaction { (tx) throws(ErrorRecord) in try tx.insertImageData(data, for: url) }
    }

    public func retrieveImageData(for url: String) throws(ErrorRecord) -> [UInt8]? {
        try read { (reader) throws(ErrorRecord) in try reader.retrieveImageData(for: url) }
    }

    public func cachedImageDataURLs() throws(ErrorRecord) -> Set<ExactText> {
        try read { (reader) throws(ErrorRecord) in try reader.cachedImageDataURLs() }
    }
}
