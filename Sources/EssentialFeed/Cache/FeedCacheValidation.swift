/// What validating the cache did.
public enum FeedCacheValidation: Equatable, Sendable {
    /// Nothing is cached: nothing to do.
    case empty
    /// The cached feed is valid (each of its images read) and was kept.
    case valid(CachedFeedHeader)
    /// The cached feed had expired and was deleted.
    case deletedExpired(CachedFeedHeader)
    /// The cached feed could not be read and was deleted.
    case deletedUnreadable(ErrorRecord)
}
