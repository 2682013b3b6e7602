

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
    /// Where the body is when it outgrew memory (then `body` is empty).
    public let spilled: SpilledBody?
    /// The body's size, wherever it is.
    public var bodyCount: Int { spilled?.count ?? body.count }

    public init(
        status: Int, body: [UInt8], finalURL: String? = nil, retryAfter: String? = nil, etag: String? = nil, lastModified: String? = nil,
        spilled: SpilledBody? = nil
    ) {
        self.spilled = spilled
        self.status = status
        self.body = body
        self.finalURL = finalURL
        self.retryAfter = retryAfter
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The same response, named as answering from `finalURL`.
    func answered(from finalURL: String?) -> HTTPResult {
        HTTPResult(status: status, body: body, finalURL: finalURL, retryAfter: retryAfter, etag: etag, lastModified: lastModified, spilled: spilled)
    }
}
