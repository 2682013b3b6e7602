#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
