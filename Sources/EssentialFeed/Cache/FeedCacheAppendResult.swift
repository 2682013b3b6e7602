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
