import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What goes to standard error, by `FEED_LOG`: `error` (the default),
/// `info`, `debug` or `trace`. Every line starts with `TOOL: `; the
/// password of any URL in it is shown as `***` (see `Secrets`).
public struct Diagnostics: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case error, info, debug, trace
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    public let tool: String
    public let level: Level

    public init(tool: String, environment value: String?) {
        self.tool = tool
        switch value?.lowercased() {
        case "info": level = .info
        case "debug": level = .debug
        case "trace": level = .trace
        default: level = .error
        }
    }

    public func enabled(_ wanted: Level) -> Bool { wanted <= level }

    /// Writes `TOOL: message` on standard error, in one write.
    public func error(_ message: @autoclosure () -> String) { emit(message()) }
    public func info(_ message: @autoclosure () -> String) { if enabled(.info) { emit(message()) } }
    public func debug(_ message: @autoclosure () -> String) { if enabled(.debug) { emit(message()) } }
    public func trace(_ message: @autoclosure () -> String) { if enabled(.trace) { emit(message()) } }

    private func emit(_ message: String) {
        var body = Substring(Secrets.redact(message))
        while body.hasSuffix("\n") { body.removeLast() }
        var bytes = Array(tool.utf8)
        bytes.append(contentsOf: ": ".utf8)
        if body.utf8.count > Self.longest {
            // A huge value in it (a URL of megabytes from one input line):
            // its start and its end, the reason being at the end.
            let text = Array(body.utf8)
            // Cut on characters' boundaries (never in a UTF-8 sequence).
            var head = Self.longest / 2, tail = text.count - Self.longest / 4
            while text[head] & 0xC0 == 0x80 { head -= 1 }
            while text[tail] & 0xC0 == 0x80 { tail += 1 }
            Diagnostics.appendEscaped(Substring(decoding: text[..<head], as: UTF8.self), to: &bytes)
            bytes.append(contentsOf: "…[\(tail - head) bytes not shown]…".utf8)
            Diagnostics.appendEscaped(Substring(decoding: text[tail...], as: UTF8.self), to: &bytes)
        } else {
            Diagnostics.appendEscaped(body, to: &bytes)
        }
        bytes.append(0x0A)
        _ = bytes.withUnsafeMutableBytes { Descriptor.writeAll(2, UnsafeRawBufferPointer($0)) }
    }

    /// The most bytes of a message shown whole.
    static let longest = 8192

    /// Appends `text` with every control character shown escaped, so that
    /// one diagnostic stays one line and data in it (a URL, a message from
    /// a record) cannot drive the terminal: `\n`, `\r`, `\t`, and `\u001B`
    /// style escapes for the rest of C0, DEL, C1, U+2028/U+2029, and the
    /// bidirectional controls (U+061C, U+200E/U+200F, U+202A-U+202E,
    /// U+2066-U+2069), which could show the rest of the line reversed (the
    /// text view shows the embeddings, overrides and isolates as U+FFFD,
    /// and keeps the marks, which right-to-left text needs).
    static func appendEscaped(_ text: Substring, to bytes: inout [UInt8]) {
        let hex = Array("0123456789ABCDEF".utf8)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            switch value {
            case 0x0A: bytes.append(contentsOf: "\\n".utf8)
            case 0x0D: bytes.append(contentsOf: "\\r".utf8)
            case 0x09: bytes.append(contentsOf: "\\t".utf8)
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                bytes.append(contentsOf: "\\u".utf8)
                for shift in stride(from: 12, through: 0, by: -4) { bytes.append(hex[Int(value >> UInt32(shift)) & 0xF]) }
            default:
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
    }
}
