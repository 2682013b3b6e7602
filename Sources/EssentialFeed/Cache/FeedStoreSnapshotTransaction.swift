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
        for image in cached.feed {
            try CachedImageText.lending(image) { (text) throws(ErrorRecord) in
                var text = text
                text.firstCached = snapshot.firstCached[image.id]
                try body(text)
            }
        }
    }

    public func retrieveImageData(for url: String) throws(ErrorRecord) -> [UInt8]? {
        snapshot.imageData[ExactText(url)]
    }

    public func cachedImageDataURLs() throws(ErrorRecord) -> Set<ExactText> {
        Set(snapshot.imageData.keys)
    }

    public func retrieveValidators() throws(ErrorRecord) -> FeedValidators? {
        guard try retrieve() != nil else { return nil }
        return snapshot.validators
    }

    public func setValidators(_ validators: FeedValidators?) throws(ErrorRecord) {
        guard try retrieve() != nil else { return }
        snapshot.validators = validators
        hasChanges = true
    }

    public func touchCachedFeed(timestamp: Timestamp) throws(ErrorRecord) -> Bool {
        guard var cached = try retrieve() else { return false }
        cached.timestamp = timestamp
        snapshot.cache = .success(cached)
        hasChanges = true
        return true
    }

    public func insert(_ feed: [FeedImage], timestamp: Timestamp) throws(ErrorRecord) {
        writer = nil
        snapshot.validators = nil
        snapshot.cache = .success(CachedFeed(feed: feed, timestamp: timestamp))
        for image in feed { snapshot.firstCached[image.id] = timestamp.seconds }
        hasChanges = true
        feedChanged = true
    }

    /// The writer of the feed being written, if any.
    private var writer: SnapshotFeedWriter?

    public func beginFeed(timestamp: Timestamp, keepingCachedImages: Bool) throws(ErrorRecord) -> any FeedImageWriter {
        let kept = keepingCachedImages ? try retrieve()?.feed ?? [] : []
        snapshot.cache = .success(CachedFeed(feed: kept, timestamp: timestamp))
        // Validators belong to the feed's first page: kept when images are added after it.
        if !keepingCachedImages || kept.isEmpty { snapshot.validators = nil }
        hasChanges = true
        feedChanged = true
        let writer = SnapshotFeedWriter(self, ids: Set(kept.map(\.id)))
        self.writer = writer
        return writer
    }

    /// Appends `image` to the cached feed, in place.
    func append(_ image: FeedImage, firstCached: Int64?, from writer: SnapshotFeedWriter) throws(ErrorRecord) {
        guard writer === self.writer, case .success(var cached)? = snapshot.cache else {
            throw ErrorRecord(.internal, "a feed writer was used after its feed was replaced")
        }
        snapshot.cache = nil  // so that the feed's storage is not shared, and grows in place
        cached.feed.append(image)
        snapshot.firstCached[image.id] = firstCached ?? cached.timestamp.seconds
        snapshot.cache = .success(cached)
    }

    public func deleteCachedFeed() throws(ErrorRecord) {
        writer = nil
        guard snapshot.cache != nil else { return }
        snapshot.cache = nil
        snapshot.validators = nil
        hasChanges = true
        feedChanged = true
    }

    public func insertImageData(_ data: [UInt8], for url: String) throws(ErrorRecord) {
        snapshot.imageData[ExactText(url)] = data
        hasChanges = true
    }

    /// The snapshot to keep: the writes, plus the image data rule when the
    /// feed was inserted or deleted.
    public func commit() -> FeedStoreSnapshot {
        if feedChanged {
            snapshot.dropImageDataNotInFeed()
            let ids = Set((try? retrieve())??.feed.map(\.id) ?? [])
            snapshot.firstCached = snapshot.firstCached.filter { ids.contains($0.key) }
        }
        return snapshot
    }
}
