import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What every tool shares: its name, usage, options, standard output,
/// diagnostics and exit status. A tool's `main.swift` makes one, reads its
/// input through it, and ends with `finish()`.
public final class Tool: @unchecked Sendable {
    public let name: String
    public let help: String
    public let arguments: Arguments
    public let diagnostics: Diagnostics
    public let output: Output
    public let environment: [String: String]
    /// The longest input line read (`FEED_MAX_LINE`; see `InputLines`).
    public let maxLine: Int
    private let statusLock = Lock()
    private var status = ExitStatus()
    /// Whether failures are also written as error records on standard
    /// output. Off for output meant for people or raw bytes (feed-view,
    /// `reldate DATE…`, `feed-cache image`): there they go to standard error only.
    public var writesErrorRecords = true
    /// The descriptor records are read from (standard input).
    public let input: Int32
    /// Whether the caller closed standard input (`<&-`): reading it fails.
    public let inputWasClosed: Bool

    /// Where a tool reads and writes records, and whether it takes SIGINT
    /// and SIGTERM (see `Signals`). Other than `.standard` only in tests,
    /// which run tools' parts in one process.
    public struct Streams: Sendable {
        public var input: Int32
        public var output: Int32
        public var handlesSignals: Bool

        public init(input: Int32 = 0, output: Int32 = 1, handlesSignals: Bool = true) {
            self.input = input
            self.output = output
            self.handlesSignals = handlesSignals
        }

        public static let standard = Streams()
    }

    /// Parses the arguments; answers `--help` and `--version`; a usage error
    /// ends the process with status 64. A password in an argument is hidden
    /// from the process list (`shown` masks it: a URL's, by default).
    public init(
        name: String,
        help: String,
        options: [OptionSpec],
        arguments: [String] = Invocation.arguments,
        shown: (String) -> String = { Secrets.redact($0) },
        environment: [String: String] = Tool.processEnvironment(),
        writesErrorRecords: Bool = true,
        streams: Streams = .standard
    ) {
        inputWasClosed = Descriptor.fillClosedStandardStreams().contains(0)
        self.writesErrorRecords = writesErrorRecords
        input = streams.input
        self.name = name
        self.help = help
        self.environment = environment
        diagnostics = Diagnostics(tool: name, environment: environment["FEED_LOG"])
        // Read before the arguments' passwords are hidden: hidden, a bad
        // byte there was U+FFFD, valid, and sent (found in review).
        let argumentNotUTF8 = streams.handlesSignals && Invocation.hasArgumentNotUTF8
        if streams.handlesSignals { Invocation.hideFromProcessList(shown) }
        let maxLineText = environment["FEED_MAX_LINE"].flatMap { $0.isEmpty ? nil : $0 }
        maxLine = maxLineText.map { ByteCount.parse($0) ?? 0 } ?? InputLines.defaultMaxLine
        output = Output(fd: streams.output, diagnostics: diagnostics)
        Descriptor.widenPipe(streams.input)
        Descriptor.widenPipe(streams.output)
        if streams.handlesSignals { Signals.install(output: output) }
        let all = options + [.flag("--help", "-h"), .flag("--version")]
        #if DEBUG
        // For the completion tests, in debug builds only: the long options the tool parses, one a line.
        if environment["FEED_TEST_LIST_OPTIONS"] == "1" {
            for spec in all { for name in spec.names where name.hasPrefix("--") { print(name) } }
            exit(0)
        }
        #endif
        do {
            self.arguments = try Arguments(arguments, options: all)
        } catch {
            self.arguments = try! Arguments([], options: [])
            usageError(error.message)
        }
        if argumentNotUTF8 {
            usageError("an argument is not valid UTF-8 (URLs, paths and values must be)")
        }
        if streams.handlesSignals, let name = Self.variableNotUTF8() {
            usageError("the environment variable \(name) is not valid UTF-8 (URLs, paths and values must be)")
        }
        if self.arguments.flag("--help") { showHelp() }
        if self.arguments.flag("--version") { showVersion() }
        if maxLineText != nil && maxLine == 0 {
            usageError("FEED_MAX_LINE takes a number of bytes, optionally with k, M or G, not '\(maxLineText!)'")
        }
    }

    /// A tool whose command line has a grammar of its own (feed-serve's
    /// faults apply in the order given): no options are parsed here; the
    /// tool reads `Invocation.arguments` itself and answers with
    /// `showHelp()`, `showVersion()` and `usageError(_:)`.
    public static func withOwnGrammar(name: String, help: String, writesErrorRecords: Bool = true) -> Tool {
        Tool(name: name, help: help, options: [], arguments: [], writesErrorRecords: writesErrorRecords)
    }

    /// Writes the usage and exits 0 (`--help`).
    public func showHelp() -> Never {
        output.raw(Array(help.utf8))
        output.flush()
        exit(0)
    }

    /// Writes `NAME VERSION` and exits 0 (`--version`).
    public func showVersion() -> Never {
        output.raw(Array("\(name) \(toolkitVersion)\n".utf8))
        output.flush()
        exit(0)
    }

    /// Reports a usage error (record, message, hint) and exits 64.
    public func usageError(_ message: String) -> Never {
        fail(ErrorRecord(.usage, message))
        diagnostics.error("try '\(name) --help'")
        finish()
    }

    /// Reports a failure of this tool: an error record on standard output, a
    /// line on standard error, and the kind's exit status.
    public func fail(_ error: ErrorRecord) {
        let error = error.reported
        if writesErrorRecords { output.error(error) }
        if let url = error.context.first(where: { $0.key == "url" })?.value, !error.message.contains(url) {
            diagnostics.error("\(error.message) (\(url))")
        } else {
            diagnostics.error(error.message)
        }
        record(error.kind)
    }

