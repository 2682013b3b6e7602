import EssentialFeed
import EssentialFeedInfra
import FeedCLI
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The hand-over of a PostgreSQL store to `feed-cache-postgresql`.
///
/// libpq brings two dozen shared libraries (TLS, Kerberos, LDAP), which a
/// static executable cannot load and every run would pay for at start-up.
/// So the static feed-cache links none of them, and runs the executable
/// that does, in its own place (`execv`: same process, arguments,
/// environment and standard streams), as git runs git-remote-https for an
/// https remote. It lies beside the running executable: in the build
/// directory, or in PREFIX/libexec/essential-feed once installed.
enum PostgreSQLHelper {
    static let name = "feed-cache-postgresql"

    /// Runs the helper in place of this process; returns only when it
    /// cannot: the error to report (`store`, 74).
    /// The helper is given the tool's own arguments under the name
    /// feed-cache, also when this is the multi-call executable run as
    /// `essential-feed feed-cache ARGUMENTS`.
    static func run(store: String) -> ErrorRecord {
        let helper = directoryOfThisExecutable() + "/" + name
        let argv = (["feed-cache"] + Invocation.arguments).map { strdup($0) } + [nil]
        execv(helper, argv)
        let reason = String(cString: strerror(errno))
        argv.forEach { free($0) }
        return ErrorRecord(.store, "\(FeedStores.shown(store)): a PostgreSQL store needs \(helper), which cannot be run: \(reason)")
    }

    /// The directory of the file this process runs, its links resolved.
    static func directoryOfThisExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let path = count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
