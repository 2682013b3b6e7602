#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

/// `GET BASE/v1/feed?limit=N[&after_id=UUID]`: a page of the feed, keyset-paginated.
public struct FeedEndpoint: Equatable, Sendable {
    public static let defaultLimit = 10

    public var limit: Int
    public var afterID: UUID?

    public init(limit: Int = FeedEndpoint.defaultLimit, after afterID: UUID? = nil) {
        self.limit = limit
        self.afterID = afterID
    }

    public func url(_ base: BaseURL) -> String {
        var url = base.string + "/v1/feed?limit=\(limit)"
        if let afterID { url += "&after_id=" + afterID.canonicalString }
        return url
    }
}

/// `GET BASE/v1/image/UUID/comments`: the comments of one image.
public struct ImageCommentsEndpoint: Equatable, Sendable {
    public var imageID: UUID

    public init(imageID: UUID) {
        self.imageID = imageID
    }

    public func url(_ base: BaseURL) -> String {
        base.string + "/v1/image/" + imageID.canonicalString + "/comments"
    }
}
