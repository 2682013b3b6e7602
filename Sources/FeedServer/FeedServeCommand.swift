/// The command line of `feed-serve`, parsed without side effects so that
/// `main.swift` stays a thin composition root and the rules can be tested.
public enum FeedServeCommand: Equatable, Sendable {
    case help
    case version
    case serve(Options)

    /// Where the fixtures come from.
    public enum FixtureSource: Equatable, Sendable {
        /// A set built into the binary (`demo`, `acceptance`).
        case builtin(String)
        /// A fixture directory.
        case directory(String)
    }

    public struct Options: Equatable, Sendable {
        public var port: UInt16 = 0
        public var fixtures: FixtureSource = .builtin("demo")
        public var faults = FeedServerFaults()
        /// Whether each 200 carries an ETag, and a request naming it gets 304.
        public var etags = false

        public init(port: UInt16 = 0, fixtures: FixtureSource = .builtin("demo"), faults: FeedServerFaults = .init(), etags: Bool = false) {
            self.port = port
            self.fixtures = fixtures
            self.faults = faults
            self.etags = etags
        }
    }

    /// Bad options or operands (exit status 64).
    public struct UsageError: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Parses the arguments after the program name. Options may come in any
    /// order, as `--name value` or `--name=value`; `--` ends the options.
    public static func parse(_ arguments: [String]) throws(UsageError) -> FeedServeCommand {
        var options = Options()
        var directory: String?
        var builtin: String?
        var remaining = arguments[...]
        var onlyOperands = false

        func setDirectory(_ path: String) throws(UsageError) {
            guard directory == nil else { throw UsageError(message: "only one fixture directory may be given") }
            guard !path.isEmpty else { throw UsageError(message: "the fixture directory must not be empty") }
            directory = path
        }

        while let argument = remaining.popFirst() {
            if onlyOperands || !argument.hasPrefix("-") || argument == "-" {
                try setDirectory(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst() else { throw UsageError(message: "option \(name) needs a value") }
                return next
            }
            func noValue() throws(UsageError) {
                if inlineValue != nil { throw UsageError(message: "option \(name) takes no value") }
            }

            switch name {
            case "--":
                onlyOperands = true
            case "-h", "--help":
                return .help
            case "--version":
                return .version
            case "--port":
                let text = try value()
                guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let port = UInt16(text) else {
                    throw UsageError(message: "--port needs a port number from 0 to 65535, got '\(text)'")
                }
                options.port = port
            case "--fixtures":
                try setDirectory(try value())
            case "--builtin":
                let text = try value()
                guard FeedServerFixtures.builtinNames.contains(text) else {
                    throw UsageError(message: "unknown built-in fixtures '\(text)' (known: \(FeedServerFixtures.builtinNames.joined(separator: ", ")))")
                }
                builtin = text
            case "--etag":
                try noValue()
                options.etags = true
            case "--fault":
                let spec = try value()
                do {
                    options.faults = options.faults.overridden(by: try FeedServerFaults(spec: spec))
                } catch {
                    throw UsageError(message: "--fault: \(error.message)")
                }
            case "--reset", "--hang":
                try noValue()
                try setFault(&options.faults, String(name.dropFirst(2)), nil)
            case "--delay", "--status", "--truncate", "--drip", "--redirect", "--big":
                try setFault(&options.faults, String(name.dropFirst(2)), try value())
            default:
                throw UsageError(message: "unknown option \(name)")
            }
        }

        switch (directory, builtin) {
        case let (directory?, nil): options.fixtures = .directory(directory)
        case let (nil, builtin?): options.fixtures = .builtin(builtin)
        case (nil, nil): break
        case (.some, .some): throw UsageError(message: "give either a fixture directory or --builtin, not both")
        }
        return .serve(options)
    }

    private static func setFault(_ faults: inout FeedServerFaults, _ name: String, _ value: String?) throws(UsageError) {
        do {
            try faults.set(name, value)
        } catch {
            throw UsageError(message: "--\(error.message.replacingOccurrences(of: "fault '\(name)'", with: name))")
        }
    }

    /// The `--help` text.
    public static let usage = #"""
    Usage: feed-serve [--port N] [--fixtures DIR | DIR | --builtin NAME] [--etag] [FAULT...]

    Serve the feed API on 127.0.0.1 for demos, tests and offline development.
    The first line of standard output is the base URL, http://127.0.0.1:PORT;
    then it serves until SIGINT, SIGTERM or SIGHUP.

    Routes (also below a fault prefix, see Faults):
      GET BASE/v1/feed?limit=N[&after_id=UUID]
            a page of the feed: at most N items (default 10, at most 1000)
            after the item with id UUID, in fixture order; an after_id that
            is not in the feed gives an empty page; a bad limit or after_id
            gives 400
      GET BASE/v1/image/UUID/comments
            the image's comments ({"items":[]} when it has none)
      GET BASE/NAME
            the bytes of the fixture image NAME (404 when there is none)
      HEAD is served wherever GET is; other methods get 405.

    Options:
      --port N          listen on port N (default 0: a free port)
      --fixtures DIR    serve the fixture directory DIR (same as the operand DIR)
      --builtin NAME    serve a built-in set: demo (the default; 12 items with
                        images and comments) or acceptance (the case study's
                        3 items and 1 comment)
      --etag            send each 200 with an ETag (a hash of its body) and
                        answer a request whose If-None-Match names it with 304,
                        as nginx does: a conditional refresh then gets its 304
      -h, --help        print this help
      --version         print the version

    Fixture directory:
      DIR/feed.json           {"items":[{"id","description"?,"location"?,"image"},...]}
                              the whole feed, in order
      DIR/comments/UUID.json  {"items":[{"id","message","created_at",
                              "author":{"username"}},...]}, optional
      DIR/images/NAME         bytes served at BASE/NAME, optional
      Ids must be UUIDs. The text {{base}} in the JSON (and in images named
      *.json) is replaced by the base URL, e.g. "image":"{{base}}/cat.png".

    Faults (for every request):
      --delay MS        wait MS milliseconds (a day at most) before responding
      --status N        answer with status N (200-599), the body unchanged
      --truncate N      announce the full Content-Length, send N body bytes, close
      --reset           reset the connection (TCP RST) after reading the request
      --drip MS         send the body a byte every MS milliseconds (a day at most)
      --hang            send the status line and one header, then nothing
      --redirect N      answer 302 N times before the real response
      --big BYTES       pad JSON object bodies with a "pad" member to BYTES bytes
      --fault SPEC      the faults in SPEC (see below)
    Faults for one request: prefix the path with /_fault/SPEC, where SPEC is
    a comma-separated list of delay=MS, status=N, truncate=N, reset, drip=MS,
    hang, redirect=N, big=BYTES; these replace the global ones. E.g.
      curl 'http://127.0.0.1:PORT/_fault/delay=500,status=503/v1/feed?limit=2'
    or point a client's base URL at http://127.0.0.1:PORT/_fault/reset.

    Environment:
      FEED_LOG=debug    log each request (method, target, status, bytes,
                        milliseconds) to standard error

    Exit status:
      64  bad options or operands
      65  the fixtures break the rules (the message names the file)
      66  the fixture directory or its feed.json does not exist
      69  cannot listen (e.g. the port is in use)
      74  a fixture file cannot be read
      129, 130, 143  stopped by SIGHUP, SIGINT, SIGTERM
    """# + "\n"
}
