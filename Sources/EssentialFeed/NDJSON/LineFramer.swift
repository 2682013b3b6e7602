/// Splits a byte stream into NDJSON lines, counting them.
///
/// Feed it chunks as they arrive; take complete lines with `nextLine()`.
/// Every line counts toward `lineNumber`, blank ones included, so the
/// numbers match what an editor shows. A trailing `\r` is removed. Bytes left
/// when the stream ends form a truncated line: `finish()` returns them.
public struct LineFramer: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    private var scanned = 0
    /// The number of the line most recently returned (1-based).
    public private(set) var lineNumber = 0

    public init() {}

    /// Bytes held that do not yet form a complete line.
    public var pendingCount: Int { buffer.count - start }

    public mutating func append<C: Collection>(_ chunk: C) where C.Element == UInt8 {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
            scanned = 0
        } else if start > 65_536 && start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: chunk)
    }

    /// The next complete line without its `\n` (and `\r`), or nil when no complete line is buffered.
    public mutating func nextLine() -> ArraySlice<UInt8>? {
        let newline: Int? = buffer.withUnsafeBufferPointer { p in
            var i = max(scanned, start)
            while i < p.count {
                if p[i] == 0x0A { return i }
                i += 1
            }
            return nil
        }
        guard let newline else {
            scanned = buffer.count
            return nil
        }
        var end = newline
        if end > start && buffer[end - 1] == 0x0D { end -= 1 }
        let line = buffer[start..<end]
        start = newline + 1
        scanned = start
        lineNumber += 1
        return line
    }

    /// At the end of the stream: the bytes of a last line that had no `\n`, if any.
    public mutating func finish() -> ArraySlice<UInt8>? {
        guard start < buffer.count else { return nil }
        let rest = buffer[start...]
        start = buffer.count
        lineNumber += 1
        return rest
    }
}

extension ArraySlice where Element == UInt8 {
    /// Whether the line holds nothing but JSON whitespace.
    public var isBlank: Bool {
        allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }
}
