/// The two kinds of API response the mappers read, and the statuses each accepts.
public enum ResponseKind: Sendable {
    case feed, comments

    /// A feed response maps only with status 200; comments with any 2xx.
    public func accepts(_ status: Int) -> Bool {
        self == .feed ? status == 200 : (200...299).contains(status)
    }

    var name: String { self == .feed ? "feed" : "comments" }
    var acceptedStatuses: String { self == .feed ? "200" : "2xx" }
    var itemName: String { self == .feed ? "feed item" : "comment" }
}
