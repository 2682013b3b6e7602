#if canImport(Glibc)
import Glibc
#endif

/// What the toolkit's two multi-call executables (`essential-feed`,
/// `essential-feed-net`) share: the name they were called by, and the
/// answers to their own `--help` and `--version`.
public enum MultiCall {
    /// The last component of the name the executable was called by.
    public static var calledName: String {
        let path = CommandLine.arguments.first ?? ""
        return String(path.split(separator: "/").last ?? Substring(path))
    }

    /// Writes `text` on `fd` (1 or 2), whole.
    public static func say(_ text: String, to fd: Int32) {
        _ = Array(text.utf8).withUnsafeBytes { Descriptor.writeAll(fd, $0) }
    }

    /// Answers `-h`, `--help` and `--version` as the first argument, and
    /// exits; returns for any other argument, or none.
    public static func answerOwnOptions(name: String, usage: String) {
        switch CommandLine.arguments.dropFirst().first {
        case "-h"?, "--help"?:
            say(usage, to: 1)
            exit(0)
        case "--version"?:
            say("\(name) \(toolkitVersion)\n", to: 1)
            exit(0)
        default:
            return
        }
    }
}
