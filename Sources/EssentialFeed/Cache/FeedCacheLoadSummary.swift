/// What loading the cached feed image by image found (`LocalFeedLoader.load(visiting:)`).
public enum FeedCacheLoadSummary: Equatable, Sendable {
    /// A feed younger than the maximum age: its images were visited.
    case found(CachedFeedHeader)
    /// Nothing is cached.
    case empty
    /// The cached feed is as old as the maximum age or older: nothing was visited.
    case expired(CachedFeedHeader)
}
