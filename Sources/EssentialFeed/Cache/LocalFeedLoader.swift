/// The outcome of loading the cached feed.
public enum FeedCacheLoadResult: Equatable, Sendable {
    /// A feed younger than the maximum age.
    case found(CachedFeed)
    /// Nothing is cached.
    case empty
    /// The cached feed is as old as the maximum age or older (kept: load never deletes).
    case expired(CachedFeed)

    /// The feed to deliver: only a valid one.
    public var feed: [FeedImage]? {
        if case .found(let cached) = self { return cached.feed }
        return nil
    }
}

/// What validating the cache did.
public enum FeedCacheValidation: Equatable, Sendable {
    /// Nothing is cached: nothing to do.
    case empty
    /// The cached feed is valid and was kept.
    case valid(CachedFeed)
    /// The cached feed had expired and was deleted.
    case deletedExpired(CachedFeed)
    /// The cached feed could not be read and was deleted.
    case deletedUnreadable(ErrorRecord)
}

/// What appending to the cache did.
public struct FeedCacheAppendResult: Equatable, Sendable {
    /// Valid cached items kept, in their order.
    public var kept: Int
    /// New items added after them.
    public var added: Int
    /// Items of an expired cached feed that were dropped instead of kept.
    public var droppedExpired: Int

    public init(kept: Int, added: Int, droppedExpired: Int) {
        self.kept = kept
        self.added = added
        self.droppedExpired = droppedExpired
    }
}

/// The cache use cases of the case study's `LocalFeedLoader` and
/// `FeedCachePolicy`: synchronous, pure apart from the store, with the clock
/// injected. Each use case is one store transaction, so it happens entirely
/// or not at all, and never interleaves with another process's.
public struct LocalFeedLoader {
    public let store: any FeedStore
    public let policy: FeedCachePolicy
    private let currentDate: () -> Timestamp

    public init(store: any FeedStore, policy: FeedCachePolicy = FeedCachePolicy(), currentDate: @escaping () -> Timestamp) {
        self.store = store
        self.policy = policy
        self.currentDate = currentDate
    }

    /// Replaces the cached feed with `feed`, stamped with the current time:
    /// deletes the old cache, then inserts; a failed deletion stops the insertion.
    public func save(_ feed: [FeedImage]) throws(ErrorRecord) {
        let timestamp = currentDate()
        try store.transaction { (tx) throws(ErrorRecord) in
            try tx.deleteCachedFeed()
            try tx.insert(feed, timestamp: timestamp)
        }
    }

    /// Keeps the valid cached items and adds, after them and in input order,
    /// the new items whose id is neither cached nor earlier in the input; the
    /// timestamp becomes the current time. An expired cached feed is not
    /// kept (as the case study's load-more joins the *loaded* cache with the
    /// new page), so appending never makes stale items look fresh. A cache
    /// that cannot be read is an error: nothing is written.
    @discardableResult
    public func append(_ feed: [FeedImage]) throws(ErrorRecord) -> FeedCacheAppendResult {
        let timestamp = currentDate()
        return try store.transaction { (tx) throws(ErrorRecord) in
            var items: [FeedImage] = []
            var dropped = 0
            if let cached = try tx.retrieve() {
                if policy.validate(cached.timestamp, against: timestamp) {
                    items = cached.feed
                } else {
                    dropped = cached.feed.count
                }
            }
            let kept = items.count
            var ids = Set(items.map(\.id))
            for image in feed where ids.insert(image.id).inserted {
                items.append(image)
            }
            try tx.insert(items, timestamp: timestamp)
            return FeedCacheAppendResult(kept: kept, added: items.count - kept, droppedExpired: dropped)
        }
    }

    /// The cached feed when it is younger than the maximum age. Never
    /// deletes anything, whatever it finds.
    public func load() throws(ErrorRecord) -> FeedCacheLoadResult {
        let now = currentDate()
        guard let cached = try store.retrieve() else { return .empty }
        return policy.validate(cached.timestamp, against: now) ? .found(cached) : .expired(cached)
    }

    /// Deletes the cached feed when it cannot be read or has expired; keeps an
    /// empty or valid one. A `.busy` failure is not "cannot be read": it is
    /// reported and nothing is deleted.
    @discardableResult
    public func validateCache() throws(ErrorRecord) -> FeedCacheValidation {
        let now = currentDate()
        return try store.transaction { (tx) throws(ErrorRecord) in
            let cached: CachedFeed?
            do throws(ErrorRecord) {
                cached = try tx.retrieve()
            } catch where error.kind == .busy {
                throw error
            } catch {
                try tx.deleteCachedFeed()
                return .deletedUnreadable(error)
            }
            guard let cached else { return .empty }
            if policy.validate(cached.timestamp, against: now) { return .valid(cached) }
            try tx.deleteCachedFeed()
            return .deletedExpired(cached)
        }
    }
}

/// The image data use cases of the case study's `LocalFeedImageDataLoader`.
public struct LocalFeedImageDataLoader {
    public let store: any FeedStore

    public init(store: any FeedStore) {
        self.store = store
    }

    /// Stores `data` for `url`, replacing what was stored for it.
    public func save(_ data: [UInt8], for url: String) throws(ErrorRecord) {
        try store.insertImageData(data, for: url)
    }

    /// Stores every entry in one transaction: all or none.
    public func save(_ entries: [(url: String, data: [UInt8])]) throws(ErrorRecord) {
        guard !entries.isEmpty else { return }
        try store.transaction { (tx) throws(ErrorRecord) in
            for entry in entries { try tx.insertImageData(entry.data, for: entry.url) }
        }
    }

    /// The data stored for `url`, or nil when there is none.
    public func loadImageData(for url: String) throws(ErrorRecord) -> [UInt8]? {
        try store.retrieveImageData(for: url)
    }

    /// The URLs of `feed`'s images that have no data stored yet, each once, in feed order.
    public func missingImageURLs(in feed: [FeedImage]) throws(ErrorRecord) -> [String] {
        var seen = try store.cachedImageDataURLs()
        var missing: [String] = []
        for image in feed where seen.insert(image.url).inserted {
            missing.append(image.url)
        }
        return missing
    }
}
