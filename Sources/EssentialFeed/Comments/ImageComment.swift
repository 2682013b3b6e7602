#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One comment on an image: the image comment record.
public struct ImageComment: Equatable, Hashable, Sendable {
    public let id: UUID
    public let message: String
    public let createdAt: Timestamp
    public let username: String

    public init(id: UUID, message: String, createdAt: Timestamp, username: String) {
        self.id = id
        self.message = message
        self.createdAt = createdAt
        self.username = username
    }

    /// `{"id","message","created_at","username"}`, `created_at` in UTC with `Z`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", id.canonicalString)
        writer.member("message", message)
        writer.member("created_at", createdAt.iso8601)
        writer.member("username", username)
        writer.endObject()
    }
}
