import Foundation
import XCTest

/// The scripts behave as the tools do: `--opt value` and `--opt=value`,
/// usage errors as `SCRIPT: message`, `SCRIPT: try 'SCRIPT --help'` and
/// status 64 before anything is done, the tools' diagnostics shown, and
/// `--now` reaching every tool that reads the clock.
final class ScriptTests: XCTestCase {
    let id = "2AB2AE66-A4B7-4A16-B374-51BBAC8DB086"

    private func environment(_ base: String?, store: String) -> [String: String] {
        var env = ["FEED_STORE": store, "FEED_BIN": Products.directory, "S": AcceptanceTests.scripts,
                   "LANG": "en_US.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "NO_COLOR": "1"]
        if let base { env["FEED_BASE_URL"] = base }
        return env
    }

    /// Each bad command line: exactly the two lines, status 64, nothing on
    /// standard output, and nothing made at the store path.
    func test_everyScript_refusesEachBadOptionBeforeDoingAnything() {
        let storeFolder = temporaryDirectory(self)
        let storePath = storeFolder + "/feed.sqlite"
        let bad: [(script: String, arguments: String, message: String)] = [
            ("feed-sync", "--pages", "option '--pages' needs a value"),
            ("feed-sync", "--pages x", "--pages takes a whole number from 1 to 1000, not 'x'"),
            ("feed-sync", "--pages=-1", "--pages takes a whole number from 1 to 1000, not '-1'"),
            ("feed-sync", "--limit 0", "--limit takes a whole number from 1 to 1000, not '0'"),
            ("feed-sync", "--parallel 0", "--parallel takes a whole number from 1 to 64, not '0'"),
            ("feed-sync", "--parallel=65", "--parallel takes a whole number from 1 to 64, not '65'"),
            ("feed-sync", "--retry 101", "--retry takes a whole number from 0 to 100, not '101'"),
            ("feed-sync", "--retry=x", "--retry takes a whole number from 0 to 100, not 'x'"),
            ("feed-sync", "--wait 1.2.3", "--wait takes a number of seconds up to 1000000, not '1.2.3'"),
            ("feed-sync", "--wait -1", "--wait takes a number of seconds up to 1000000, not '-1'"),
            // Past flock's timer: it failed, and the run said another held the lock (75).
            ("feed-sync", "--wait 99999999999999999999", "--wait takes a number of seconds up to 1000000, not '99999999999999999999'"),
            ("feed-sync", "--wait 1000000.5", "--wait takes a number of seconds up to 1000000, not '1000000.5'"),
            // A web file that is the store: the page replaced the cache (exit 0), and every later run failed.
            ("feed-sync", "--store \(quoted(storePath)) --html \(quoted(storePath))", "--html: '\(storePath)' is the store itself"),
            ("feed-sync", "--store \(quoted(storePath)) --atom \(quoted(storeFolder))/./feed.sqlite", "--atom: '\(storeFolder)/./feed.sqlite' is the store itself"),
            ("feed-sync", "--store \(quoted(storePath)) --html \(quoted(storeFolder))/p --atom \(quoted(storeFolder))/p", "--html and --atom name one file, '\(storeFolder)/p'"),
            ("feed-sync", "--now tomorrow", "--now takes an ISO 8601 time such as 2026-12-30T00:00:00Z, not 'tomorrow'"),
            // An empty time, as the tools refuse it (it read as no --now: the clock's time).
            ("feed-sync", "--now ''", "--now takes an ISO 8601 time such as 2026-12-30T00:00:00Z, not ''"),
            ("feed-show", "--now=", "--now takes an ISO 8601 time such as 2026-12-30T00:00:00Z, not ''"),
            ("feed-comments", "--now '' \(id)", "--now takes an ISO 8601 time such as 2026-12-30T00:00:00Z, not ''"),
            ("feed-sync", "--base-url ftp://h", "base URL 'ftp://h' is not an http or https URL"),
            ("feed-sync", "--base-url 'http://a:secret@h/?q=1'", "base URL 'http://a:***@h/?q=1' has a query or fragment: give the API's base alone (as https://host/path)"),
            ("feed-sync", "--base-url 'http://a:se@cret@h/?q=1'", "base URL 'http://a:***@h/?q=1' has a user name or password holding #, ?, /, @ or a blank: write them %23, %3F, %2F, %40 and %20"),
            ("feed-show", "--base-url 'http://a:se@cret@h/?q=1'", "base URL 'http://a:***@h/?q=1' has a user name or password holding #, ?, /, @ or a blank: write them %23, %3F, %2F, %40 and %20"),
            ("feed-comments", "--base-url 'http://a:se@cret@h/?q=1' \(id)", "base URL 'http://a:***@h/?q=1' has a user name or password holding #, ?, /, @ or a blank: write them %23, %3F, %2F, %40 and %20"),
            ("feed-sync", "--all=yes", "option '--all' takes no value"),
            ("feed-sync", "--bogus", "unknown option '--bogus'"),
            ("feed-sync", "extra", "unknown option 'extra'"),
            ("feed-show", "--limit 0", "--limit takes a whole number from 1 to 1000, not '0'"),
            // A value's control characters shown escaped: one line, nothing for the terminal.
            ("feed-show", #"--base-url "$(printf 'ftp://x/\033]0;PWN\007\nfeed-show: fake')""#,
             #"base URL 'ftp://x/\u001B]0;PWN\u0007\nfeed-show: fake' is not an http or https URL"#),
            ("feed-sync", #"--pages "$(printf '1\r2')""#, #"--pages takes a whole number from 1 to 1000, not '1\r2'"#),
            // C1 (as UTF-8), U+2028 and the bidirectional controls too, whatever the locale (cron's is C).
            ("feed-show", #"--width "$(printf '5\302\233x\342\200\250\342\200\256\342\201\246')""#,
             #"--width takes a whole number from 20 to 1000, not '5\u009Bx\u2028\u202E\u2066'"#),
            // A user name holding an @ (an e-mail address), and a password with a byte that is no UTF-8: masked.
            ("feed-sync", "--base-url 'http://me@example.com:secret@h/?q'", "base URL 'http://me@example.com:***@h/?q' has a user name or password holding #, ?, /, @ or a blank: write them %23, %3F, %2F, %40 and %20"),
            ("feed-show", #"--base-url "$(printf 'http://u:p\351ss@h/?q')""#, "base URL 'http://u:***@h/?q' is not UTF-8"),
            // A password holding a #: masked whole (review: the tool's word showed it as typed).
            ("feed-sync", "--base-url 'https://alice:hunter#2@feed.example.com'",
             "base URL 'https://alice:***@feed.example.com' has a user name or password holding #, ?, /, @ or a blank: write them %23, %3F, %2F, %40 and %20"),
            // The common mistake, a host and port without a scheme: said so (it was "not an http(s) URL without query").
            ("feed-sync", "--base-url 127.0.0.1:8080", "base URL '127.0.0.1:8080' has no scheme: did you mean 'http://127.0.0.1:8080'?"),
            ("feed-show", "--limit", "option '--limit' needs a value"),
            ("feed-show", "--width 5", "--width takes a whole number from 20 to 1000, not '5'"),
            ("feed-show", "--color=sometimes", "--color takes auto, always or never, not 'sometimes'"),
            ("feed-show", "--locale '!!'", "--locale takes a locale name such as pt_BR, el_GR or zh-Hans, not '!!'"),
            ("feed-show", "--now soon", "--now takes an ISO 8601 time such as 2026-12-30T00:00:00Z, not 'soon'"),
            ("feed-show", "--base-url nope", "base URL 'nope' has no scheme: did you mean 'http://nope'?"),
            ("feed-show", "--bogus", "unknown option '--bogus'"),
            ("feed-comments", "not-a-uuid", "IMAGE_ID 'not-a-uuid' is not a UUID"),
            ("feed-comments", "", "no IMAGE_ID: give the UUID of an image"),
            ("feed-comments", "\(id) \(id)", "one IMAGE_ID only, not '\(id)' and '\(id)'"),
            ("feed-comments", "--now=soon \(id)", "--now takes an ISO 8601 time such as 2026-12-30T00:00:00Z, not 'soon'"),
            ("feed-comments", "--locale '!!' \(id)", "--locale takes a locale name such as pt_BR, el_GR or zh-Hans, not '!!'"),
            ("feed-comments", "--width=x \(id)", "--width takes a whole number from 20 to 1000, not 'x'"),
            ("feed-comments", "--base-url", "option '--base-url' needs a value"),
            ("feed-comments", "--bogus \(id)", "unknown option '--bogus'"),
        ]
        for (script, arguments, message) in bad {
            let store = temporaryDirectory(self) + "/cache/feed.sqlite"
            let run = sh(#""$S/\#(script)" \#(arguments)"#, environment: environment("http://127.0.0.1:9", store: store))
            XCTAssertEqual(run.status, 64, "\(script) \(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr, "\(script): \(message)\n\(script): try '\(script) --help'\n", "\(script) \(arguments)")
            XCTAssertEqual(run.out, "", "\(script) \(arguments)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: (store as NSString).deletingLastPathComponent),
                           "\(script) \(arguments) made something at the store path")
        }
    }

    /// No statement of a job script expands two command substitutions: bash
    /// 5.2 parses a substitution's text again as it expands it, and runs a
    /// trap that comes meanwhile with that parse still open, so the trap's
    /// own text fails to parse ("trap: line 2: unexpected EOF while looking
    /// for matching `)'") and the script ends 2 instead of 128+N: feed-sync
    /// sent SIGTERM at a random moment of its first 80 ms ended so 11 times
    /// in 200 (found by the hunt), and 0 in 200 with one substitution at a
    /// time (bash 5.2.15). A single one can still be hit, more rarely.
    func test_jobScripts_expandOneCommandSubstitutionPerStatement() throws {
        for script in ["feed-sync", "feed-show", "feed-comments"] {
            let text = try String(contentsOfFile: AcceptanceTests.scripts + "/" + script, encoding: .utf8)
            let two = try Regex(#"\$\([^(].*\$\([^(]"#)
            var offending: [String] = []
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.drop(while: { $0 == " " }).hasPrefix("#") && line.contains(two) {
                offending.append("\(number + 1): \(line)")
            }
            XCTAssertEqual(offending, [], script)
        }
    }

    /// An empty --base-url is none, as the tools read it: FEED_BASE_URL
    /// is used (the scripts said "no base URL", 64, with it set: found by
    /// the hunt). Here it names a port that refuses: a connectivity error.
    func test_everyScript_takesAnEmptyBaseURLAsNone() {
        for (script, arguments) in [("feed-sync", "--base-url ''"), ("feed-show", "--base-url=''"), ("feed-comments", "--base-url '' \(id)"),
                                    ("feed-sync", "--base-url http://h --base-url ''")] {
            let store = temporaryDirectory(self) + "/cache/feed.sqlite"
            let run = sh(#""$S/\#(script)" \#(arguments)"#, environment: environment("http://127.0.0.1:9", store: store))
            XCTAssertFalse(run.stderr.contains("no base URL"), "\(script): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("127.0.0.1:9"), "\(script): \(run.stderr)")
        }
        // A variable the tools refuse is told as itself, not as a bad base URL.
        for (name, arguments) in [("feed-sync", ""), ("feed-show", ""), ("feed-comments", id)] {
            let store = temporaryDirectory(self) + "/cache/feed.sqlite"
            let run = sh(#"FEED_LOG="$(printf 'x\377')" "$S/\#(name)" \#(arguments)"#, environment: environment("http://127.0.0.1:9", store: store))
            XCTAssertEqual(run.status, 64, run.stderr)
            XCTAssertEqual(run.stderr, "\(name): the environment variable FEED_LOG is not valid UTF-8 (URLs, paths and values must be)\n\(name): try '\(name) --help'\n")
        }
    }

    /// A server that serves the same page whatever is asked after it (its
    /// last item the one asked after): the pages stop there, said once,
    /// not at --pages (49 of 50 requests were that page again: found by
    /// the hunt).
    func test_feedSync_againstAServerThatDoesNotPage_stopsAtTheRepeatedPage() throws {
        let dir = temporaryDirectory(self)
        let server = try PythonServer(#"""
        import http.server, json
        log = open("\#(dir)/requests", "a")
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args): pass
            def do_GET(self):
                log.write(self.path + "\n"); log.flush()
                if self.path.startswith("/v1/feed"):
                    port = self.server.server_address[1]
                    items = [{"id": "2AB2AE66-A4B7-4A16-B374-51BBAC8DB08%d" % i, "image": "http://127.0.0.1:%d/i%d.png" % (port, i)} for i in range(2)]
                    body = json.dumps({"items": items}).encode()
                else:
                    body = b"\x89PNG\r\n\x1a\n"
                self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#, test: self)
        let store = dir + "/feed.sqlite"
        let run = sh(#""$S/feed-sync" --pages 5 --limit 2"#, environment: environment("http://127.0.0.1:\(server.port)", store: store))
        XCTAssertEqual(run.status, 0, run.stderr)
        let pages = try String(contentsOfFile: dir + "/requests", encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("/v1/feed") }
        XCTAssertEqual(pages.count, 2, "\(pages)")
        XCTAssertTrue(run.stderr.contains("feed-sync: page 2 ends with the item asked after"), run.stderr)
        XCTAssertEqual(sh(#"feed-cache load | wc -l"#, environment: ["FEED_STORE": store]).out.trimmingCharacters(in: .whitespacesAndNewlines), "2")
    }

    /// --html or --atom naming a FIFO or a device: refused before anything
    /// is done (the page was renamed over it: as root, /dev/full became a
    /// file), the FIFO left as it was.
    func test_feedSync_pageToAFileThatIsNotRegular_isAUsageError_andLeavesIt() throws {
        let d = temporaryDirectory(self)
        for option in ["--html", "--atom"] {
            let run = sh(#"mkfifo "$D/pipe" && "$S/feed-sync" \#(option) "$D/pipe"; echo "status $?"; test -p "$D/pipe" && echo fifo; rm -f "$D/pipe""#,
                         environment: environment("http://127.0.0.1:9", store: d + "/feed.sqlite").merging(["D": d]) { $1 })
            XCTAssertEqual(run.lines, ["status 64", "fifo"], run.stderr)
            XCTAssertEqual(run.stderr, "feed-sync: \(option): '\(d)/pipe' is not a regular file\nfeed-sync: try 'feed-sync --help'\n")
            XCTAssertFalse(FileManager.default.fileExists(atPath: d + "/feed.sqlite"))
        }
    }

    /// A page or feed file that is a symbolic link (a web server's folder
    /// linked to a file elsewhere) is written through: the file it names is
    /// replaced, and the link stays (it was replaced by the page).
    func test_feedSync_pageThroughASymbolicLink_replacesTheFileItNames() throws {
        let server = try Served(test: self)
        let d = temporaryDirectory(self)
        let run = sh(#"""
            mkdir "$D/site" "$D/www" && : > "$D/site/index.html" && ln -s ../site/index.html "$D/www/index.html" &&
            ln -s ../site/feed.atom "$D/www/feed.atom" &&
            "$S/feed-sync" --html "$D/www/index.html" --atom "$D/www/feed.atom" && test -L "$D/www/index.html" && test -L "$D/www/feed.atom" &&
            grep -c '<html' "$D/site/index.html" && grep -c '<feed' "$D/site/feed.atom"
            """#, environment: environment(server.base, store: d + "/feed.sqlite").merging(["D": d]) { $1 })
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines, ["1", "1"], run.stderr)
    }

    /// Under cron's empty environment without HOME, feed-sync says what is
    /// missing, as a store failure (74); it was bash's own message, status 1.
    func test_feedSync_withoutHOME_saysWhatIsMissing_with74() {
        let d = temporaryDirectory(self)
        for (arguments, message) in [
            ("", "feed-sync: no store: give --store or set FEED_STORE (HOME is not set)\n"),
            (#"--store "$D/feed.sqlite""#, "feed-sync: no folder for the run's lock: set XDG_CACHE_HOME (HOME is not set)\n"),
        ] {
            let run = sh(#"env -i PATH="$PATH" FEED_BIN="$FEED_BIN" "$S/feed-sync" --base-url http://127.0.0.1:9 \#(arguments)"#,
                         environment: ["S": AcceptanceTests.scripts, "FEED_BIN": Products.directory, "D": d])
            XCTAssertEqual(run.status, 74, run.stderr)
            XCTAssertEqual(run.stderr, message)
        }
    }

    /// The base URL's password is on no tool's command line (any user reads
    /// those in /proc): the scripts hand the URL to feed-paginate in its
    /// environment, as the crontab gives it to them. Every tool is run
    /// through a wrapper that writes down its arguments.
    func test_everyScript_putsThePasswordOnNoCommandLine() throws {
        let server = try Served(test: self)
        let d = temporaryDirectory(self)
        let base = server.base.replacingOccurrences(of: "http://", with: "http://alice:S3cret@")
        var env = environment(base, store: d + "/feed.sqlite")
        env["D"] = d
        env["REAL"] = Products.directory
        env["ID"] = id
        let run = sh(#"""
            mkdir "$D/bin" && for t in feed-paginate feed-fetch feed-map comments-map feed-cache reldate feed-view; do
                printf '#!/bin/sh\nprintf "%%s\\n" "$0 $*" >> "%s/argv"\nexec "%s/%s" "$@"\n' "$D" "$REAL" "$t" > "$D/bin/$t" && chmod +x "$D/bin/$t" || exit 1
            done
            export FEED_BIN="$D/bin"
            "$S/feed-sync" --pages 1 && "$S/feed-show" > /dev/null && "$S/feed-comments" "$ID" > /dev/null
            echo "status $?"
            grep -c 'feed-paginate' "$D/argv"; grep -c 'S3cret' "$D/argv"
            """#, environment: env, timeout: 60)
        XCTAssertEqual(run.lines.first, "status 0", run.stderr)
        XCTAssertNotEqual(run.lines.dropFirst().first, "0", "feed-paginate was run through its wrapper")
        XCTAssertEqual(run.lines.last, "0", "no command line held the password: \(run.out)")
    }

    /// Without their tools (cron's PATH, no FEED_BIN, the script not beside
    /// them), the scripts say which tool is missing, with 127, before any
    /// tool checks an option (each option's check failing read as a bad
    /// option, 64), and `--version` says feed-cache is (it was bash's
    /// "command not found"); through a symbolic link to an installed
    /// script, the tools beside the script it names are found, also when
    /// FEED_BIN names a folder without them.
    func test_everyScript_withoutItsTools_says127_andThroughALinkFindsThem() throws {
        let d = temporaryDirectory(self)
        let run = sh(#"""
            mkdir "$D/real" "$D/link" && for s in feed-sync feed-show feed-comments; do cp "$S/$s" "$D/real/$s"; ln -s ../real/$s "$D/link/$s"; done
            for s in feed-sync feed-show feed-comments; do
                operand=""; [ "$s" != feed-comments ] || operand=$ID
                env -i HOME="$D" PATH=/usr/bin:/bin "$D/real/$s" --base-url http://127.0.0.1:9 --now 2026-01-01T00:00:00Z $operand 2>&1; echo "status $?"
                env -i HOME="$D" PATH=/usr/bin:/bin "$D/real/$s" --version 2>&1; echo "status $?"
            done
            for t in feed-paginate feed-fetch feed-map comments-map feed-cache reldate feed-view; do ln -s "$REAL/$t" "$D/real/$t"; done
            env -i HOME="$D" PATH=/usr/bin:/bin "$D/link/feed-sync" --version; echo "status $?"
            for s in feed-sync feed-show feed-comments; do
                env -i HOME="$D" PATH=/usr/bin:/bin FEED_BIN="$D/removed-build" "$D/link/$s" --version; echo "status $?"
            done
            mkdir "$D/other-build" && printf '#!/bin/sh\necho "feed-cache 0.0.0-other"\n' > "$D/other-build/feed-cache" && chmod +x "$D/other-build/feed-cache"
            env -i HOME="$D" PATH=/usr/bin:/bin FEED_BIN="$D/other-build" "$D/link/feed-sync" --version; echo "status $?"
            """#, environment: ["D": d, "S": AcceptanceTests.scripts, "REAL": Products.directory, "ID": id])
        let lines = run.lines
        XCTAssertEqual(lines.count, 22, run.out + run.stderr)
        guard lines.count == 22 else { return }
        // FEED_BIN's tools before those beside the script.
        XCTAssertEqual(lines[20], "feed-sync 0.0.0-other")
        XCTAssertEqual(lines[21], "status 0")
        // A FEED_BIN that holds no tool (a build since removed): the tools
        // beside the script still (it was 127).
        for (index, script) in ["feed-sync", "feed-show", "feed-comments"].enumerated() {
            XCTAssertTrue(lines[14 + 2 * index].hasPrefix("\(script) "), lines[14 + 2 * index])
            XCTAssertEqual(lines[15 + 2 * index], "status 0")
        }
        for (index, script) in ["feed-sync", "feed-show", "feed-comments"].enumerated() {
            XCTAssertEqual(lines[4 * index], "\(script): cannot find feed-paginate in FEED_BIN, beside this script or on PATH (/usr/bin:/bin)")
            XCTAssertEqual(lines[4 * index + 1], "status 127")
            XCTAssertEqual(lines[4 * index + 2], "\(script): cannot find feed-cache in FEED_BIN, beside this script or on PATH (/usr/bin:/bin)")
            XCTAssertEqual(lines[4 * index + 3], "status 127")
        }
        XCTAssertTrue(lines[12].hasPrefix("feed-sync "), lines[12])
        XCTAssertEqual(lines[13], "status 0")
    }

    /// `--version`: the tools' version (one constant), under the script's name.
    func test_everyScript_answersVersionWithTheToolsVersion() {
        let tools = sh("feed-cache --version")
        XCTAssertTrue(tools.out.hasPrefix("feed-cache "), tools.out)
        for script in ["feed-sync", "feed-show", "feed-comments"] {
            let run = sh(#""$S/\#(script)" --version"#, environment: environment(nil, store: temporaryDirectory(self) + "/feed.sqlite"))
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(run.out, tools.out.replacingOccurrences(of: "feed-cache ", with: script + " "))
            XCTAssertEqual(run.stderr, "")
        }
    }

    func test_everyScript_withoutABaseURL_isAUsageError() {
        for (script, arguments) in [("feed-sync", ""), ("feed-show", ""), ("feed-comments", id)] {
            let run = sh(#""$S/\#(script)" \#(arguments)"#, environment: environment(nil, store: temporaryDirectory(self) + "/feed.sqlite"))
            XCTAssertEqual(run.status, 64, script)
            XCTAssertEqual(run.stderr, "\(script): no base URL: give --base-url or set FEED_BASE_URL\n\(script): try '\(script) --help'\n")
            XCTAssertFalse(run.out.contains("Couldn't connect"), run.out)
        }
    }

    /// A message that cannot be written (standard error closed, full, or a
    /// pipe whose reader left) changes neither a script's status nor what
    /// it does: it exited 1 at its first message (141 for the pipe), and
    /// feed-sync stopped before its validation and its HTML page.
    func test_everyScript_withStandardErrorUnwritable_keepsItsStatusAndGoesOn() throws {
        for (script, arguments) in [("feed-sync", ""), ("feed-show", ""), ("feed-comments", id)] {
            let env = environment(nil, store: temporaryDirectory(self) + "/feed.sqlite")
            let run = sh(#"""
                "$S/\#(script)" --bogus \#(arguments) 2>&-; echo "closed $?"
                "$S/\#(script)" --bogus \#(arguments) 2> /dev/full; echo "full $?"
                exec 3>&1
                { sleep 0.3; "$S/\#(script)" --bogus \#(arguments) 2>&1 > /dev/null; echo "pipe $?" >&3; } | :
                """#, environment: env)
            XCTAssertEqual(run.lines, ["closed 64", "full 64", "pipe 64"], script)
        }
        let server = try Served(test: self)
        let store = temporaryDirectory(self) + "/feed.sqlite"
        let page = temporaryDirectory(self) + "/feed.html"
        let env = environment(server.base, store: store).merging(["FEED_LOG": "info", "P": page]) { $1 }
        let sync = sh(#""$S/feed-sync" --html "$P" 2>&-; echo "status $?""#, environment: env)
        XCTAssertEqual(sync.lines.last, "status 0", sync.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: page), "the page is written")
        XCTAssertEqual(sh(#"feed-cache --store "$T" validate"#, environment: ["T": store]).status, 0)
    }

    /// feed-sync writes nothing on standard output: started with it closed
    /// (a supervisor's `>&-`), it syncs and exits 0 (the awk that checks
    /// --wait failed on the closed stream, and every such run was a usage
    /// error, 64, that synced nothing: found by the hunt).
    func test_feedSync_withStandardOutputClosed_syncs() throws {
        let server = try Served(test: self)
        let store = temporaryDirectory(self) + "/feed.sqlite"
        let env = environment(server.base, store: store)
        let sync = sh(#"( "$S/feed-sync" >&- ); echo "status $?""#, environment: env)
        XCTAssertEqual(sync.lines.last, "status 0", sync.stderr)
        XCTAssertEqual(sh(#"feed-cache --store "$T" info"#, environment: ["T": store]).out.contains(#""status":"valid""#), true)
    }

    /// A base URL with an authority no client can use is a usage error,
    /// before anything is done: it was tried, and said as a connection
    /// that failed (69; feed-show showed "Couldn't connect").
    func test_everyScript_withABaseURLNoClientCanUse_isAUsageError() {
        for base in ["http://[::1", "http://a:p@ss@host/", "http://host:99999"] {
            for (script, arguments) in [("feed-sync", ""), ("feed-show", ""), ("feed-comments", id)] {
                let store = temporaryDirectory(self) + "/feed.sqlite"
                let run = sh(#""$S/\#(script)" --base-url "$B" \#(arguments)"#, environment: environment(nil, store: store).merging(["B": base]) { $1 })
                XCTAssertEqual(run.status, 64, "\(script) \(base): \(run.stderr)")
                XCTAssertFalse(run.out.contains("Couldn't connect"), run.out)
                XCTAssertFalse(FileManager.default.fileExists(atPath: store), "nothing done")
            }
        }
        let operand = sh("feed-fetch 'http://[::1/'")
        XCTAssertEqual(operand.status, 64, operand.stderr)
        let line = sh("feed-fetch", stdin: "http://host:99999/\n")
        XCTAssertEqual(line.status, 65, line.stderr)
        XCTAssertEqual(line.records().first?["error"] as? String, "invalid_data")
    }

    /// An empty feed (a newly deployed API) on an empty store: nothing to
    /// cache and no image to fetch, a quiet success; the images' step said
    /// "some images could not be stored" (66) on every run.
    func test_feedSync_emptyFeedOnAnEmptyStore_succeedsQuietly() throws {
        let d = temporaryDirectory(self)
        try FileManager.default.createDirectory(atPath: d + "/api", withIntermediateDirectories: true)
        try #"{"items":[]}"#.write(toFile: d + "/api/feed.json", atomically: true, encoding: .utf8)
        let server = try Served([d + "/api"], test: self)
        let run = sh(#""$S/feed-sync""#, environment: environment(server.base, store: d + "/feed.sqlite"))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
    }

    /// An item whose image is no http(s) URL (javascript:, data:, ftp:) is
    /// kept, and no request is made for it: missing-images asked for it,
    /// feed-fetch refused the request, and feed-sync ended 65 on every run
    /// (found by the hunt), where essential-feed(7) promises 0.
    func test_feedSync_withImagesOfOtherSchemes_fetchesTheOthers_andSucceedsEveryRun() throws {
        let d = temporaryDirectory(self)
        try FileManager.default.createDirectory(atPath: d + "/api/images", withIntermediateDirectories: true)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: d + "/api/images/good.png"))
        try #"""
            {"items":[{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","image":"{{base}}/good.png"},
            {"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","image":"javascript:alert(1)"},
            {"id":"166FCDD7-C9F4-420A-B2D6-CE2EAFA3D82F","image":"data:image/png;base64,AAAA"},
            {"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":"ftp://h/a.png"}]}
            """#.write(toFile: d + "/api/feed.json", atomically: true, encoding: .utf8)
        let server = try Served([d + "/api"], test: self)
        let env = environment(server.base, store: d + "/feed.sqlite")
        for run in 1...2 {
            let sync = sh(#""$S/feed-sync""#, environment: env)
            XCTAssertEqual(sync.status, 0, "run \(run): \(sync.stderr)")
        }
        let missing = sh(#"feed-cache load | FEED_LOG=debug feed-cache missing-images"#, environment: env.merging(["FEED_STORE": d + "/feed.sqlite"]) { $1 })
        XCTAssertEqual(missing.out, "", "the good image is cached, the others are never asked for")
        XCTAssertTrue(missing.stderr.contains("not an http(s) URL a client can use: javascript:alert(1)"), missing.stderr)
        XCTAssertEqual(sh(#"feed-cache --store "$T" load | wc -l"#, environment: ["T": d + "/feed.sqlite"]).out.trimmingCharacters(in: .whitespaces), "4\n")
    }

    /// A full TMPDIR (a real tmpfs of 64 KiB, filled): the scripts name it,
    /// once, and end 74. Its files are the tools' standard output, and a
    /// tool said only "cannot write to standard output". Full at the start,
    /// or filled by the run (one page of memory left: the run's first file
    /// takes it).
    func test_feedSyncAndFeedShow_withAFullTemporaryFolder_sayItIsFull() throws {
        let d = temporaryDirectory(self)
        let tmp = try tinyTemporaryFolder(in: d, self)
        let server = try Served(test: self)
        let env = environment(server.base, store: d + "/feed.sqlite").merging(["TMPDIR": tmp, "T": tmp]) { $1 }
        // feed-show with the folder filled by the run: the save fails (its
        // SQLite files go to TMPDIR), and the file that carries its status
        // to the end cannot be written: said at once (the run ended 0 with
        // no word); the status is the view's, as ever.
        let cases: [(Int, String, Int32, String)] = [(0, "feed-sync", 74, ""), (0, "feed-show", 74, ""), (4, "feed-sync", 74, ""),
                     (4, "feed-show", 0, ": the feed shown was not saved in the cache (status 74)")]
        for (left, script, status, more) in cases {
            _ = sh(#"rm -f "$T/fill" "$D/feed.sqlite"; head -c \#((64 - left) * 1024) /dev/zero > "$T/fill" 2> /dev/null"#, environment: env.merging(["D": d]) { $1 })
            let run = sh(#""$S/\#(script)" --limit 10 > /dev/null"#, environment: env)
            XCTAssertEqual(run.status, status, "\(script), \(left) KiB left: \(run.stderr)")
            let said = run.stderr.components(separatedBy: "\n").filter { $0 == "\(script): the temporary folder in \(tmp) takes no more data (full?)\(more)" }
            XCTAssertEqual(said.count, 1, "\(script), \(left) KiB left: \(run.stderr)")
        }
    }

    /// Under a low open-file limit: bash reads the script on the highest
    /// descriptor the limit leaves, which the run's lock took under
    /// `ulimit -n 10` (bash: "error reading input file", 2, the temporary
    /// folder left). Now the lock says there is no descriptor for it (71)
    /// and leaves nothing; with a few more, the run goes through.
    func test_feedSync_underALowOpenFileLimit_saysSo_orRuns() throws {
        let d = temporaryDirectory(self)
        let tmp = d + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let server = try Served(test: self)
        let env = environment(server.base, store: d + "/feed.sqlite").merging(["TMPDIR": tmp, "XDG_CACHE_HOME": d + "/cache"]) { $1 }
        let low = sh(#"ulimit -n 10 && "$S/feed-sync" --limit 4"#, environment: env)
        XCTAssertEqual(low.status, 71, low.stderr)
        XCTAssertEqual(low.stderr, "feed-sync: the open-file limit (ulimit -n 10) leaves no descriptor for the run's lock\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp), [])
        let enough = sh(#"ulimit -n 16 && "$S/feed-sync" --limit 4"#, environment: env)
        XCTAssertEqual(enough.status, 0, enough.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp), [])
        // A lock that cannot be opened for another reason (a folder in its
        // place) is that, under a low limit too: not the limit's 71.
        let locks = d + "/cache/essential-feed"
        let lock = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: locks).first)
        try FileManager.default.removeItem(atPath: locks + "/" + lock)
        try FileManager.default.createDirectory(atPath: locks + "/" + lock, withIntermediateDirectories: false)
        let folder = sh(#"ulimit -n 32 && "$S/feed-sync" --limit 4"#, environment: env)
        XCTAssertEqual(folder.status, 74, folder.stderr)
        XCTAssertEqual(folder.stderr, "feed-sync: cannot open the run's lock \(locks)/\(lock)\n")
    }

    /// One store, one lock, however its path is spelt: through a folder
    /// that does not exist yet (the save makes it), the run took a lock of
    /// its own, and two runs could save into one store at once.
    func test_feedSync_aStoreSpeltThroughAFolderNotMadeYet_takesTheStoresOneLock() throws {
        let d = temporaryDirectory(self), home = temporaryDirectory(self)
        let server = try Served(test: self)
        var env = environment(server.base, store: d + "/feed.sqlite").merging(["HOME": home, "XDG_CACHE_HOME": "", "D": d]) { $1 }
        env["FEED_STORE"] = nil
        for spelling in [#""$D/feed.sqlite""#, #""$D/nodir/../feed.sqlite""#, #""$D/./feed.sqlite""#] {
            let run = sh(#""$S/feed-sync" --limit 4 --store \#(spelling)"#, environment: env)
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home + "/.cache/essential-feed").count, 1)
    }

    /// An expired cache counts no item (it once said "-N new", the expired
    /// items the save dropped taken off). The line says the cache's size,
    /// not what is new ("0 new" for a page that brought new items and
    /// dropped as many; found by the hunt).
    func test_feedSync_afterTheCacheExpired_countsThePagesItemsAsNew() throws {
        let server = try Served(test: self)
        let env = environment(server.base, store: temporaryDirectory(self) + "/feed.sqlite").merging(["FEED_LOG": "info"]) { $1 }
        let first = sh(#""$S/feed-sync" --limit 4 --now 2026-01-01T00:00:00Z"#, environment: env)
        XCTAssertTrue(first.stderr.contains("feed-sync: page 1: 3 items; the cache went from 0 to 3 items\n"), first.stderr)
        // FEED_LOG in any case, as the tools read it: the script's own lines were missing at INFO.
        let again = sh(#"FEED_LOG=INFO "$S/feed-sync" --limit 4 --now 2026-01-01T00:01:00Z"#, environment: env)
        XCTAssertTrue(again.stderr.contains("feed-sync: page 1: 3 items; the cache went from 3 to 3 items\n"), again.stderr)
        let expired = sh(#""$S/feed-sync" --limit 4 --now 2026-01-20T00:00:00Z"#, environment: env)
        XCTAssertEqual(expired.status, 0, expired.stderr)
        XCTAssertTrue(expired.stderr.contains("feed-sync: page 1: 3 items; the cache went from 0 to 3 items\n"), expired.stderr)
    }

    func test_everyScript_takesOptionValuesInBothForms() throws {
        let server = try Served(test: self)
        let store = temporaryDirectory(self) + "/feed.sqlite"
        let env = environment(nil, store: store)
        let sync = sh(#""$S/feed-sync" --base-url="$B" --pages=2 --limit 2 --parallel=2 --wait=1"#, environment: env.merging(["B": server.base]) { $1 })
        XCTAssertEqual(sync.status, 0, sync.stderr)
        XCTAssertEqual(sh("feed-cache info", environment: env).records().first?["items"] as? Int, 3)
        let show = sh(#""$S/feed-show" --base-url "$B" --limit=2 --width=40 --color=never --locale=pt_BR"#, environment: env.merging(["B": server.base]) { $1 })
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertEqual(show.lines.first, "Meu Feed")
        let comments = sh(#""$S/feed-comments" --base-url="$B" --now=2020-05-21T11:24:59Z --locale pt_BR \#(id)"#,
                          environment: env.merging(["B": server.base]) { $1 })
        XCTAssertEqual(comments.status, 0, comments.stderr)
        XCTAssertTrue(comments.out.contains("há 1 dia"), comments.out)
    }

    /// `--now` reaches the cache's expiry too: a feed saved on 1 November is
    /// shown offline on the 3rd, and not on 30 December.
    func test_feedShow_now_appliesToTheCachesExpiry() throws {
        let server = try Served(test: self)
        let env = environment(server.base, store: temporaryDirectory(self) + "/feed.sqlite")
        XCTAssertEqual(sh(#""$S/feed-sync" --now 2026-11-01T00:00:00Z"#, environment: env).status, 0)
        server.stop()
        let fresh = sh(#""$S/feed-show" --now 2026-11-03T00:00:00Z"#, environment: env)
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        XCTAssertTrue(fresh.out.contains("/image-0"), fresh.out)
        let stale = sh(#""$S/feed-show" --now 2026-12-30T00:00:00Z"#, environment: env)
        XCTAssertEqual(stale.status, 69)
        XCTAssertFalse(stale.out.contains("/image-0"), stale.out)
        XCTAssertTrue(stale.out.contains("Couldn't connect to server"), stale.out)
    }

    /// A tool's diagnostic is never hidden: offline, feed-fetch says why.
    func test_scripts_showTheToolsDiagnostics() {
        let env = environment("http://127.0.0.1:9", store: temporaryDirectory(self) + "/feed.sqlite")
        for (script, arguments) in [("feed-show", ""), ("feed-comments", id)] {
            let run = sh(#""$S/\#(script)" \#(arguments)"#, environment: env)
            XCTAssertEqual(run.status, 69, script)
            XCTAssertTrue(run.stderr.contains("feed-fetch: ") && run.stderr.contains("connection refused"), "\(script): \(run.stderr)")
            XCTAssertTrue(run.out.contains("Couldn't connect to server"), run.out)
        }
    }
}
