import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the process was called: the arguments after the tool's name. The
/// multi-call executable, called as `essential-feed TOOL ARGS`, sets them
/// to ARGS before it runs the tool (at start-up, before any thread).
public enum Invocation {
    nonisolated(unsafe) public static var arguments = Array(CommandLine.arguments.dropFirst())

    /// Hides what `shown` masks in each argument (a password in a URL) from
    /// the process list (`ps`, /proc/PID/cmdline), once the arguments have
    /// been read: the argument's own bytes are overwritten, as mysql does
    /// for its `-p`, with the masked text and NUL bytes after it, or (when
    /// the masked text is longer) with `*` in place of each byte that
    /// differs. An option's value after `=` is masked alone. A password was
    /// there for every user of the machine to read for as long as the tool
    /// ran (found by the hunt); it still is, from exec until this runs.
    public static func hideFromProcessList(_ shown: (String) -> String) {
        _ = arguments
        _ = CommandLine.arguments
        let argv = CommandLine.unsafeArgv
        for index in stride(from: 1, to: Int(CommandLine.argc), by: 1) {
            guard let pointer = argv[index] else { continue }
            let original = Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer)).map { UInt8(bitPattern: $0) })
            var prefix = 0
            if original.starts(with: "--".utf8), let equals = original.firstIndex(of: UInt8(ascii: "=")) { prefix = equals + 1 }
            let value = String(decoding: original[prefix...], as: UTF8.self)
            let masked = shown(value)
            guard masked != value else { continue }
            var replacement = Array(original[..<prefix]) + Array(masked.utf8)
            if replacement.count > original.count { replacement = starred(original, replacement) }
            replacement += [UInt8](repeating: 0, count: original.count - replacement.count)
            for (offset, byte) in replacement.enumerated() { pointer[offset] = CChar(bitPattern: byte) }
        }
    }

    /// Whether an argument is not UTF-8: read as a `String`, its bytes
    /// would be changed (each bad one to U+FFFD), and a tool would fetch a
    /// URL, or write a file, that nobody named (found by the hunt).
    public static var hasArgumentNotUTF8: Bool {
        let argv = CommandLine.unsafeArgv
        for index in stride(from: 1, to: Int(CommandLine.argc), by: 1) {
            guard let pointer = argv[index] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
            if !isUTF8(bytes) { return true }
        }
        return false
    }

    /// Whether `bytes` are UTF-8: ASCII at once, else as `String` reads
    /// them (which, called at every start for each variable, cost the
    /// start-up 0.2 ms: its temporary buffer asks glibc for the main
    /// thread's stack, which reads /proc/self/maps).
    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 < 0x80 } || String(validating: bytes, as: UTF8.self) != nil
    }

    /// `original` with `*` for each byte between what it shares with
    /// `masked` at its start and at its end.
    private static func starred(_ original: [UInt8], _ masked: [UInt8]) -> [UInt8] {
        var start = 0
        while start < original.count, start < masked.count, original[start] == masked[start] { start += 1 }
        var end = original.count
        var maskedEnd = masked.count
        while end > start, maskedEnd > start, original[end - 1] == masked[maskedEnd - 1] {
            end -= 1
            maskedEnd -= 1
        }
        return Array(original[..<start]) + [UInt8](repeating: UInt8(ascii: "*"), count: end - start) + Array(original[end...])
    }
}

/// The version every tool reports.
public let toolkitVersion = "0.1.0"
