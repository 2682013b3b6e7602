#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What goes to standard error, by `FEED_LOG`: `error` (the default),
/// `info`, `debug` or `trace`. Every line starts with `TOOL: `.
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
        // One diagnostic, one line: line breaks from data (a URL, say) are shown escaped.
        var body = message
        while body.hasSuffix("\n") { body.removeLast() }
        body = body.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\\n")
        body = body.split(separator: "\r", omittingEmptySubsequences: false).joined(separator: "\\r")
        let line = tool + ": " + body + "\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Descriptor.writeAll(2, UnsafeRawBufferPointer($0)) }
    }
}
