// feed-serve: a local server of the feed API. The composition root only:
// parse the command line, load the fixtures, start the server, print its
// base URL, and stop cleanly on SIGINT or SIGTERM. See `feed-serve --help`.
import Dispatch
import FeedCLI
import FeedServer
import Foundation
#if canImport(Glibc)
import Glibc
#endif

nonisolated func writeText(_ text: String, to fd: Int32) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let count = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return }
        offset += count
    }
}

private func fail(_ status: Int32, _ message: String) -> Never {
    writeText("feed-serve: \(message)\n", to: STDERR_FILENO)
    exit(status)
}
/// `feed-serve`: the tool's composition root, run by its own executable and by
/// the toolkit's multi-call executable.
public enum FeedServeTool {
    public static func main() -> Never {


        signal(SIGPIPE, SIG_IGN)

        let options: FeedServeCommand.Options
        do {
            switch try FeedServeCommand.parse(Invocation.arguments) {
            case .help:
                writeText(FeedServeCommand.usage, to: STDOUT_FILENO)
                exit(0)
            case .version:
                writeText("feed-serve \(FeedServeCommand.programVersion)\n", to: STDOUT_FILENO)
                exit(0)
            case .serve(let parsed):
                options = parsed
            }
        } catch {
            fail(FeedServeCommand.ExitStatus.usage, "\(error)\nTry 'feed-serve --help' for more information.")
        }

        let fixtures: FeedServerFixtures
        switch options.fixtures {
        case .builtin(let name):
            guard let builtin = FeedServerFixtures.builtin(named: name) else {
                fail(FeedServeCommand.ExitStatus.usage, "unknown built-in fixtures '\(name)'")
            }
            fixtures = builtin
        case .directory(let path):
            do {
                fixtures = try FeedServerFixtures.load(directory: path)
            } catch {
                let status = switch error.kind {
                case .notFound: FeedServeCommand.ExitStatus.fixturesNotFound
                case .unreadable: FeedServeCommand.ExitStatus.unreadableFixtures
                case .invalid: FeedServeCommand.ExitStatus.invalidFixtures
                }
                fail(status, "\(error)")
            }
        }

        let verbose = ["debug", "trace"].contains(ProcessInfo.processInfo.environment["FEED_LOG"]?.lowercased() ?? "")
        let logLine: (@Sendable (String) -> Void)?
        if verbose {
            logLine = { line in writeText("feed-serve: \(line)\n", to: STDERR_FILENO) }
        } else {
            logLine = nil
        }
        let server = FeedServer(fixtures: fixtures, faults: options.faults, log: logLine)

        // SIGINT and SIGTERM are blocked from here on and taken by one waiting
        // thread, so a signal that arrives at any moment (even right after the base
        // URL is printed) stops the server and ends the process with 128 + the signal.
        Signals.install(output: Output(diagnostics: Diagnostics(tool: "feed-serve", environment: nil)))
        Signals.onInterrupt { server.stop() }

        do {
            let base = try server.start(port: options.port)
            writeText(base + "\n", to: STDOUT_FILENO)
        } catch {
            fail(FeedServeCommand.ExitStatus.cannotListen, "\(error)")
        }
        dispatchMain()
    }
}
