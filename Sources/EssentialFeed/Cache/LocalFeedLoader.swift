#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The cache use cases of the case study's `LocalFeedLoader` and
/// `FeedCachePolicy`: synchronous, pure apart from the store, with the clock
/// injected. Each use case is one store transaction, so it happens entirely
/// or not at all, and never interleaves with another process's.
public struct LocalFeedLoader {
    public let store: any FeedStore
    public let policy: FeedCachePolicy
    /// Read in each transaction, once the store is open and its lock held:
    /// the feed's age is judged, and a feed stamped, then (not when the
    /// loader was made, which may be long before: a slow input, a lock).
    private let currentDate: () -> Timestamp

    public init(store: any FeedStore, policy: FeedCachePolicy = FeedCachePolicy(), currentDate: @escaping () -> Timestamp) {
        self.store = store
        self.policy = policy
        self.currentDate = currentDate
    }

    /// Replaces the cached feed with `feed`, stamped with the current time:
    /// deletes the old cache, then inserts; a failed deletion stops the insertion.
    public func save(_ feed: [FeedImage]) throws(ErrorRecord) {
        return try store.transaction { (tx) throws(ErrorRecord) in
            let timestamp = currentDate()
            try tx.deleteCachedFeed()
            try tx.insert(feed, timestamp: timestamp)
        }
    }

    /// Reads one image and hands it to the feed being saved (see `save(reading:)`).
    public typealias FeedImageReading = (_ add: (CachedImageText) throws(ErrorRecord) -> Bool) throws(ErrorRecord) -> Bool

    /// Replaces the cached feed, in one transaction, with the images read as
    /// they come, stamped with the current time: a feed of any size is saved
    /// with bounded memory. `read` is called until it returns false (the end
    /// of the input); each call reads one image and passes it to `add`, which
    /// adds it and returns true, or returns false when an image with its id
    /// was added before (the first stays). When `read` throws (the input
    /// turned out to be invalid), the transaction is rolled back and the error
    /// rethrown: nothing changes.
    @discardableResult
    /// `validators`, asked once the images are read, are kept with the new
    /// feed (those of its first page, for conditional requests). An image
    /// whose id the replaced feed had keeps the time it was first cached
    /// (`CachedImageText.firstCached`); the others are first cached now.
    public func save(reading read: FeedImageReading, validators: () -> FeedValidators? = { nil }) throws(ErrorRecord) -> FeedCacheSaveResult {
        return try store.transaction { (tx) throws(ErrorRecord) in
            let timestamp = currentDate()
            var firstCached = Self.firstCachedTimes(in: tx)
            try tx.deleteCachedFeed()
            let writer = try tx.beginFeed(timestamp: timestamp, keepingCachedImages: false)
            let result = try add(read, to: writer, firstCached: &firstCached)
            if let validators = validators() { try tx.setValidators(validators) }
            return result
        }
    }

