

/// The kinds of failure a record can carry, and the exit status of each.
public enum ErrorKind: String, Sendable, CaseIterable {
    case usage
    case invalidData = "invalid_data"
    case notFound = "not_found"
    case connectivity
    case `internal`
    /// A local resource ran out: the process's open files.
    case resource
    case store
    case busy

    /// The process exit status for this kind (sysexits.h).
    public var exitStatus: Int32 {
        switch self {
        case .usage: 64
        case .invalidData: 65
        case .notFound: 66
        case .connectivity: 69
        case .internal: 70
        case .resource: 71
        case .store: 74
        case .busy: 75
        }
    }
}
