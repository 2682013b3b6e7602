

/// A response to a GET: any status counts, with the whole body.
public struct HTTPResult: Sendable, Equatable {
    public let status: Int
    public let body: [UInt8]
    /// The URL that answered, when redirects were followed to get there;
    /// nil when the URL asked for answered itself.
    public let finalURL: String?
    /// The response's `Retry-After` field as sent (seconds or an HTTP date), if any.
    public let retryAfter: String?

    public init(status: Int, body: [UInt8], finalURL: String? = nil, retryAfter: String? = nil) {
        self.status = status
        self.body = body
        self.finalURL = finalURL
        self.retryAfter = retryAfter
    }
}
