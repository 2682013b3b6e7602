/// Why a response does not map to records, with its one message: the status
/// and envelope rules and an item's rejection, for every mapping path.
public enum MappingRejection: Error, Equatable, Sendable {
    case status(Int)
    case bodyNotObject
    case noItemsArray
    case itemNotObject(position: Int)
    case item(position: Int, ItemRejection)

    /// The message an error record carries for a response of `kind`.
    public func message(_ kind: ResponseKind) -> String {
        switch self {
        case let .status(status): "\(kind.name) response status \(status) is not \(kind.acceptedStatuses)"
        case .bodyNotObject: "body is not a JSON object"
        case .noItemsArray: "body has no items array"
        case let .itemNotObject(position): "item \(position) is not an object"
        case let .item(position, rejection): "\(kind.itemName) \(position): \(rejection.reason)"
        }
    }
}
