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
final class UnreadableStoreTransaction: FeedStoreTransaction {
    let error: ErrorRecord
    private var reset: FeedStoreSnapshotTransaction?

    init(_ error: ErrorRecord) {
        self.error = error
    }

    /// The content to replace the file with, when the transaction reset the store.
    var resetSnapshot: FeedStoreSnapshot? { reset?.commit() }

    private func store() throws(ErrorRecord) -> FeedStoreSnapshotTransaction {
        guard let reset else { throw error }
        return reset
    }

    func retrieve() throws(ErrorRecord) -> CachedFeed? {
        try store().retrieve()
    }

    func retrieveHeader() throws(ErrorRecord) -> CachedFeedHeader? {
        try store().retrieveHeader()
    }

    func forEachCachedImage(_ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        try store().forEachCachedImage(body)
    }

    func beginFeed(timestamp: Timestamp, keepingCachedImages: Bool) throws(ErrorRecord) -> any FeedImageWriter {
        try store().beginFeed(timestamp: timestamp, keepingCachedImages: keepingCachedImages)
    }

    func retrieveImageData(for url: String) throws(ErrorRecord) -> [UInt8]? {
        try store().retrieveImageData(for: url)
    }

    func cachedImageDataURLs() throws(ErrorRecord) -> Set<String> {
        try store().cachedImageDataURLs()
    }

    func insert(_ feed: [FeedImage], timestamp: Timestamp) throws(ErrorRecord) {
        try store().insert(feed, timestamp: timestamp)
    }

    func insertImageData(_ data: [UInt8], for url: String) throws(ErrorRecord) {
        try store().insertImageData(data, for: url)
    }

    func retrieveValidators() throws(ErrorRecord) -> FeedValidators? {
        try store().retrieveValidators()
    }

    func setValidators(_ validators: FeedValidators?) throws(ErrorRecord) {
        try store().setValidators(validators)
    }

    func touchCachedFeed(timestamp: Timestamp) throws(ErrorRecord) -> Bool {
        try store().touchCachedFeed(timestamp: timestamp)
    }

    func deleteCachedFeed() throws(ErrorRecord) {
        if reset == nil { reset = FeedStoreSnapshotTransaction(FeedStoreSnapshot()) }
        try store().deleteCachedFeed()
    }
}
