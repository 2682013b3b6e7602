/// The base URL of the feed API: an absolute http(s) URL without query or
/// fragment. Endpoint paths are appended to its path, keeping host, port and path.
public struct BaseURL: Equatable, Sendable, CustomStringConvertible {
    /// The URL without a trailing slash.
    public let string: String

    public init?(_ text: String) {
        guard Identifiers.isHTTPURL(text), !text.contains("?"), !text.contains("#") else { return nil }
        var s = text
        while s.hasSuffix("/") { s.removeLast() }
        string = s
    }

    public var description: String { string }
}
