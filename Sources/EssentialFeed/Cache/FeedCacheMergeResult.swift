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
    /// When nothing was saved because the cached feed had been saved after
    /// the time the page was asked for (by another writer): its time.
    public var savedLater: Timestamp?

    public init(ahead: Int, saved: Int, skipped: Int, after: Int, replaced: Int, droppedExpired: Int, droppedAfter: Int = 0, savedLater: Timestamp? = nil) {
        self.ahead = ahead
        self.saved = saved
        self.skipped = skipped
        self.after = after
        self.replaced = replaced
        self.droppedExpired = droppedExpired
        self.droppedAfter = droppedAfter
        self.savedLater = savedLater
    }
}
