/// The images of a cached feed, copied in order, as a merging save
/// (`LocalFeedLoader.merge`) reads them before it writes the feed anew.
/// Every image is appended before any is read back. A store's transaction
/// gives one (`FeedStoreTransaction.makeCachedImageSpool`): in memory by
/// default (`CachedImageRun`), in a temporary file for a store that may hold
/// a large feed.
public protocol CachedImageSpool: AnyObject {
    /// How many images were appended.
    var count: Int { get }
    /// Appends a copy of `image`.
    func append(_ image: CachedImageText) throws(ErrorRecord)
    /// The first image at or after `start` whose canonical id is `id` (36 bytes).
    func index(of id: [UInt8], from start: Int) throws(ErrorRecord) -> Int?
    /// Lends the images in `range` to `body`, in order, one at a time.
    func forEach(in range: Range<Int>, _ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord)
}

extension FeedStoreTransaction {
    /// A spool in memory (`CachedImageRun`); a store with large feeds gives one in a file.
    public func makeCachedImageSpool() -> any CachedImageSpool { CachedImageRun() }
}
