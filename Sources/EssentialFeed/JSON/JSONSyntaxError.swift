

/// Why a text is not valid JSON, and where.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Zero-based byte offset of the offending byte in the text.
    public let offset: Int
    public let reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// e.g. `invalid JSON at byte 17: unexpected character 'x'`, with a one-based byte column.
    public var description: String { "invalid JSON at byte \(offset + 1): \(reason)" }
}
