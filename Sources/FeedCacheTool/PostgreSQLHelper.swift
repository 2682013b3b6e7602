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
    /// `essential-feed feed-cache ARGUMENTS`, but for `--store`: the store
    /// goes as `FEED_STORE` in its environment, which only its user may
    /// read (in its arguments, a password showed in the process list
    /// again, from the exec until the helper had started: found in review).
    static func run(store: String, options: [OptionSpec]) -> ErrorRecord {
        let helper = directoryOfThisExecutable() + "/" + name
        let argv = (["feed-cache"] + withoutStore(Invocation.arguments, options: options)).map { strdup($0) } + [nil]
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup("FEED_STORE=" + store)]
        var entry = environ
        while let pointer = entry.pointee {
            if strncmp(pointer, "FEED_STORE=", 11) != 0 { environment.append(strdup(pointer)) }
            entry += 1
        }
        environment.append(nil)
        // A signal from here on is left pending for the helper, which takes
        // it at once: taken here, it could be lost in the exec, and the
        // helper went on to commit (found in review).
        if !Signals.handOver() { Signals.waitForTheEnd() }
        #if DEBUG
        TestPause.at("FEED_TEST_PAUSE_BEFORE_EXEC")
        #endif
        execve(helper, argv, environment)
        let reason = String(cString: strerror(errno))
        Signals.handOverFailed()
        argv.forEach { free($0) }
        environment.forEach { free($0) }
        return ErrorRecord(.store, "\(FeedStores.shown(store)): a PostgreSQL store needs \(helper), which cannot be run: \(reason)")
    }

    /// `arguments` without `--store` and its value, read as `Arguments`
    /// reads them (another option's value is kept, `--` ends the options).
    static func withoutStore(_ arguments: [String], options: [OptionSpec]) -> [String] {
        let takingValues = Set(options.filter(\.takesValue).flatMap(\.names))
        var kept: [String] = []
        var i = 0
        var onlyOperands = false
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            if onlyOperands || argument == "-" || !argument.hasPrefix("-") {
                kept.append(argument)
                continue
            }
            if argument == "--" { onlyOperands = true }
            if argument == "--store" {
                i += 1
                continue
            }
            if argument.hasPrefix("--store=") { continue }
            kept.append(argument)
            if takingValues.contains(argument), i < arguments.count {
                kept.append(arguments[i])
                i += 1
            }
        }
        return kept
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