    /// Saves one page of the feed into the cached feed, in one transaction,
    /// stamped with the current time, keeping what the page does not cover:
    ///
    /// - The page starts after the cached image `after` (nil: at the head of
    ///   the feed). The cached images up to it stay ahead of the page; when
    ///   `after` is not cached (or the cache is empty or expired), the page
    ///   goes after every cached image.
    /// - The page covers the cached images from its start up to the page's
    ///   last image, where the cache has that image after the start; those
    ///   the page no longer holds are dropped (the server no longer serves
    ///   them there), with their image data. When the page's last image is
    ///   not cached there, the page covers none: the cached images after its
    ///   start follow it. An empty page (`read` gives none) covers every
    ///   cached image after its start: the feed ends there.
    /// - The cached images after what the page covers follow it, with their
    ///   image data. An id met twice stays where it is met first.
    ///
    /// An expired cached feed is not kept, as `append`. At the head, the
    /// feed keeps `validators` (those of its first page); after an image,
    /// it keeps the validators it had. The cached feed is copied, as text,
    /// into the transaction's spool (`makeCachedImageSpool`) while the page
    /// is written.
    ///
    /// - Parameters:
    ///   - pageLimit: the limit the page was asked for with: a page of
    ///     fewer images, but some, is the end of the feed, and the cached
    ///     images after it are dropped (in the same transaction).
    ///   - ifSavedAt: the cached feed the page is for, as it was before the
    ///     page was asked for: when the store holds another (a writer, on
    ///     another host, saved since: its feed is newer than the page),
    ///     nothing is saved (`declined`) and `read` is not called. Compared
    ///     by the store's own stamps, not by clocks.
    @discardableResult
    public func merge(reading read: FeedImageReading, after: UUID?, pageLimit: Int? = nil, ifSavedAt expected: CachedFeedStamp? = nil,
                      validators: () -> FeedValidators? = { nil }) throws(ErrorRecord) -> FeedCacheMergeResult {
        return try store.transaction { (tx) throws(ErrorRecord) in
            let timestamp = currentDate()
            if let expected {
                let found = ((try? tx.retrieveHeader()) ?? nil).map { CachedFeedStamp.savedAt($0.timestamp) } ?? .nothingCached
                if found != expected {
                    return FeedCacheMergeResult(ahead: 0, saved: 0, skipped: 0, after: 0, replaced: 0, droppedExpired: 0, declined: found)
                }
            }
            var cached = tx.makeCachedImageSpool()
            var firstCached = FirstCachedTimes()
            var dropped = 0
            var keptValidators: FeedValidators?
            do throws(ErrorRecord) {
                if let header = try tx.retrieveHeader() {
                    if policy.validate(header.timestamp, against: timestamp) {
                        firstCached = FirstCachedTimes(capacity: header.count)
                        try tx.forEachCachedImage { (image) throws(ErrorRecord) in
                            var image = image
                            if image.firstCached == nil { image.firstCached = header.timestamp.seconds }
                            try cached.append(image)
                            firstCached.add(id: image.id, time: image.firstCached!)
                        }
                        if after != nil { keptValidators = try tx.retrieveValidators() }
                    } else {
                        // Not kept, but an image of it that comes back keeps its time.
                        dropped = header.count
                        firstCached = Self.firstCachedTimes(in: tx)
                    }
                }
            } catch where error.kind == .store {
                // A cached feed that cannot be read (a store of ours cut
                // short or damaged) is replaced by the page, as `save`
                // replaces it: deleting it below resets the store, and a
                // file that is no store of ours is refused there. (It failed
                // every merge, so feed-sync never got to its validate.)
                cached = tx.makeCachedImageSpool()
                firstCached = FirstCachedTimes()
                dropped = 0
                keptValidators = nil
            }
            let start: Int
            if let after {
                start = try cached.index(of: after.withCanonicalText { Array($0) }, from: 0).map { $0 + 1 } ?? cached.count
            } else {
                start = 0
            }
            try tx.deleteCachedFeed()
            let writer = try tx.beginFeed(timestamp: timestamp, keepingCachedImages: false)
            var result = FeedCacheMergeResult(ahead: 0, saved: 0, skipped: 0, after: 0, replaced: 0, droppedExpired: dropped)
            try cached.forEach(in: 0..<start) { (image) throws(ErrorRecord) in
                if try writer.add(image) { result.ahead += 1 }
            }
            var last: [UInt8]?
            let add = { (image: CachedImageText) throws(ErrorRecord) -> Bool in
                last = Array(image.id)
                var image = image
                image.firstCached = firstCached.time(of: image.id)
                let added = try writer.add(image)
                if added { result.saved += 1 } else { result.skipped += 1 }
                return added
            }
            while try read(add) {}
            var end = cached.count
            if let last { end = try cached.index(of: last, from: start).map { $0 + 1 } ?? start }
            result.replaced = end - start
            let count = result.saved + result.skipped
            if let pageLimit, count > 0, count < pageLimit {
                result.droppedAfter = cached.count - end
            } else {
                try cached.forEach(in: end..<cached.count) { (image) throws(ErrorRecord) in
                    if try writer.add(image) { result.after += 1 }
                }
            }
            if after == nil {
                if let validators = validators() { try tx.setValidators(validators) }
            } else if let keptValidators {
                try tx.setValidators(keptValidators)
            }
            return result
        }
    }

