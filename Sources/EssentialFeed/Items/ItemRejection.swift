/// Why an item breaks its kind's rules: each reason written once, for the
/// document mappers, the streaming mapper and the fast path alike.
public enum ItemRejection: CaseIterable, Equatable, Sendable {
    case noID, idNotUUID
    case noImage, imageNotURL, descriptionNotString, locationNotString
    case messageNotString, createdAtNotString, createdAtNotDate, authorNotObject, usernameNotString

    /// The reason, as error records give it after the item's position.
    public var reason: String {
        switch self {
        case .noID: "no id"
        case .idNotUUID: "id is not a UUID"
        case .noImage: "no image"
        case .imageNotURL: "image is not an absolute URL"
        case .descriptionNotString: "description is not a string"
        case .locationNotString: "location is not a string"
        case .messageNotString: "message is missing or not a string"
        case .createdAtNotString: "created_at is missing or not a string"
        case .createdAtNotDate: "created_at is not an ISO 8601 date"
        case .authorNotObject: "author is missing or not an object"
        case .usernameNotString: "author.username is missing or not a string"
        }
    }
}
