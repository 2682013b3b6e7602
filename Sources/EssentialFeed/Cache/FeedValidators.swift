/// The validators of the cached feed's first page, kept with the feed for
/// conditional requests: the URL the page was loaded from, and the `ETag`
/// and `Last-Modified` its response carried, as sent.
public struct FeedValidators: Equatable, Hashable, Sendable {
    public var url: String
    public var etag: String?
    public var lastModified: String?

    public init(url: String, etag: String?, lastModified: String?) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The validators a page record gives, those that match their grammar
    /// (`HTTPValidators`) only; nil when it carries none.
    public init?(_ page: PageRecord) {
        let etag = page.etag.flatMap(HTTPValidators.entityTag)
        let lastModified = page.lastModified.flatMap(HTTPValidators.httpDate)
        guard etag != nil || lastModified != nil else { return nil }
        self.init(url: page.url, etag: etag, lastModified: lastModified)
    }
}
