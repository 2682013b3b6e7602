/// What `feed-map` tells the cache about the feed page it mapped, for
/// conditional requests: `{"page":URL,"status":200|304,"etag":…,"last_modified":…}`.
///
/// Written after a page's feed image records when its response carried
/// validators (`ETag`, `Last-Modified`), so that `feed-cache save` keeps
/// them with the feed; written alone for a `304 Not Modified`, which says
/// the cached feed is current. Tools that read feed image records pass
/// over it.
public struct PageRecord: Equatable, Sendable {
    public var url: String
    /// 200 (mapped) or 304 (not modified).
    public var status: Int
    public var etag: String?
    public var lastModified: String?

    public init(url: String, status: Int, etag: String?, lastModified: String?) {
        self.url = url
        self.status = status
        self.etag = etag
        self.lastModified = lastModified
    }

    public var isNotModified: Bool { status == 304 }

    /// Reads one; nil when the record is not a page record.
    public init?(_ document: JSONDocument, _ object: Int = 0) {
        guard let page = document.member(object, "page").flatMap(document.string),
              let status = document.member(object, "status").flatMap(document.int) else { return nil }
        self.init(
            url: page, status: status,
            etag: document.member(object, "etag").flatMap(document.string),
            lastModified: document.member(object, "last_modified").flatMap(document.string))
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("page", url)
        writer.member("status", status)
        writer.member("etag", etag)
        writer.member("last_modified", lastModified)
        writer.endObject()
    }
}
