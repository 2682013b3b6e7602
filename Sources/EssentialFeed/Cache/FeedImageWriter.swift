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
