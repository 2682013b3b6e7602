#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One image of the feed: the feed image record.
public struct FeedImage: Equatable, Hashable, Sendable {
    public let id: UUID
    public let description: String?
    public let location: String?
    public let url: String

    public init(id: UUID, description: String?, location: String?, url: String) {
        self.id = id
        self.description = description
        self.location = location
        self.url = url
    }

    /// `{"id","description"?,"location"?,"url"}`: absent fields are omitted.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", id.canonicalString)
        writer.member("description", description)
        writer.member("location", location)
        writer.member("url", url)
        writer.endObject()
    }
}
