

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
