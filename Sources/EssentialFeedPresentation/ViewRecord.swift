#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import EssentialFeed

/// A record as the views see it: an error, an image comment or a feed image,
/// told apart in that order (see feed-view(1)). One reading for the text,
/// HTML and Atom views.
public enum ViewRecord {
    case error
    case comment(Comment)
    case image(Image)

    public struct Comment {
        /// The record's id when it is a UUID.
        public var id: UUID?
        public var username: String
        public var message: String
        /// As added by `reldate`.
        public var relativeDate: String?
        public var createdAt: Timestamp?
    }

    public struct Image {
        /// The record's id when it is a UUID.
        public var id: UUID?
        /// The record's id as written: a string's text, a number's digits,
        /// `true`, `false` or `null`; nil for an array or an object.
        public var idText: String?
        /// Whether the id is a string (`"1"` and `1` are two ids).
        public var idIsString = true
        public var description: String?
        public var location: String?
        public var url: String
        /// The cached data's base64 text, as `feed-cache load --images` adds it.
        public var dataBase64: String?
        /// When the feed was cached, as `feed-cache load --cached-at` adds it.
        public var cachedAt: Timestamp?
        /// When the cache first had the image, as `feed-cache load --cached-at` adds it.
        public var firstCachedAt: Timestamp? = nil
    }

    /// Reads `document`; nil for a record that is none of the three.
    public init?(_ document: JSONDocument) {
        let root = document.root
        func string(_ key: String) -> String? { document.member(root, key).flatMap { document.string($0) } }
        if document.member(root, "error") != nil {
            self = .error
            return
        }
        let id = string("id").flatMap(Identifiers.uuid)
        if let message = string("message"), let username = string("username") {
            self = .comment(Comment(id: id, username: username, message: message, relativeDate: string("relative_date"),
                                    createdAt: string("created_at").flatMap(Timestamp.init(iso8601:))))
            return
        }
        if let url = string("url"), document.member(root, "id") != nil {
            let idNode = document.member(root, "id")
            self = .image(Image(id: id, idText: Self.scalarText(document, idNode), idIsString: idNode.map { document.kind($0) == .string } ?? true, description: string("description"), location: string("location"), url: url,
                                dataBase64: string(FeedImageRecordFields.imageData),
                                cachedAt: string(FeedImageRecordFields.cachedAt).flatMap(Timestamp.init(iso8601:)),
                                firstCachedAt: string(FeedImageRecordFields.firstCachedAt).flatMap(Timestamp.init(iso8601:))))
            return
        }
        return nil
    }

    /// A scalar's text (a string's decoded), nil for a container or none:
    /// images whose ids were numbers got one Atom id when their URL and
    /// text were the same (found by the hunt).
    private static func scalarText(_ document: JSONDocument, _ node: Int?) -> String? {
        guard let node else { return nil }
        switch document.kind(node) {
        case .string: return document.string(node)
        case .number: return document.numberText(node)
        case .true: return "true"
        case .false: return "false"
        case .null: return "null"
        case .array, .object: return nil
        }
    }
}
