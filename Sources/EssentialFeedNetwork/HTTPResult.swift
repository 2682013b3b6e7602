

/// A response to a GET: any status counts, with the whole body.
public struct HTTPResult: Sendable, Equatable {
    public let status: Int
    public let body: [UInt8]
    /// The URL that answered, when redirects were followed to get there;
    /// nil when the URL asked for answered itself.
    public let finalURL: String?
    /// The response's `Retry-After` field as sent (seconds or an HTTP date), if any.
    public let retryAfter: String?
    /// The response's validators as sent: `ETag` and `Last-Modified`.
    public let etag: String?
    public let lastModified: String?

    public init(status: Int, body: [UInt8], finalURL: String? = nil, retryAfter: String? = nil, etag: String? = nil, lastModified: String? = nil) {
        self.status = status
        self.body = body
        self.finalURL = finalURL
        self.retryAfter = retryAfter
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The same response, named as answering from `finalURL`.
    func answered(from finalURL: String?) -> HTTPResult {
        HTTPResult(status: status, body: body, finalURL: finalURL, retryAfter: retryAfter, etag: etag, lastModified: lastModified)
    }
}
