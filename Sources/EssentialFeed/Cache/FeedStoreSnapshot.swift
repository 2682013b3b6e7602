#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The whole content of a feed store as a value.
///
/// Stores that keep everything in one document (the in-memory store, the
/// JSON-file store) run each transaction on a copy of their snapshot through a
/// `FeedStoreSnapshotTransaction` and keep the result only when the
/// transaction's body returns, so they share one implementation of the store's
/// rules.
public struct FeedStoreSnapshot: Equatable, Sendable {
    /// The cached feed: nil when nothing is cached, a failure when the store
    /// holds a feed that cannot be read (a damaged document).
    public var cache: Result<CachedFeed, ErrorRecord>?
    /// Image data by URL.
    public var imageData: [String: [UInt8]]

    public init(cache: Result<CachedFeed, ErrorRecord>? = nil, imageData: [String: [UInt8]] = [:]) {
        self.cache = cache
        self.imageData = imageData
    }

    /// Drops the image data of every URL that is not in the cached feed.
    public mutating func dropImageDataNotInFeed() {
        guard !imageData.isEmpty else { return }
        var urls = Set<String>()
        if case .success(let cached)? = cache {
            for image in cached.feed { urls.insert(image.url) }
        }
        imageData = imageData.filter { urls.contains($0.key) }
    }

    /// A description of this content, for `FeedStore.info()`.
    public func info(kind: String, path: String?, exists: Bool, schemaVersion: Int?, fileBytes: Int?) -> FeedStoreInfo {
        var feed: CachedFeed?
        if case .success(let cached)? = cache { feed = cached }
        return FeedStoreInfo(
            kind: kind, path: path, exists: exists, schemaVersion: schemaVersion, fileBytes: fileBytes,
            itemCount: feed?.feed.count, timestamp: feed?.timestamp,
            imageDataCount: imageData.count, imageDataBytes: imageData.values.reduce(0) { $0 + $1.count })
    }
}

/// A transaction over a copy of a `FeedStoreSnapshot`. Call `commit()` when
/// the body has returned to get the snapshot to keep.
public final class FeedStoreSnapshotTransaction: FeedStoreTransaction {
    public private(set) var snapshot: FeedStoreSnapshot
    /// Whether anything was written.
    public private(set) var hasChanges = false
    private var feedChanged = false

    public init(_ snapshot: FeedStoreSnapshot) {
        self.snapshot = snapshot
    }

    public func retrieve() throws(ErrorRecord) -> CachedFeed? {
        switch snapshot.cache {
        case nil: return nil
        case .success(let cached): return cached
        case .failure(let error): throw error
        }
    }

    public func retrieveHeader() throws(ErrorRecord) -> CachedFeedHeader? {
        try retrieve().map { CachedFeedHeader(timestamp: $0.timestamp, count: $0.feed.count) }
    }

    public func forEachCachedImage(_ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        guard let cached = try retrieve() else { return }
        for image in cached.feed { try CachedImageText.lending(image, to: body) }
    }

    public func retrieveImageData(for url: String) throws(ErrorRecord) -> [UInt8]? {
        snapshot.imageData[url]
    }

    public func cachedImageDataURLs() throws(ErrorRecord) -> Set<String> {
        Set(snapshot.imageData.keys)
    }

    public func insert(_ feed: [FeedImage], timestamp: Timestamp) throws(ErrorRecord) {
        writer = nil
        snapshot.cache = .success(CachedFeed(feed: feed, timestamp: timestamp))
        hasChanges = true
        feedChanged = true
    }

    /// The writer of the feed being written, if any.
    private var writer: SnapshotFeedWriter?

    public func beginFeed(timestamp: Timestamp, keepingCachedImages: Bool) throws(ErrorRecord) -> any FeedImageWriter {
        let kept = keepingCachedImages ? try retrieve()?.feed ?? [] : []
        snapshot.cache = .success(CachedFeed(feed: kept, timestamp: timestamp))
        hasChanges = true
        feedChanged = true
        let writer = SnapshotFeedWriter(self, ids: Set(kept.map(\.id)))
        self.writer = writer
        return writer
    }

    /// Appends `image` to the cached feed, in place.
    fileprivate func append(_ image: FeedImage, from writer: SnapshotFeedWriter) throws(ErrorRecord) {
        guard writer === self.writer, case .success(var cached)? = snapshot.cache else {
            throw ErrorRecord(.internal, "a feed writer was used after its feed was replaced")
        }
        snapshot.cache = nil  // so that the feed's storage is not shared, and grows in place
        cached.feed.append(image)
        snapshot.cache = .success(cached)
    }

    public func deleteCachedFeed() throws(ErrorRecord) {
        writer = nil
        guard snapshot.cache != nil else { return }
        snapshot.cache = nil
        hasChanges = true
        feedChanged = true
    }

    public func insertImageData(_ data: [UInt8], for url: String) throws(ErrorRecord) {
        snapshot.imageData[url] = data
        hasChanges = true
    }

    /// The snapshot to keep: the writes, plus the image data rule when the
    /// feed was inserted or deleted.
    public func commit() -> FeedStoreSnapshot {
        if feedChanged { snapshot.dropImageDataNotInFeed() }
        return snapshot
    }
}

/// Adds images to the feed of a `FeedStoreSnapshotTransaction`.
private final class SnapshotFeedWriter: FeedImageWriter {
    private weak var transaction: FeedStoreSnapshotTransaction?
    private var ids: Set<UUID>

    init(_ transaction: FeedStoreSnapshotTransaction, ids: Set<UUID>) {
        self.transaction = transaction
        self.ids = ids
    }

    func add(_ image: FeedImage) throws(ErrorRecord) -> Bool {
        guard let transaction else { throw ErrorRecord(.internal, "a feed writer was used after its transaction ended") }
        guard !ids.contains(image.id) else { return false }
        try transaction.append(image, from: self)
        ids.insert(image.id)
        return true
    }

    func add(_ image: CachedImageText) throws(ErrorRecord) -> Bool {
        try add(image.image)
    }
}

/// A store in memory, for tests and for compositions that need no persistence.
/// Not thread-safe: use one instance from one thread at a time.
public final class InMemoryFeedStore: FeedStore {
    public private(set) var snapshot: FeedStoreSnapshot
    private var running = false

    public init(_ snapshot: FeedStoreSnapshot = FeedStoreSnapshot()) {
        self.snapshot = snapshot
    }

    public func transaction<T>(_ body: (any FeedStoreTransaction) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        // A nested transaction's commit would be lost to the outer one's, as with the file stores it is refused.
        guard !running else { throw ErrorRecord(.internal, "memory: a transaction is already running on this store instance") }
        running = true
        defer { running = false }
        let tx = FeedStoreSnapshotTransaction(snapshot)
        let result = try body(tx)
        snapshot = tx.commit()
        return result
    }

    public func read<T>(_ body: (any FeedStoreReader) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        try body(FeedStoreSnapshotTransaction(snapshot))
    }

    public func info() throws(ErrorRecord) -> FeedStoreInfo {
        snapshot.info(kind: "memory", path: nil, exists: true, schemaVersion: nil, fileBytes: nil)
    }
}
