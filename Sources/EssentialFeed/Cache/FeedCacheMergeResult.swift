/// What a merging save (`LocalFeedLoader.merge`) did.
public struct FeedCacheMergeResult: Equatable, Sendable {
    /// Cached images kept ahead of the page.
    public var ahead: Int
    /// Images of the page saved.
    public var saved: Int
    /// Images of the page not saved because an image with their id was
    /// already in the feed (ahead of the page, or earlier in it).
    public var skipped: Int
    /// Cached images kept after the page.
    public var after: Int
    /// Cached images the page covered (replaced: kept only where the page
    /// holds them).
    public var replaced: Int
    /// Images of an expired cached feed, dropped instead of kept.
    public var droppedExpired: Int
    /// Cached images after a page shorter than its limit (the end of the
    /// feed), dropped instead of kept.
    public var droppedAfter: Int
    /// When nothing was saved because the cached feed was no longer the one
    /// the save was for (another writer saved since): the one found.
    public var declined: CachedFeedStamp?

    public init(ahead: Int, saved: Int, skipped: Int, after: Int, replaced: Int, droppedExpired: Int, droppedAfter: Int = 0, declined: CachedFeedStamp? = nil) {
        self.ahead = ahead
        self.saved = saved
        self.skipped = skipped
        self.after = after
        self.replaced = replaced
        self.droppedExpired = droppedExpired
        self.droppedAfter = droppedAfter
        self.declined = declined
    }
}

/// Which cached feed a store holds, by the time it was saved: what a save
/// may be made on the condition of (another writer's save changes it).
public enum CachedFeedStamp: Equatable, Sendable {
    case nothingCached
    case savedAt(Timestamp)
}
