// feed-serve: a local server of the feed API. The composition root only:
// parse the command line, load the fixtures, start the server, print its
// base URL, and stop cleanly on SIGINT or SIGTERM. See `feed-serve --help`.
import EssentialFeed
import FeedCLI
import FeedServer
import Sandbox
#if canImport(Glibc)
import Glibc
#endif

/// `feed-serve`: the tool's composition root, run by its own executable and by
/// the toolkit's multi-call executable.
public enum FeedServeTool {
    public static func main() -> Never {
        // Output for people: failures go to standard error only, with the
        // toolkit's exit statuses (64 usage, 65 invalid fixtures, 66 not
        // found, 69 cannot listen, 74 unreadable).
        let tool = Tool.withOwnGrammar(name: "feed-serve", help: FeedServeCommand.usage, writesErrorRecords: false)
        let options: FeedServeCommand.Options
        do {
            switch try FeedServeCommand.parse(Invocation.arguments) {
            case .help: tool.showHelp()
            case .version: tool.showVersion()
            case .serve(let parsed): options = parsed
            }
        } catch {
            tool.usageError(error.message)
        }

        let fixtures: FeedServerFixtures
        switch options.fixtures {
        case .builtin(let name):
            guard let builtin = FeedServerFixtures.builtin(named: name) else { tool.usageError("unknown built-in fixtures '\(name)'") }
            fixtures = builtin
        case .directory(let path):
            do {
                fixtures = try FeedServerFixtures.load(directory: path)
            } catch {
                let kind: ErrorKind = switch error.kind {
                case .notFound: .notFound
                case .unreadable: .store
                case .invalid: .invalidData
                }
                tool.fail(ErrorRecord(kind, "\(error)"))
                tool.finish()
            }
        }

        let diagnostics = tool.diagnostics
        let log: (@Sendable (String) -> Void)? = diagnostics.enabled(.debug) ? { @Sendable line in diagnostics.debug(line) } : nil
        let server = FeedServer(fixtures: fixtures, faults: options.faults, log: log, etags: options.etags)

        // SIGINT and SIGTERM are blocked from here on and taken by one waiting
        // thread, so a signal that arrives at any moment (even right after the base
        // URL is printed) stops the server and ends the process with 128 + the signal.
        Signals.onInterrupt { server.stop() }
        do {
            // Confined once its socket listens: no socket is made after it.
            let base = try server.start(port: options.port) { tool.confine(.serving(options.fixtures)) }
            tool.output.raw(Array((base + "\n").utf8))
            tool.output.flush()
        } catch {
            tool.fail(ErrorRecord(.connectivity, "\(error)"))
            tool.finish()
        }
        // The server's threads serve; this one waits, with the signals
        // still blocked, for the signal's thread to end the process (not in
        // libdispatch's main loop, whose wait let the signals in here).
        Signals.waitForTheEnd()
    }
}

extension SandboxRules {
    /// feed-serve's: the connections its socket takes, that socket made
    /// before (no other: none out); its fixture folder read (loaded
    /// already); no file written.
    static func serving(_ fixtures: FeedServeCommand.FixtureSource) -> SandboxRules {
        var readable: [String] = []
        if case let .directory(path) = fixtures { readable.append(path) }
        return SandboxRules(readable: readable, writable: [], network: .server)
    }
}
