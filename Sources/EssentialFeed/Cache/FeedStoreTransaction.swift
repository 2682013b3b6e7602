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
    /// Keeps `validators` with the cached feed (nil: none), until the feed
    /// is replaced or deleted, which drops them; does nothing when nothing
    /// is cached.
    func setValidators(_ validators: FeedValidators?) throws(ErrorRecord)
    /// Gives the cached feed the timestamp `timestamp`, its images and
    /// validators as they are (a server confirmed it current); false when
    /// nothing is cached.
    func touchCachedFeed(timestamp: Timestamp) throws(ErrorRecord) -> Bool
    /// Stores `data` for `url`, replacing what was stored for it.
    func insertImageData(_ data: [UInt8], for url: String) throws(ErrorRecord)
    /// An empty spool for a copy of the cached images (see `CachedImageSpool`).
    func makeCachedImageSpool() -> any CachedImageSpool
}
