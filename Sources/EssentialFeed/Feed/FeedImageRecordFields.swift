/// The fields `feed-cache load` may add to a feed image record for a view
/// (`--images`, `--cached-at`); every other tool passes them on untouched.
public enum FeedImageRecordFields {
    /// The image's cached data, base64 (RFC 4648, padded).
    public static let imageData = "image_data_base64"
    /// When the cached feed was saved (ISO 8601, UTC).
    public static let cachedAt = "cached_at"
    /// When the cache first had the image, whole seconds (ISO 8601, UTC): kept
    /// across saves while the image stays in the feed (`--cached-at`).
    public static let firstCachedAt = "first_cached_at"
}
