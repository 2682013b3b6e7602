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
    public var imageData: [ExactText: [UInt8]]
    /// The validators kept with the cached feed.
    public var validators: FeedValidators?
    /// When each cached image was first cached (`CachedImageText.firstCached`),
    /// by id; an image without an entry: its feed's timestamp.
    public var firstCached: [UUID: Int64] = [:]

    public init(cache: Result<CachedFeed, ErrorRecord>? = nil, imageData: [ExactText: [UInt8]] = [:], validators: FeedValidators? = nil) {
        self.validators = validators
        self.cache = cache
        self.imageData = imageData
    }

    /// Drops the image data of every URL that is not in the cached feed.
    public mutating func dropImageDataNotInFeed() {
        guard !imageData.isEmpty else { return }
        var urls = Set<ExactText>()
        if case .success(let cached)? = cache {
            for image in cached.feed { urls.insert(ExactText(image.url)) }
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