    /// The server confirmed the cached feed current (a 304 Not Modified to
    /// a conditional request): the feed stays as it is and is stamped with
    /// the current time, so that the maximum age counts from this
    /// confirmation, and keeps `validators` when the 304 gave new ones:
    /// those it gave replace those kept for the same URL, and a kept one
    /// it did not give stays (RFC 9111, 4.3.4: a 304 with an ETag alone
    /// dropped the Last-Modified, and later requests sent one validator).
    /// Nil when nothing is cached (there is nothing to confirm).
    public func confirm(validators: FeedValidators?) throws(ErrorRecord) -> CachedFeedHeader? {
        return try store.transaction { (tx) throws(ErrorRecord) -> CachedFeedHeader? in
            try Self.stamp(tx, currentDate(), validators)
        }
    }

    private static func stamp(_ tx: FeedStoreTransaction, _ timestamp: Timestamp, _ validators: FeedValidators?) throws(ErrorRecord) -> CachedFeedHeader? {
        guard try tx.touchCachedFeed(timestamp: timestamp) else { return nil }
        if var validators {
            if validators.etag == nil || validators.lastModified == nil, let kept = try tx.retrieveValidators(),
               Secrets.redactURL(kept.url) == Secrets.redactURL(validators.url) {
                validators.etag = validators.etag ?? kept.etag
                validators.lastModified = validators.lastModified ?? kept.lastModified
            }
            try tx.setValidators(validators)
        }
        return try tx.retrieveHeader()
    }

    /// Whether two HTTP dates name one instant (as written, when either is
    /// in no form `HTTPDate` reads).
    private static func sameDate(_ a: String, _ b: String) -> Bool {
        guard let first = HTTPDate.parse(a), let second = HTTPDate.parse(b) else { return a == b }
        return first == second
    }

    /// What a 304 Not Modified for the page `url` did to the cache.
    public enum NotModifiedOutcome: Equatable {
        /// The cached feed was confirmed (`confirm`): its header.
        case confirmed(CachedFeedHeader)
        /// Nothing is cached.
        case nothingCached
        /// The cache keeps no validators for `url`, so the request carried
        /// none: a 304 answers a conditional request only, and confirms
        /// nothing here (it made an expired feed, or one saved from another
        /// URL, current again).
        case unasked
        /// The 304 names another representation than the one kept (another
        /// entity tag, one where none was kept, or another Last-Modified
        /// without one): it updates no stored response (RFC 9111, 4.3.4).
        case otherValidator
    }

    /// A 304 Not Modified came for the page `url`, with `validators`: the
    /// cached feed is confirmed when it answers the conditional request
    /// the cache would have made for that page (`confirm`, unchecked, is
    /// for a caller that knows it does).
    public func notModified(url: String, validators: FeedValidators?) throws(ErrorRecord) -> NotModifiedOutcome {
        return try store.transaction { (tx) throws(ErrorRecord) -> NotModifiedOutcome in
            let timestamp = currentDate()
            guard let kept = try tx.retrieveValidators(), Secrets.redactURL(kept.url) == Secrets.redactURL(url) else {
                return try tx.retrieveHeader() == nil ? .nothingCached : .unasked
            }
            if let given = validators?.etag {
                guard let tag = kept.etag, HTTPValidators.weaklyMatch(given, tag) else { return .otherValidator }
            } else if let given = validators?.lastModified, let date = kept.lastModified, !Self.sameDate(given, date) {
                return .otherValidator
            }
            return try Self.stamp(tx, timestamp, validators).map { .confirmed($0) } ?? .nothingCached
        }
    }