    /// Notes a failure kind for the exit status without reporting it.
    public func record(_ kind: ErrorKind) {
        statusLock.withLock { status.record(kind) }
    }

    public var exitCode: Int32 { statusLock.withLock { status.code } }

    /// Flushes standard output and exits with the status of the first failure met.
    public func finish() -> Never {
        output.flush()
        // A signal taken and pending: its status, not this (a tool whose
        // input ended as the signal came exited 0: found by the hunt).
        if Signals.isEnding { Signals.waitForTheEnd() }
        output.finished()
        exit(exitCode)
    }

    /// For tools that format dates (through ICU): sets to `C`, in this
    /// process, each of LC_ALL, LC_MESSAGES and LANG whose value
    /// `isLocaleName` refuses, before ICU reads them. ICU takes its default
    /// locale from them itself, whatever locale it is given, and crashed
    /// (SIGSEGV) on some that are no locale name (`LANG=aaaaaaaaaaaa`,
    /// `LANG='Chinese (Simplified)_China.936'`), which the tools count as
    /// `C`. `environment` keeps them as they were.
    public func setLocaleVariablesToC(unless isLocaleName: (String) -> Bool) {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty, !isLocaleName(value) else { continue }
            setenv(name, "C", 1)
        }
    }

    /// For filters: a terminal on standard input gets the usage and status 64.
    public func refuseTerminalInput() {
        guard Descriptor.isTerminal(0) else { return }
        // The message, then the usage as it is written (its own lines, not escaped).
        diagnostics.error("standard input is a terminal; pipe records in")
        var synopsis = help.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }.joined(separator: "\n")
        synopsis += "\n" + diagnostics.tool + ": try '" + name + " --help'\n"
        _ = Array(synopsis.utf8).withUnsafeBytes { Descriptor.writeAll(2, $0) }
        exit(ErrorKind.usage.exitStatus)
    }

    /// Reads standard input as records. Invalid and truncated lines are
    /// reported as `invalid_data`; error records are written through
    /// unchanged and their kind noted; every other record goes to `body`.
    public func forEachRecord(_ body: (JSONDocument, Int) throws -> Void) {
        forEachLine { line, number, truncated in
            guard let document = parseRecord(line, number, truncated) else { return }
            if let kind = RecordKind.errorKind(of: document) {
                passOn(errorRecord: line, kind: kind)
                return
            }
            try body(document, number)
        }
    }

    /// Writes an error record met on input as it came, but for the password
    /// of any URL in it, shown as `***` (as every printed URL), and notes
    /// its kind for the exit status.
    public func passOn(errorRecord line: ArraySlice<UInt8>, kind: ErrorKind) {
        output.line(Secrets.redacted(line))
        record(kind)
    }

    /// Parses one input line as a record, reporting it when invalid (and
    /// handing `rejected` what was reported).
    public func parseRecord(_ line: ArraySlice<UInt8>, _ number: Int, _ truncated: Bool, rejected: (String) -> Void = { _ in }) -> JSONDocument? {
        do throws(ErrorRecord) {
            if truncated { throw RecordLine.truncated(lineNumber: number) }
            return try RecordLine.parse(line, lineNumber: number)
        } catch {
            fail(error)
            rejected(error.reported.message)
            return nil
        }
    }

    /// Reads standard input line by line, flushing output before each wait.
    public func forEachLine(_ body: (ArraySlice<UInt8>, Int, Bool) throws -> Void) {
        var lines = InputLines(fd: input, maxLine: maxLine, flushing: output)
        do {
            while let (line, number, truncated) = try lines.next() {
                try body(line, number, truncated)
            }
        } catch let error as ErrorRecord {
            fail(error)
        } catch {
            fail(ErrorRecord(.internal, "\(error)"))
        }
    }

    /// The process's environment, as text (a byte that is not UTF-8 as
    /// U+FFFD: `Tool` refuses such a value of a variable read as a path or
    /// a URL, `variableNotUTF8`).
    public static func processEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") {
                result[String(s[..<eq])] = String(s[s.index(after: eq)...])
            }
            p += 1
        }
        return result
    }

    /// The first variable read as a path or a URL, by the tools or by the
    /// libraries whose files the sandbox opens to (`FEED_*`, the folders,
    /// credentials, certificates, libpq's files, proxies; not a password),
    /// whose value is not UTF-8: read with repairs, it named another file
    /// or URL than the one given (found in review).
    static func variableNotUTF8() -> String? {
        let read: Set<String> = ["TMPDIR", "SQLITE_TMPDIR", "HOME", "XDG_CACHE_HOME", "NETRC", "TZDIR", "KRB5_CONFIG",
                                 "PGPASSFILE", "PGSERVICEFILE", "PGSYSCONFDIR", "PGSSLROOTCERT", "PGSSLCERT", "PGSSLKEY", "PGSSLCRL", "PGSSLCRLDIR",
                                 "SSL_CERT_FILE", "SSL_CERT_DIR",
                                 "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]
        var p = environ
        while let entry = p.pointee {
            p += 1
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(entry).assumingMemoryBound(to: UInt8.self), count: strlen(entry))
            guard !Invocation.isUTF8(bytes), let eq = bytes.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: bytes[..<eq], as: UTF8.self)
            if name.hasPrefix("FEED_") || read.contains(name) { return name }
        }
        return nil
    }
}
