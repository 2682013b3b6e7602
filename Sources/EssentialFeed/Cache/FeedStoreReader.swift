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
    func cachedImageDataURLs() throws(ErrorRecord) -> Set<ExactText>
    /// The validators kept with the cached feed, or nil when there are none
    /// (nothing cached, or a feed saved without them).
    func retrieveValidators() throws(ErrorRecord) -> FeedValidators?
}