    /// The validators kept with the cached feed, whatever its age (a 304
    /// makes an expired feed current again).
    public func validators() throws(ErrorRecord) -> FeedValidators? {
        return try store.read { (reader) throws(ErrorRecord) in try reader.retrieveValidators() }
    }

    /// `append(_:)` for images read as they come, as `save(reading:)`.
    @discardableResult
    public func append(reading read: FeedImageReading) throws(ErrorRecord) -> FeedCacheAppendResult {
        return try store.transaction { (tx) throws(ErrorRecord) in
            let timestamp = currentDate()
            var kept = 0
            var dropped = 0
            if let cached = try tx.retrieveHeader() {
                if policy.validate(cached.timestamp, against: timestamp) {
                    kept = cached.count
                } else {
                    dropped = cached.count
                }
            }
            let writer = try tx.beginFeed(timestamp: timestamp, keepingCachedImages: kept > 0)
            let result = try add(read, to: writer)
            return FeedCacheAppendResult(kept: kept, added: result.saved, droppedExpired: dropped)
        }
    }

    private func add(_ read: FeedImageReading, to writer: any FeedImageWriter) throws(ErrorRecord) -> FeedCacheSaveResult {
        var none = FirstCachedTimes()
        return try add(read, to: writer, firstCached: &none)
    }

    /// Adds the images read to `writer`, each with the time `firstCached`
    /// keeps for its id (none: first cached now).
    private func add(_ read: FeedImageReading, to writer: any FeedImageWriter, firstCached: inout FirstCachedTimes) throws(ErrorRecord) -> FeedCacheSaveResult {
        var result = FeedCacheSaveResult(saved: 0, skipped: 0)
        let add = { (image: CachedImageText) throws(ErrorRecord) -> Bool in
            var image = image
            image.firstCached = firstCached.count == 0 ? nil : firstCached.time(of: image.id)
            let added = try writer.add(image)
            if added { result.saved += 1 } else { result.skipped += 1 }
            return added
        }
        while try read(add) {}
        return result
    }

    /// When each image of the cached feed was first cached (of any age: an
    /// image of an expired feed that comes back keeps its time). A feed that
    /// cannot be read gives none: it is being replaced.
    private static func firstCachedTimes(in tx: any FeedStoreTransaction) -> FirstCachedTimes {
        var times = FirstCachedTimes()
        do throws(ErrorRecord) {
            guard let header = try tx.retrieveHeader(), header.count > 0 else { return times }
            times = FirstCachedTimes(capacity: header.count)
            try tx.forEachCachedImage { (image) throws(ErrorRecord) in
                times.add(id: image.id, time: image.firstCached ?? header.timestamp.seconds)
            }
        } catch {
            return FirstCachedTimes()
        }
        return times
    }

