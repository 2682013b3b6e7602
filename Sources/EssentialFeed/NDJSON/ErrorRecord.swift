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
