import EssentialFeed

/// A GET: its URL and, for a conditional request (RFC 9110, 13.1), the
/// validators of the copy the caller holds, sent as `If-None-Match` and
/// `If-Modified-Since` (on redirects too); a server that finds them
/// current answers 304 Not Modified, without a body.
public struct HTTPRequest: Sendable, Hashable {
    public var url: String
    /// An entity tag as the server sent it in `ETag` (quotes included).
    public var ifNoneMatch: String?
    /// An HTTP date as the server sent it in `Last-Modified`.
    public var ifModifiedSince: String?

    public init(_ url: String, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil) {
        self.url = url
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
    }

    /// Two requests are one when their texts are the same bytes
    /// (`ExactText`): two URLs equal as Unicode compares them (café in NFC
    /// and NFD) were one request, and the second got the first's response.
    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        ExactText(a.url) == ExactText(b.url) && a.ifNoneMatch.map(ExactText.init) == b.ifNoneMatch.map(ExactText.init)
            && a.ifModifiedSince.map(ExactText.init) == b.ifModifiedSince.map(ExactText.init)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ExactText(url))
        hasher.combine(ifNoneMatch.map(ExactText.init))
        hasher.combine(ifModifiedSince.map(ExactText.init))
    }

    /// The conditional header lines (without their CR LF): only validators
    /// that match their grammar (`HTTPValidators`); any other is not sent,
    /// and the request goes out unconditional on it.
    var conditionFields: [String] {
        var fields: [String] = []
        if let tag = ifNoneMatch.flatMap(HTTPValidators.entityTag) { fields.append("If-None-Match: \(tag)") }
        if let date = ifModifiedSince.flatMap(HTTPValidators.httpDate) { fields.append("If-Modified-Since: \(date)") }
        return fields
    }
}
