#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
