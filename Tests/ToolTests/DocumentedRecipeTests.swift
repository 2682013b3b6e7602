import Foundation
import XCTest

/// Every recipe of README.md and essential-feed(7), read from the documents
/// themselves (so a recipe that drifts from the tools fails here), run as
/// written against a real feed-serve: online, offline, and the documented
/// crontabs under cron's own environment from an installed prefix.
final class DocumentedRecipeTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let commands: Set<String> = [
        "feed-fetch", "feed-map", "comments-map", "feed-cache", "feed-paginate", "reldate", "feed-view", "feed-serve",
        "feed-sync", "feed-show", "feed-comments", "curl",
    ]
    let acceptanceID = "2AB2AE66-A4B7-4A16-B374-51BBAC8DB086"
    /// The shared database the documents name, run as a throwaway server's.
    static let documentedDatabase = "postgresql://feed@db.example/feed"

    /// A throwaway PostgreSQL server with a database `feed`, for the lines
    /// that name `documentedDatabase`; nil (said once) where none can run.
    private func sharedDatabase() -> (PostgreSQLServer, String)? {
        do {
            let server = try PostgreSQLServer.start()
            try server.psql("CREATE DATABASE feed")
            return (server, server.uri(database: "feed"))
        } catch {
            print("DocumentedRecipeTests: the lines that name \(Self.documentedDatabase) are not run: \(error)")
            return nil
        }
    }

    // MARK: The documents

    /// A code block: its lines, and where it comes from.
    struct Block {
        let source: String
        let lines: [String]
    }

    /// README.md's indented code blocks.
    static func readmeBlocks() throws -> [Block] {
        let text = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [Block] = []
        var current: [String] = []
        var inFence = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            if !inFence, line.hasPrefix("    ") {
                current.append(String(line.dropFirst(4)))
            } else if !line.isEmpty || current.isEmpty {
                if !current.isEmpty { blocks.append(Block(source: "README.md", lines: current)) }
                current = []
            }
        }
        if !current.isEmpty { blocks.append(Block(source: "README.md", lines: current)) }
        return blocks
    }

    /// A man page's `.EX`/`.EE` blocks, unescaped.
    static func manBlocks(_ page: String) throws -> [Block] {
        let text = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
        var blocks: [Block] = []
        var current: [String]?
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix(".EX") { current = []; continue }
            if line.hasPrefix(".EE") {
                if let lines = current { blocks.append(Block(source: page, lines: lines)) }
                current = nil
                continue
            }
            current?.append(unescape(line))
        }
        return blocks
    }

    static func unescape(_ troff: String) -> String {
        var s = troff
        for (from, to) in [("\\(aq", "'"), ("\\(dq", "\""), ("\\-", "-"), ("\\&", ""), ("\\~", " "), ("\\['a]", "á"), ("\\[:o]", "ö"),
                           ("\\[pc]", "·"), ("\\(lq", "\u{201C}"), ("\\(rq", "\u{201D}"), ("\\e", "\\"), ("\\\\", "\\")] {
            s = s.replacingOccurrences(of: from, with: to)
        }
        // \[uXXXX]: the character of that code point.
        while let range = s.range(of: #"\\\[u[0-9A-F]{4,5}\]"#, options: .regularExpression) {
            let hex = s[range].dropFirst(3).dropLast()
            s.replaceSubrange(range, with: String(UnicodeScalar(UInt32(hex, radix: 16)!).map(Character.init) ?? "?"))
        }
        return s
    }

    /// Lines that run one of the toolkit's commands (a `# comment` at the
    /// end dropped), from blocks that are not transcripts.
    static func recipes(_ blocks: [Block]) -> [(source: String, line: String)] {
        blocks.filter { !$0.lines.contains { $0.hasPrefix("$ ") } }.flatMap { block in
            block.lines.compactMap { line -> (String, String)? in
                var command = line
                if let hash = command.range(of: " # ") { command = String(command[..<hash.lowerBound]) }
                command = command.trimmingCharacters(in: .whitespaces)
                // Variables set for the command (NAME=value) come before it.
                guard let first = command.split(separator: " ").first(where: { !$0.contains("=") }), commands.contains(String(first)) else { return nil }
                return (block.source, command)
            }
        }
    }

    /// A crontab: its variable lines and its jobs' commands.
    struct Crontab {
        let source: String
        var variables: [(String, String)] = []
        var jobs: [String] = []
    }

    static func crontabs(_ blocks: [Block]) -> [Crontab] {
        blocks.compactMap { block in
            var tab = Crontab(source: block.source)
            for line in block.lines {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count > 5, fields[0...4].allSatisfy({ $0.allSatisfy { "0123456789*/,-".contains($0) } }) {
                    // cron gives the rest of the line, past five fields, to /bin/sh.
                    var rest = Substring(line)
                    for _ in 0..<5 {
                        rest = rest.drop { $0 == " " || $0 == "\t" }
                        rest = rest.drop { $0 != " " && $0 != "\t" }
                    }
                    tab.jobs.append(rest.trimmingCharacters(in: .whitespaces))
                } else if let eq = line.firstIndex(of: "="), !line.contains(" "), line.first?.isLetter == true {
                    tab.variables.append((String(line[..<eq]), String(line[line.index(after: eq)...])))
                }
            }
            return tab.jobs.isEmpty ? nil : tab
        }
    }

    static func allBlocks() throws -> [Block] {
        try readmeBlocks() + manBlocks("man/man7/essential-feed.7")
    }

    // MARK: Tests

    func test_documents_holdTheRecipesThisTestRuns() throws {
        let recipes = Self.recipes(try Self.allBlocks())
        XCTAssertGreaterThanOrEqual(recipes.filter { $0.source == "README.md" }.count, 6, "\(recipes)")
        XCTAssertGreaterThanOrEqual(recipes.filter { $0.source.hasSuffix(".7") }.count, 5, "\(recipes)")
        XCTAssertTrue(recipes.contains { $0.line.contains("feed-cache fallback") }, "the fallback recipe")
        XCTAssertGreaterThanOrEqual(Self.crontabs(try Self.allBlocks()).count, 3)
    }

    /// Online: every recipe, in the order the documents give them, exits 0
    /// against feed-serve, with a store of its own.
    func test_everyRecipe_online_exits0() throws {
        let server = try Served(test: self)
        let store = temporaryDirectory(self) + "/feed.sqlite"
        // The scripts too (installed beside the tools, or in the repository's scripts/).
        let path = [Products.directory, Self.root.path + "/scripts", ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"].joined(separator: ":")
        let env = ["FEED_BASE_URL": server.base, "FEED_STORE": store, "ID": acceptanceID, "NO_COLOR": "1", "LANG": "C.UTF-8", "LC_ALL": "", "PATH": path]
        let recipes = Self.recipes(try Self.allBlocks()).filter { !$0.line.contains("feed-serve") && !$0.line.contains("feed-sync") }
        let shared = recipes.contains { $0.line.contains(Self.documentedDatabase) } ? sharedDatabase() : nil
        defer { shared?.0.stop() }
        // Each in a folder of its own: a recipe may write a file (a page, a feed) where it runs.
        let folder = temporaryDirectory(self)
        for recipe in recipes {
            var line = recipe.line
            if line.contains(Self.documentedDatabase) {
                guard let (_, uri) = shared else { continue }
                line = line.replacingOccurrences(of: Self.documentedDatabase, with: quoted(uri))
            }
            let run = sh("cd \(quoted(folder)) && \(line)", environment: env)
            XCTAssertEqual(run.status, 0, "\(recipe.source): \(recipe.line)\n\(run.stderr)")
        }
        // The views' recipes wrote a page and a feed.
        let page = (try? String(contentsOfFile: folder + "/feed.html", encoding: .utf8)) ?? ""
        XCTAssertTrue(page.hasPrefix("<!DOCTYPE html>") && page.contains(#"<img src="data:image/png;base64,"#), "feed.html: \(page.prefix(200))")
        let atom = (try? String(contentsOfFile: folder + "/feed.atom", encoding: .utf8)) ?? ""
        XCTAssertTrue(atom.contains("<link rel=\"self\" type=\"application/atom+xml\" href=\"https://feed.example.com/feed.atom\"/>"), "feed.atom: \(atom.prefix(400))")
        if let (_, uri) = shared {
            XCTAssertEqual(sh("feed-cache info", environment: env.merging(["FEED_STORE": uri]) { $1 }).records().first?["status"] as? String, "valid",
                           "the shared database's recipes left a valid cache")
        }
        XCTAssertEqual(sh("feed-cache info", environment: env).records().first?["status"] as? String, "valid")
    }

    /// The section-1 pages' recipes (EXAMPLES lines that are not
    /// transcripts): each page's in its order, in a folder and with a store
    /// of its own that already holds the feed (as a user's would), run as
    /// written against feed-serve; each exits 0.
    func test_manPageRecipes_online_exit0() throws {
        let server = try Served(test: self)
        let path = [Products.directory, Self.root.path + "/scripts", ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"].joined(separator: ":")
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.root.path + "/man/man1").filter { $0.hasSuffix(".1") }.sorted()
        var ran = 0
        for page in pages {
            let recipes = Self.recipes(try Self.manBlocks("man/man1/" + page))
            guard !recipes.isEmpty else { continue }
            let folder = temporaryDirectory(self)
            let env = ["FEED_BASE_URL": server.base, "FEED_STORE": folder + "/feed.sqlite", "ID": acceptanceID, "NO_COLOR": "1",
                       "LANG": "C.UTF-8", "LC_ALL": "", "PATH": path, "HOME": folder]
            let seed = sh("feed-fetch | feed-map | feed-cache save", environment: env)
            XCTAssertEqual(seed.status, 0, seed.stderr)
            for recipe in recipes {
                let run = sh("cd \(quoted(folder)) && \(recipe.line)", environment: env, timeout: 20)
                ran += 1
                XCTAssertEqual(run.status, 0, "\(recipe.source): \(recipe.line)\n\(run.stderr)")
            }
        }
        XCTAssertGreaterThanOrEqual(ran, 15)
    }

    /// Offline: the fallback recipe shows the cached feed and exits 0; with
    /// nothing cached, the localized connection error and a failure status.
    func test_fallbackRecipe_offline_showsTheCacheElseTheConnectionError() throws {
        let server = try Served(test: self)
        let fallbacks = Self.recipes(try Self.allBlocks()).filter { $0.line.contains("feed-cache fallback") }
        XCTAssertFalse(fallbacks.isEmpty)
        for recipe in fallbacks {
            let cached = temporaryDirectory(self) + "/feed.sqlite"
            var env = ["FEED_BASE_URL": server.base, "FEED_STORE": cached, "NO_COLOR": "1", "LANG": "C.UTF-8", "LC_ALL": ""]
            let online = sh(recipe.line, environment: env)
            XCTAssertEqual(online.status, 0, "\(recipe.source): \(recipe.line)\n\(online.stderr)")
            XCTAssertTrue(online.out.contains(server.base + "/image-0"), online.out)

            env["FEED_BASE_URL"] = "http://127.0.0.1:9"
            let offline = sh(recipe.line, environment: env)
            XCTAssertEqual(offline.status, 0, "\(recipe.source) offline: \(recipe.line)\n\(offline.out)\(offline.stderr)")
            XCTAssertTrue(offline.out.contains(server.base + "/image-0"), "the cached feed: \(offline.out)")
            XCTAssertFalse(offline.out.contains("Couldn't connect"), offline.out)

            env["FEED_STORE"] = temporaryDirectory(self) + "/empty.sqlite"
            let nothing = sh(recipe.line, environment: env.merging(["LANG": "pt_BR.UTF-8"]) { $1 })
            XCTAssertNotEqual(nothing.status, 0, "\(recipe.source): \(recipe.line)")
            XCTAssertTrue(nothing.out.contains("Não foi possível conectar com o servidor"), "localized: \(nothing.out)")
        }
    }

    /// The transcripts (`$ command` and what it prints) of essential-feed(7)
    /// give what they show, the server's port aside.
    func test_transcripts_printWhatTheyShow() throws {
        let blocks = try Self.manBlocks("man/man7/essential-feed.7").filter { $0.lines.contains { $0.hasPrefix("$ ") } }
        XCTAssertFalse(blocks.isEmpty)
        let port = freePort()
        for block in blocks {
            // Each command's output after a marker; `$?` and background jobs kept across the markers.
            var script = "exec 2>&1\n__bg=\n__s=0\n"
            var expected: [[String]] = []
            for line in block.lines {
                let line = line.replacingOccurrences(of: "8080", with: "\(port)")
                if line.hasPrefix("$ ") {
                    let command = String(line.dropFirst(2))
                    script += "echo '@@@'\n( exit $__s )\n\(command)\n__s=$?\n"
                    if command.hasSuffix("&") { script += "__bg=\"$__bg $!\"\nsleep 1\n" }
                    expected.append([])
                } else if !expected.isEmpty {
                    expected[expected.count - 1].append(line)
                }
            }
            script += "echo '@@@'\n[ -z \"$__bg\" ] || kill $__bg\nwait\n"
            let run = sh(script, environment: ["FEED_STORE": temporaryDirectory(self) + "/feed.sqlite", "NO_COLOR": "1"], timeout: 30)
            let outputs = run.out.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "@@@\n").dropFirst().map { $0.split(separator: "\n").map(String.init) }
            for (index, lines) in expected.enumerated() where index < outputs.count {
                XCTAssertEqual(outputs[index].sorted(), lines.sorted(), "\(block.source): \(block.lines.filter { $0.hasPrefix("$ ") }[index])")
            }
        }
    }

    /// A transcript's commands (`$ ` lines, each with its `> ` continuation
    /// lines) and what each prints; the lines of a troff comment
    /// `.\" run: COMMAND` before a command run first, unseen (a file the
    /// example assumes); a block with `.\" not run: REASON` is left out.
    struct Transcript {
        var steps: [(command: String, setup: [String], output: [String])] = []
        var skipped: String?
    }

    static func transcripts(_ blocks: [Block]) -> [Transcript] {
        blocks.filter { $0.lines.contains { $0.hasPrefix("$ ") } }.map { block in
            var transcript = Transcript()
            var setup: [String] = []
            var inCommand = false
            for line in block.lines {
                if line.hasPrefix(#".\" not run: "#) {
                    transcript.skipped = String(line.dropFirst(13))
                } else if line.hasPrefix(#".\" run: "#) {
                    setup.append(String(line.dropFirst(9)))
                } else if line.hasPrefix("$ ") {
                    transcript.steps.append((String(line.dropFirst(2)), setup, []))
                    setup = []
                    inCommand = true
                } else if inCommand, line.hasPrefix("> ") || line == ">" {
                    transcript.steps[transcript.steps.count - 1].command += "\n" + String(line.dropFirst(2))
                } else if !transcript.steps.isEmpty {
                    inCommand = false
                    transcript.steps[transcript.steps.count - 1].output.append(line)
                }
            }
            return transcript
        }
    }

    /// What changes from run to run, the same on both sides: the port of a
    /// server on 127.0.0.1, a time read from the clock (to the nanosecond),
    /// a response's size and time in a log line (its URLs hold the port),
    /// a file's size. (A carriage return before a newline, as an HTTP
    /// header line ends, is dropped from what the commands print.)
    static func normalized(_ line: String) -> String {
        var line = line
        for (pattern, replacement) in [
            (#"127\.0\.0\.1:[0-9]+"#, "127.0.0.1:PORT"),
            (#"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]+Z"#, "TIME"),
            (#"[0-9]+ bytes, [0-9]+ ms"#, "N bytes, N ms"),
            (#""file_bytes":[0-9]+"#, #""file_bytes":N"#),
        ] {
            line = line.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return line
    }

    /// The transcripts (`$ command` and what it prints) of the section-1
    /// pages: each page's in one shell, in its order (a server one example
    /// starts serves the next), in a folder of its own that stands for
    /// /tmp; each command prints what the page shows (standard output and
    /// error together, in any order), the server's port aside.
    func test_manPageTranscripts_printWhatTheyShow() throws {
        let path = [Products.directory, Self.root.path + "/scripts", ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"].joined(separator: ":")
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.root.path + "/man/man1").filter { $0.hasSuffix(".1") }.sorted()
        var compared = 0, left: [String] = []
        for page in pages {
            let transcripts = Self.transcripts(try Self.manBlocks("man/man1/" + page))
            guard !transcripts.isEmpty else { continue }
            let folder = temporaryDirectory(self)
            let tmp = folder + "/tmp"
            try FileManager.default.createDirectory(atPath: tmp + "/demo", withIntermediateDirectories: true)
            var script = "cd \(quoted(folder))\nexec 2>&1\n__bg=\n__s=0\n"
            var expected: [(String, [String])] = []
            // The documented ports, free ones in their place: none holding a
            // documented one, which the next replacement would change (port
            // 48081 became 442479, one run in many).
            let documentedPorts = ["8080", "8081", "8082"]
            let ports = documentedPorts.map { documented in
                var port = String(freePort())
                while documentedPorts.contains(where: port.contains) { port = String(freePort()) }
                return (documented, port)
            }
            for transcript in transcripts {
                if let reason = transcript.skipped {
                    left.append("\(page): \(transcript.steps.first?.command ?? ""): \(reason)")
                    continue
                }
                for step in transcript.steps {
                    var command = step.command.replacingOccurrences(of: "/tmp/", with: tmp + "/")
                    for (documented, port) in ports { command = command.replacingOccurrences(of: documented, with: port) }
                    for line in step.setup { script += line.replacingOccurrences(of: "/tmp/", with: tmp + "/") + "\n" }
                    script += "echo '@@@'\n( exit $__s )\n\(command)\n__s=$?\n"
                    if command.hasSuffix("&") || command.hasSuffix("& sleep 1") { script += "__bg=\"$__bg $!\"\nsleep 1\n" }
                    expected.append((step.command, step.output.map { $0.replacingOccurrences(of: "/tmp/", with: tmp + "/") }))
                }
            }
            script += "echo '@@@'\n[ -z \"$__bg\" ] || kill $__bg\nwait\n"
            let env = ["NO_COLOR": "1", "LANG": "C.UTF-8", "LC_ALL": "", "PATH": path, "HOME": folder, "TMPDIR": tmp, "FIXTURES": Self.root.path + "/man/images"]
            let run = sh(script, environment: env, timeout: 120)
            let outputs = run.out.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "@@@\n").dropFirst().map { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }
            XCTAssertEqual(outputs.count, expected.count + 1, "\(page): every command ran\n\(run.out)")
            for (index, (command, lines)) in expected.enumerated() where index < outputs.count {
                compared += 1
                XCTAssertEqual(outputs[index].map(Self.normalized).sorted(), lines.filter { !$0.isEmpty }.map(Self.normalized).sorted(), "\(page): $ \(command)")
            }
        }
        print("DocumentedRecipeTests: \(compared) transcript commands compared; not run: \(left.isEmpty ? "none" : left.joined(separator: "; "))")
        XCTAssertGreaterThanOrEqual(compared, 90)
    }

    /// Each documented crontab, as cron runs it: `env -i` with cron's own
    /// environment (PATH=/usr/bin:/bin, SHELL=/bin/sh, HOME, LOGNAME), the
    /// crontab's variables on top, the job given to /bin/sh, the toolkit
    /// installed into a prefix by scripts/install (the documented
    /// /usr/local read as that prefix). Works as written, and silently.
    func test_documentedCrontabs_runUnderCronsEnvironmentFromAnInstalledPrefix() throws {
        let server = try Served(test: self)
        // The tools under test, when they are an installed prefix's (scripts/test's last pass); else installed here.
        var prefix = URL(fileURLWithPath: Products.directory).deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: prefix + "/libexec/essential-feed/essential-feed") {
            prefix = temporaryDirectory(self) + "/prefix"
            let install = sh(#""$R/scripts/install" --from "$FEED_BIN" --prefix "$P""#,
                             environment: ["R": Self.root.path, "FEED_BIN": Products.directory, "P": prefix], timeout: 120)
            XCTAssertEqual(install.status, 0, install.stderr)
            XCTAssertTrue(install.stderr.contains("install: installed ") && install.stderr.contains(" MiB into \(prefix)"),
                          "the install reports its size: \(install.stderr)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "/share/man/index.db") || sh("command -v mandb").status != 0,
                          "mandb indexed the pages")
        }
        let tabs = Self.crontabs(try Self.allBlocks())
        let shared = tabs.contains { $0.variables.contains { $0.1 == Self.documentedDatabase } } ? sharedDatabase() : nil
        defer { shared?.0.stop() }
        for tab in tabs {
            let home = temporaryDirectory(self)
            var env = ["PATH": "/usr/bin:/bin", "SHELL": "/bin/sh", "HOME": home, "LOGNAME": "cron-test"]
            var store = home + "/.cache/essential-feed/feed.sqlite"
            for (name, value) in tab.variables {
                env[name] = value.replacingOccurrences(of: "/usr/local", with: prefix)
                    .replacingOccurrences(of: "https://feed.example.com", with: server.base)
                if value == Self.documentedDatabase {
                    guard let (_, uri) = shared else { continue }
                    env[name] = uri
                    store = uri
                }
            }
            if env["FEED_STORE"] == Self.documentedDatabase { continue }
            for job in tab.jobs {
                let assignments = env.sorted { $0.key < $1.key }.map { "\($0.key)=\(quoted($0.value))" }.joined(separator: " ")
                let run = sh("env -i \(assignments) /bin/sh -c \(quoted(job))", timeout: 60)
                XCTAssertEqual(run.status, 0, "\(tab.source): \(job)\n\(run.out)\(run.stderr)")
                XCTAssertEqual(run.out + run.stderr, "", "cron mails any output: \(tab.source): \(job)")
                let info = sh("feed-cache --store \(quoted(store)) info").records().first
                XCTAssertEqual(info?["status"] as? String, "valid", "\(tab.source): \(job) left no valid cache")
            }
        }
    }

    /// The executables to install from: the build's, or, when the tools
    /// under test are an installed prefix's (scripts/test's last pass),
    /// those in its libexec.
    private var builtExecutables: String {
        let directory = Products.directory
        if FileManager.default.fileExists(atPath: directory + "/essential-feed") { return directory }
        return URL(fileURLWithPath: directory).deletingLastPathComponent().path + "/libexec/essential-feed"
    }

    /// Installed by a root whose umask is 077 (sudo keeps the user's): every
    /// folder and file is everyone's to read and run (they were 0700, and no
    /// other user could run a tool: found by the hunt).
    func test_install_underAStrictUmask_leavesTheToolsEveryonesToRun() throws {
        let prefix = temporaryDirectory(self) + "/strict"
        let run = sh(#"""
            (umask 077 && "$R/scripts/install" --from "$FROM" --prefix "$P") > /dev/null 2>&1 || echo "install failed"
            find "$P" -type d ! -perm -0755 | head -3
            find "$P" -type f ! -perm -0444 | grep -v 'index.db$' | head -3
            find "$P/bin" "$P/libexec" -type f ! -name folders ! -perm -0555 | head -3
            """#, environment: ["R": Self.root.path, "FROM": builtExecutables, "P": prefix], timeout: 120)
        XCTAssertEqual(run.out, "", run.stderr)
    }

    /// A prefix holding a quote: systemd takes no such path for a command,
    /// however escaped, so no units are written, and the install says so
    /// (they were, and systemd refused them: found by the hunt).
    func test_install_intoAPrefixWithAQuote_writesNoUnits_andSaysSo() throws {
        let prefix = temporaryDirectory(self) + "/bob's tools"
        let run = sh(#""$R/scripts/install" --from "$FROM" --prefix "$P"; echo "status $?"; find "$P" -name 'feed-sync.*' | grep -c systemd"#,
                     environment: ["R": Self.root.path, "FROM": builtExecutables, "P": prefix], timeout: 120)
        XCTAssertEqual(run.lines, ["status 0", "0"], run.stderr)
        XCTAssertTrue(run.stderr.contains("install: no systemd units: systemd takes no command whose path holds a quote or a backslash"), run.stderr)
    }

    func test_install_answersHelpWithItsUsageAndABadOptionWithStatus64() {
        let help = sh(#""$R/scripts/install" --help"#, environment: ["R": Self.root.path])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.out.hasPrefix("usage: scripts/install "), help.out)
        XCTAssertFalse(help.out.contains("set -eu") || help.out.contains("cd \""), "no lines of its own code: \(help.out)")
        // The tools' version, as every command answers it (scripts/package too).
        let version = sh(#""$R/scripts/install" --version; "$R/scripts/package" --version; feed-cache --version"#, environment: ["R": Self.root.path])
        XCTAssertEqual(version.status, 0, version.stderr)
        let words = version.lines.map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(words.map(\.first), ["install", "package", "feed-cache"], version.out)
        XCTAssertEqual(Set(words.map(\.last)).count, 1, version.out)
        let bad = sh(#""$R/scripts/install" --prefix"#, environment: ["R": Self.root.path])
        XCTAssertEqual(bad.status, 64)
        XCTAssertEqual(bad.stderr, "install: --prefix needs a value\ninstall: try 'scripts/install --help'\n")
        // A ~ no shell expanded (after =) is refused, not made a folder "~"
        // here; an uninstall where nothing was installed says so (it said
        // "removed"): found by the hunt.
        let tilde = sh(#"cd "$D" && "$R/scripts/install" --prefix=~/.local; echo "status $?"; ls -A"#,
                       environment: ["R": Self.root.path, "D": temporaryDirectory(self)])
        XCTAssertEqual(tilde.lines, ["status 64"], tilde.stderr)
        XCTAssertTrue(tilde.stderr.hasPrefix("install: --prefix '~/.local' starts with a ~ that no shell expanded: give $HOME/.local"), tilde.stderr)
        let nothing = sh(#""$R/scripts/install" --uninstall --prefix "$D/none""#, environment: ["R": Self.root.path, "D": temporaryDirectory(self)])
        XCTAssertEqual(nothing.status, 0)
        XCTAssertTrue(nothing.stderr.contains(": nothing removed (the install's --prefix?)"), nothing.stderr)
        // A newline would split the list of what the install made, which --uninstall removes.
        let newline = sh(#""$R/scripts/install" --from /nowhere --prefix "$(printf '/tmp/x\n/usr/local')""#, environment: ["R": Self.root.path])
        XCTAssertEqual(newline.status, 64)
        XCTAssertEqual(newline.stderr, "install: --prefix and DESTDIR take a path without a newline\ninstall: try 'scripts/install --help'\n")
    }

    /// scripts/package takes a relative --from as the caller's (it was the
    /// source tree's, and said "holds version ,"): a folder without the
    /// executables is named, with 66, before anything is made.
    func test_package_takesARelativeFromAsTheCallers_andSaysWhatIsMissing() {
        let d = temporaryDirectory(self)
        let run = sh(#"cd "$D" && "$R/scripts/package" --from nowhere --output out"#, environment: ["R": Self.root.path, "D": d])
        XCTAssertEqual(run.status, 66, run.stderr)
        XCTAssertEqual(run.stderr, "package: \(d)/nowhere/essential-feed is missing: build it first\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: d + "/out"), "nothing made")
    }

    /// The multi-call executable runs each tool by its own name or as `essential-feed TOOL`.
    func test_multiCallExecutable_runsTheToolItIsCalledAs() throws {
        let beside = Products.path("essential-feed")
        let installed = Products.directory + "/../libexec/essential-feed/essential-feed"
        let path = FileManager.default.fileExists(atPath: beside) ? beside : installed
        let env = ["E": path]
        let help = sh(#""$E" --help"#, environment: env)
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.out.hasPrefix("usage: essential-feed TOOL [ARGUMENTS]"), help.out)
        XCTAssertEqual(sh(#""$E" reldate --now 2020-05-21T11:24:59Z 2020-05-20T11:24:59Z"#, environment: env).out, "1 day ago\n")
        let link = temporaryDirectory(self) + "/feed-paginate"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        XCTAssertEqual(sh("\(quoted(link)) --base-url http://h --limit 2 < /dev/null").out, #"{"url":"http://h/v1/feed?limit=2"}"# + "\n")
        let none = sh(#""$E""#, environment: env)
        XCTAssertEqual(none.status, 64)
        let unknown = sh(#""$E" feed-fetch"#, environment: env)
        XCTAssertEqual(unknown.status, 64)
        XCTAssertEqual(unknown.stderr, "essential-feed: no tool named 'feed-fetch'\nessential-feed: try 'essential-feed --help'\n")
    }

    /// The multi-call executable of the tools that link shared libraries
    /// runs feed-fetch and feed-cache-postgresql (under the name feed-cache
    /// too, as feed-cache hands a PostgreSQL store over to it) by the name it
    /// is called by; under its own, it says what it is.
    func test_networkMultiCallExecutable_runsFeedFetchAndThePostgreSQLFeedCache() throws {
        let beside = Products.path("essential-feed-net")
        let installed = Products.directory + "/../libexec/essential-feed/essential-feed-net"
        let path = FileManager.default.fileExists(atPath: beside) ? beside : installed
        let env = ["E": path]
        let help = sh(#""$E" --help"#, environment: env)
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.out.hasPrefix("usage: feed-fetch [ARGUMENTS], or feed-cache-postgresql [ARGUMENTS]"), help.out)
        XCTAssertEqual(sh(#""$E" --version"#, environment: env).out, "essential-feed-net 0.1.0\n")
        XCTAssertEqual(sh(#""$E""#, environment: env).status, 64)
        let folder = temporaryDirectory(self)
        for name in ["feed-fetch", "feed-cache", "feed-cache-postgresql"] {
            try FileManager.default.createSymbolicLink(atPath: folder + "/" + name, withDestinationPath: path)
        }
        let server = try Served(test: self)
        let fetched = sh(quoted(folder + "/feed-fetch") + " --limit 1 < /dev/null", environment: ["FEED_BASE_URL": server.base])
        XCTAssertEqual(fetched.status, 0, fetched.stderr)
        XCTAssertEqual(fetched.records().first?["status"] as? Int, 200, fetched.out)
        for name in ["feed-cache", "feed-cache-postgresql"] {
            let cache = sh(quoted(folder + "/" + name) + " --help")
            XCTAssertEqual(cache.status, 0)
            XCTAssertTrue(cache.out.hasPrefix("usage: feed-cache "), "\(name): \(cache.out.prefix(80))")
        }
    }

    private func freePort() -> Int {
        let run = sh(#"python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'"#)
        return Int(run.out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 18_080
    }
}
