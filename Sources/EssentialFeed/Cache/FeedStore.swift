/// The feed a store holds, with the time it was saved.
public struct CachedFeed: Equatable, Hashable, Sendable {
    public var feed: [FeedImage]
    public var timestamp: Timestamp

    public init(feed: [FeedImage], timestamp: Timestamp) {
        self.feed = feed
        self.timestamp = timestamp
    }
}

/// The cached feed's timestamp and number of images, read without its images.
public struct CachedFeedHeader: Equatable, Hashable, Sendable {
    public var timestamp: Timestamp
    public var count: Int

    public init(timestamp: Timestamp, count: Int) {
        self.timestamp = timestamp
        self.count = count
    }
}

/// What can be read inside a store transaction.
///
/// Every operation throws `ErrorRecord` values of kind `.store` (the store
/// cannot be opened, read or written; the message names the path and the
/// reason) or `.busy` (the store stayed locked past the wait limit).
public protocol FeedStoreReader {
    /// The cached feed and its timestamp, or nil when nothing is cached.
    func retrieve() throws(ErrorRecord) -> CachedFeed?
    /// The cached feed's timestamp and image count without its images, or nil
    /// when nothing is cached. Fails as `retrieve` does when the store cannot
    /// be read; a feed whose images alone are damaged may pass here and fail
    /// in `forEachCachedImage`.
    func retrieveHeader() throws(ErrorRecord) -> CachedFeedHeader?
    /// Calls `body` with each image of the cached feed, in order, lent as its
    /// stored text for the length of the call (nothing is copied or collected:
    /// memory stays bounded whatever the feed's size). Nothing cached: no
    /// call. A damaged image fails with a `.store` error naming it, after
    /// `body` has seen the images before it.
    func forEachCachedImage(_ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord)
    /// The data stored for `url`, or nil when there is none.
    func retrieveImageData(for url: String) throws(ErrorRecord) -> [UInt8]?
    /// The URLs that have image data stored.
    func cachedImageDataURLs() throws(ErrorRecord) -> Set<String>
}

/// Adds images one at a time to the feed a transaction is writing
/// (`FeedStoreTransaction.beginFeed`), so that a feed of any size can be saved
/// as it is read, with bounded memory.
public protocol FeedImageWriter: AnyObject {
    /// Adds `image` after the images already in the feed, unless one of them
    /// has its id: the first image of an id stays. Returns whether it was added.
    func add(_ image: FeedImage) throws(ErrorRecord) -> Bool
    /// `add(_:)` for an image lent as text: a store that writes text can
    /// write it as it lies, without making strings.
    func add(_ image: CachedImageText) throws(ErrorRecord) -> Bool
}

/// What can be read and written inside a store transaction.
///
/// Image data is kept by URL. When a transaction that inserted or deleted the
/// cached feed commits, the data of every URL that is not in the feed it
/// leaves behind is dropped in the same transaction: data of images that stay
/// in the feed survives a save that replaces the feed (delete then insert),
/// data of images no longer in it goes with them.
public protocol FeedStoreTransaction: FeedStoreReader {
    /// Replaces the cached feed (if any) with `feed` saved at `timestamp`.
    func insert(_ feed: [FeedImage], timestamp: Timestamp) throws(ErrorRecord)
    /// Starts a new cached feed saved at `timestamp`, whose images are then
    /// added one by one, in order, through the writer returned (each id once).
    /// The cached images are dropped, or, when `keepingCachedImages`, kept
    /// ahead of the new ones (a cached feed that cannot be read is then an
    /// error). The writer works until the transaction ends or the feed is
    /// replaced or deleted again; nothing it added is kept if the transaction fails.
    func beginFeed(timestamp: Timestamp, keepingCachedImages: Bool) throws(ErrorRecord) -> any FeedImageWriter
    /// Deletes the cached feed; does nothing when nothing is cached.
    func deleteCachedFeed() throws(ErrorRecord)
    /// Stores `data` for `url`, replacing what was stored for it.
    func insertImageData(_ data: [UInt8], for url: String) throws(ErrorRecord)
}

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

    public func cachedImageDataURLs() throws(ErrorRecord) -> Set<String> {
        try read { (reader) throws(ErrorRecord) in try reader.cachedImageDataURLs() }
    }
}