    /// Keeps the valid cached items and adds, after them and in input order,
    /// the new items whose id is neither cached nor earlier in the input; the
    /// timestamp becomes the current time. An expired cached feed is not
    /// kept (as the case study's load-more joins the *loaded* cache with the
    /// new page), so appending never makes stale items look fresh. A cache
    /// that cannot be read is an error: nothing is written.
    @discardableResult
    public func append(_ feed: [FeedImage]) throws(ErrorRecord) -> FeedCacheAppendResult {
        return try store.transaction { (tx) throws(ErrorRecord) in
            let timestamp = currentDate()
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
        guard let cached = try store.retrieve() else { return .empty }
        return policy.validate(cached.timestamp, against: currentDate()) ? .found(cached) : .expired(cached)
    }

    /// When the cached feed is younger than the maximum age, calls `body` with
    /// each of its images in order, lent as text: nothing is collected, so a
    /// feed of any size loads with bounded memory. Never deletes anything.
    /// One read transaction: `body` sees one consistent feed. A damaged image
    /// fails with a `.store` error after `body` has seen the images before it.
    public func load(visiting body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) -> FeedCacheLoadSummary {
        return try store.read { (reader) throws(ErrorRecord) in
            let now = currentDate()
            guard let cached = try reader.retrieveHeader() else { return .empty }
            guard policy.validate(cached.timestamp, against: now) else { return .expired(cached) }
            try reader.forEachCachedImage { (image) throws(ErrorRecord) in
                // An image cached by an earlier release: its feed's timestamp.
                var image = image
                if image.firstCached == nil { image.firstCached = cached.timestamp.seconds }
                try body(image)
            }
            return .found(cached)
        }
    }

    /// As `load(visiting:)`, then, in the same read transaction, calls
    /// `afterwards` with the feed's header and a way to read the image data
    /// stored for a URL (nil when there is none): a view of the feed and its
    /// images sees one state of the store. A store may not be read while it
    /// lends an image (a PostgreSQL store streams them), hence the two steps.
    public func load(
        visiting body: (CachedImageText) throws(ErrorRecord) -> Void,
        afterwards: (CachedFeedHeader, (String) throws(ErrorRecord) -> [UInt8]?) throws(ErrorRecord) -> Void
    ) throws(ErrorRecord) -> FeedCacheLoadSummary {
        return try store.read { (reader) throws(ErrorRecord) in
            let now = currentDate()
            guard let cached = try reader.retrieveHeader() else { return .empty }
            guard policy.validate(cached.timestamp, against: now) else { return .expired(cached) }
            try reader.forEachCachedImage { (image) throws(ErrorRecord) in
                // An image cached by an earlier release: its feed's timestamp.
                var image = image
                if image.firstCached == nil { image.firstCached = cached.timestamp.seconds }
                try body(image)
            }
            try afterwards(cached) { (url) throws(ErrorRecord) in try reader.retrieveImageData(for: LocalFeedImageDataLoader.key(url)) }
            return .found(cached)
        }
    }

    /// Deletes the cached feed when it cannot be read or has expired; keeps an
    /// empty or valid one. A `.busy` failure is not "cannot be read": it is
    /// reported and nothing is deleted. A valid feed's images are read one by
    /// one (a damaged one makes it unreadable), never collected: memory stays
    /// bounded whatever the feed's size.
    ///
    /// It reads first: an empty or valid cache needs no write, so it is
    /// validated without the writers' lock (a store this user may only
    /// read; a save under way elsewhere). A cache to delete, or one that
    /// could not be read, is looked at again in the write transaction.
    @discardableResult
    public func validateCache() throws(ErrorRecord) -> FeedCacheValidation {
        do throws(ErrorRecord) {
            let kept: FeedCacheValidation? = try store.read { (reader) throws(ErrorRecord) in
                guard let cached = try reader.retrieveHeader() else { return .empty }
                guard policy.validate(cached.timestamp, against: currentDate()) else { return nil }
                try reader.forEachCachedImage { _ in }
                return .valid(cached)
            }
            if let kept { return kept }
        } catch where error.kind == .busy || error.kind == .internal {
            throw error
        } catch {
            // Not readable as a cache: the transaction finds out again, and deletes it.
        }
        return try store.transaction { (tx) throws(ErrorRecord) in
            do throws(ErrorRecord) {
                guard let cached = try tx.retrieveHeader() else { return .empty }
                guard policy.validate(cached.timestamp, against: currentDate()) else {
                    try tx.deleteCachedFeed()
                    return .deletedExpired(cached)
                }
                try tx.forEachCachedImage { _ in }
                return .valid(cached)
            } catch where error.kind == .busy || error.kind == .internal {
                throw error
            } catch {
                try tx.deleteCachedFeed()
                return .deletedUnreadable(error)
            }
        }
    }
}
