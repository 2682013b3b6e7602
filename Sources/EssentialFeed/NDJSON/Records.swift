/// The kinds of failure a record can carry, and the exit status of each.
public enum ErrorKind: String, Sendable, CaseIterable {
    case usage
    case invalidData = "invalid_data"
    case notFound = "not_found"
    case connectivity
    case `internal`
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
        case .store: 74
        case .busy: 75
        }
    }
}

/// A failure travelling down a pipe: `{"error":KIND,"message":…,…context}`.
public struct ErrorRecord: Equatable, Sendable, Error {
    public var kind: ErrorKind
    public var message: String
    /// Extra string fields, written after `message` in this order (e.g. `url`).
    public var context: [Field]
    /// The input line the failure is about, when a reader met it there (0:
    /// input read as one document). The core only carries it; the command
    /// line names the input it came from (FeedCLI's `stdin:N:`).
    public var line: Int?

    public struct Field: Equatable, Sendable {
        public var key: String
        public var value: String
        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    public init(_ kind: ErrorKind, _ message: String, context: [Field] = [], line: Int? = nil) {
        self.kind = kind
        self.message = message
        self.context = context
        self.line = line
    }

    /// The same failure, about input line `line` unless it names one already.
    public func on(line: Int) -> ErrorRecord {
        var located = self
        if located.line == nil { located.line = line }
        return located
    }

    /// Writes the record; the password of any URL in it is shown as `***`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("error", kind.rawValue)
        writer.member("message", Secrets.redact(message))
        for field in context { writer.member(field.key, Secrets.redact(field.value)) }
        writer.endObject()
    }
}

/// How to tell records apart.
public enum RecordKind {
    /// The kind of an error record, or nil when the record is not one.
    /// An error record with an unknown kind counts as `internal`.
    public static func errorKind(of document: JSONDocument, _ object: Int = 0) -> ErrorKind? {
        guard let node = document.member(object, "error") else { return nil }
        return document.string(node).flatMap(ErrorKind.init(rawValue:)) ?? .internal
    }
}

/// Remembers the first failure met: it alone decides the exit status.
public struct ExitStatus: Sendable {
    public private(set) var firstFailure: ErrorKind?

    public init() {}

    public mutating func record(_ kind: ErrorKind) {
        if firstFailure == nil { firstFailure = kind }
    }

    public var code: Int32 { firstFailure?.exitStatus ?? 0 }
}
