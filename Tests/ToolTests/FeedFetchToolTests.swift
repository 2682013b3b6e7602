import Foundation
import XCTest

/// feed-fetch against a real feed-serve on 127.0.0.1, in real pipes.
final class FeedFetchToolTests: XCTestCase {
    let first = "2AB2AE66-A4B7-4A16-B374-51BBAC8DB086"
    let second = "A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A"

    func test_fetchThenMap_deliversTheFirstFeedPage() throws {
        let server = try Served(test: self)
        let run = sh("feed-fetch --base-url \"$B\" --limit 2 | feed-map", environment: ["B": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().compactMap { $0["id"] as? String }, [first, second])
        XCTAssertEqual(run.records().first?["url"] as? String, server.base + "/image-0")
        XCTAssertEqual(run.stderr, "")
    }

    /// https:// to a port that speaks plain HTTP (CPython's http.server):
    /// the TLS library's complaint comes as the documented TLS failure.
    /// A host that is not ASCII (an IDN, as a feed's image URL may name
    /// one), in the C locale cron gives: libcurl hands it to libidn2 in the
    /// locale's encoding, and every such URL was "not a valid URL" (69;
    /// found by the hunt). (libcurl takes any *.localhost for 127.0.0.1.)
    func test_fetch_ofAnInternationalizedHost_inTheCLocale_reachesIt() throws {
        let server = try Served(test: self)
        let url = server.base.replacingOccurrences(of: "127.0.0.1", with: "\u{2603}.localhost") + "/v1/feed?limit=1"
        let run = sh(#"env -i "$(command -v feed-fetch)" "$U""#, environment: ["U": url])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().first?["url"] as? String, url)
        XCTAssertEqual(run.records().first?["status"] as? Int, 200)
    }

    func test_fetch_httpsToAPlainHTTPServer_isATLSFailure() throws {
        let server = try PythonServer(PythonServer.files, test: self)
        let run = sh("feed-fetch --timeout 5 https://127.0.0.1:\(server.port)/v1/feed")
        XCTAssertEqual(run.status, 69, run.stderr)
        XCTAssertEqual(run.records().first?["error"] as? String, "connectivity")
        XCTAssertTrue((run.records().first?["message"] as? String)?.hasPrefix("TLS failure: ") ?? false, run.out)
        XCTAssertTrue(run.stderr.contains(": TLS failure: "), run.stderr)
    }

    /// A message about a huge value (a URL of 9 MB) shows its start and its
    /// end, not all of it: one bad input line cannot write megabytes to a
    /// cron job's log. The record keeps the whole URL.
    func test_messages_showAHugeValueCut_theRecordWhole() throws {
        let run = sh(#"""
            python3 -c 'print("http://127.0.0.1:9/" + "a" * 9000000 + "END")' | feed-fetch
            """#)
        XCTAssertEqual(run.status, 69, String(run.stderr.prefix(300)))
        let message = run.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(message.count, 1)
        XCTAssertLessThan(message[0].utf8.count, 10_000)
        XCTAssertTrue(message[0].hasPrefix("feed-fetch: http://127.0.0.1:9/aaaa"), String(message[0].prefix(100)))
        XCTAssertTrue(message[0].contains("aaa…[8993"), String(message[0].prefix(5000)))
        XCTAssertTrue(message[0].contains(" bytes not shown]…aaa"), String(message[0].prefix(5000)))
        XCTAssertTrue(message[0].hasSuffix("aaaEND: not a valid URL"), String(message[0].suffix(100)))
        XCTAssertTrue(run.out.contains(String(repeating: "a", count: 9_000_000) + "END\""), "the record holds the whole URL")
    }

    func test_messages_countInTheSingularForOne() throws {
        let server = try Served(test: self)
        let run = sh(#"feed-fetch --max-body 1 "$B/v1/feed?limit=1""#, environment: ["B": server.base])
        XCTAssertTrue(run.stderr.contains("response body larger than 1 byte\n"), run.stderr)
        let save = sh(#"feed-fetch "$B/v1/feed?limit=1" | feed-map | FEED_LOG=info feed-cache --store "$T/feed.sqlite" save"#,
                      environment: ["B": server.base, "T": temporaryDirectory(self)])
        XCTAssertTrue(save.stderr.contains("save: 1 item saved to "), save.stderr)
    }

    func test_fetch_takesTheBaseURLFromTheEnvironment() throws {
        let server = try Served(test: self)
        let run = sh("feed-fetch", environment: ["FEED_BASE_URL": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().first?["url"] as? String, server.base + "/v1/feed?limit=10")
        XCTAssertEqual(run.records().first?["status"] as? Int, 200)
    }

    /// Two URLs equal only as Unicode compares strings (café in NFC and
    /// NFD) are two requests: the second was taken for the first, and got
    /// its response under the first's URL (found by the hunt).
    func test_fetch_URLsEqualOnlyAsUnicodeComparesThem_areTwoRequests() throws {
        let heads = Heads()
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.append(head)
                guard connection.respond(String(head.split(separator: " ")[1])) else { return }
            }
        }
        addTeardownBlock { server.stop() }
        let nfc = server.base + "/caf\u{E9}.png", nfd = server.base + "/cafe\u{301}.png"
        let run = sh(#"feed-fetch "$A" "$B""#, environment: ["A": nfc, "B": nfd])
        XCTAssertEqual(run.status, 0, run.stderr)
        let urls = run.records().compactMap { ($0["url"] as? String).map { Array($0.utf8) } }
        XCTAssertEqual(urls, [Array(nfc.utf8), Array(nfd.utf8)])
        XCTAssertEqual(heads.all.count, 2, "\(heads.all)")
        let bodies = run.records().compactMap { $0["body_base64"] as? String }
        XCTAssertEqual(Set(bodies).count, 2, "each its own response: \(bodies)")
    }

    /// A URL in an image URL's query (an image proxy's `src=`) is part of
    /// it, its user-info too: the response's `url` is the URL asked for,
    /// and each image's data is kept under its own. Masked, two images that
    /// differed there were one, and the second was shown with the first's
    /// data (found by the hunt).
    func test_imagesWhoseQueriesHoldURLsWithPasswords_areEachFetchedAndStoredAsThemselves() throws {
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                guard connection.respond(String(head.split(separator: " ")[1])) else { return }
            }
        }
        addTeardownBlock { server.stop() }
        let a = server.base + "/img?src=http://u:tokenA@cdn/a.png", b = server.base + "/img?src=http://u:tokenB@cdn/a.png"
        let store = temporaryDirectory(self) + "/feed.sqlite"
        let run = sh(#"feed-fetch "$A" "$B" | tee "$T.out" | feed-cache --store "$T" save-images && feed-cache --store "$T" image "$A" && echo && feed-cache --store "$T" image "$B""#,
                     environment: ["A": a, "B": b, "T": store])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.out, "/img?src=http://u:tokenA@cdn/a.png\n/img?src=http://u:tokenB@cdn/a.png")
        let urls = (try? String(contentsOfFile: store + ".out", encoding: .utf8))?.contains(#""url":"\#(b)""#)
        XCTAssertEqual(urls, true, "the URL asked for")
    }

    func test_fetch_keepsTheBaseURLsPath() throws {
        let server = try Served(test: self)
        let run = sh("feed-fetch --base-url \"$B/_fault/delay=1/\" --limit 1 | feed-map", environment: ["B": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().count, 1)
    }

    func test_fetchComments_thenMap_deliversTheComment() throws {
        let server = try Served(test: self)
        let run = sh("feed-fetch --base-url \"$B\" --comments \(first.lowercased()) | comments-map", environment: ["B": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().first?["message"] as? String, "a message")
        XCTAssertEqual(run.records().first?["created_at"] as? String, "2020-05-20T11:24:59Z")
    }

    func test_fetch_writesResponsesInInputOrderWhateverTheirSpeed() throws {
        let server = try Served(test: self)
        let b = server.base
        let run = sh("feed-fetch --parallel 4 \"$B/_fault/delay=400/v1/feed\" \"$B/image-0\" \"$B/_fault/delay=100/image-1\" \"$B/image-2\"",
                     environment: ["B": b])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().compactMap { $0["url"] as? String },
                       [b + "/_fault/delay=400/v1/feed", b + "/image-0", b + "/_fault/delay=100/image-1", b + "/image-2"])
    }

    func test_fetch_embedsJSONBodiesAndBase64sOtherBodies() throws {
        let server = try Served(test: self)
        let run = sh("feed-fetch \"$B/v1/feed?limit=1\" \"$B/image-0\"", environment: ["B": server.base])
        let records = run.records()
        XCTAssertNotNil(records.first?["body"] as? [String: Any])
        XCTAssertNil(records.first?["body_base64"])
        XCTAssertNotNil(records.last?["body_base64"] as? String)
        XCTAssertNil(records.last?["body"])
    }

    func test_fetch_anyStatusIsAResponseNotAnError() throws {
        let server = try Served(test: self)
        let run = sh("feed-fetch \"$B/_fault/status=500/v1/feed\" \"$B/nothing-here\"", environment: ["B": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().compactMap { $0["status"] as? Int }, [500, 404])
        let mapped = sh("feed-fetch \"$B/_fault/status=500/v1/feed\" | feed-map", environment: ["B": server.base])
        XCTAssertEqual(mapped.status, 65)
        XCTAssertEqual(mapped.records().first?["error"] as? String, "invalid_data")
    }

    func test_fetch_refusedConnectionIsAConnectivityErrorRecordAndExit69() throws {
        let server = try Served(test: self)
        server.stop()
        let run = sh("feed-fetch --base-url \"$B\" | feed-map", environment: ["B": server.base])
        XCTAssertEqual(run.status, 69)
        XCTAssertEqual(run.records().first?["error"] as? String, "connectivity")
        XCTAssertEqual(run.records().first?["url"] as? String, server.base + "/v1/feed?limit=10")
        XCTAssertTrue(run.stderr.contains("feed-fetch: ") && run.stderr.contains("connection refused"), run.stderr)
    }

    func test_fetch_timeoutIsAConnectivityError() throws {
        let server = try Served(test: self)
        let run = sh("feed-fetch --timeout 0.5 \"$B/_fault/delay=5000/v1/feed\"", environment: ["B": server.base])
        XCTAssertEqual(run.status, 69)
        XCTAssertTrue((run.records().first?["message"] as? String)?.contains("timed out") ?? false, run.out)
    }

    /// --timeout counts from a request's sending, not from its line: a
    /// request waiting for one of the --parallel places is not sent yet
    /// (as curl --max-time with --parallel). Three of 0.6 s, one at a
    /// time, under a bound of 1 s: all answered, in 1.8 s or more.
    func test_fetch_timeout_startsWhenTheRequestIsSent_notWhileItWaitsForItsTurn() throws {
        let server = try Served(test: self)
        let started = Date()
        let run = sh(#"feed-fetch --parallel 1 --timeout 1 "$B/_fault/delay=600/v1/feed?limit=1" "$B/_fault/delay=600/v1/feed?limit=2" "$B/_fault/delay=600/v1/feed?limit=3""#,
                     environment: ["B": server.base], timeout: 30)
        XCTAssertEqual(run.status, 0, run.out + run.stderr)
        XCTAssertEqual(run.records().map { $0["status"] as? Int }, [200, 200, 200])
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1.8)
    }

    func test_fetch_truncatedBodyIsAConnectivityErrorNeverAResponse() throws {
        let server = try Served(test: self)
        let run = sh("feed-fetch \"$B/_fault/truncate=5/v1/feed\"", environment: ["B": server.base])
        XCTAssertEqual(run.status, 69)
        XCTAssertEqual(run.records().count, 1)
        XCTAssertEqual(run.records().first?["error"] as? String, "connectivity")
    }

    /// A host libcurl refuses is a URL no client can use (65), as the man
    /// page says, not a connection that failed (69, on every run of a
    /// sync whose feed named it: found by the hunt); as an operand, a usage error.
    func test_fetch_aHostLibcurlRefuses_isInvalidData_notConnectivity() {
        let record = sh("feed-fetch", stdin: #"{"url":"http://cdn!example/a.png"}"# + "\n")
        XCTAssertEqual(record.status, 65, record.stderr)
        XCTAssertEqual(record.records().first?["error"] as? String, "invalid_data")
        XCTAssertEqual(sh("feed-fetch 'http://cdn!example/a.png'").status, 64)
    }

    func test_fetch_readsURLLinesAndRecordsAndPassesErrorRecordsThrough() throws {
        let server = try Served(test: self)
        let b = server.base
        let input = "\(b)/image-0\n{\"url\":\"\(b)/image-1\"}\n{\"error\":\"not_found\",\"message\":\"m\"}\nnot a url\n"
        let run = sh("feed-fetch", stdin: input)
        XCTAssertEqual(run.status, 66, run.stderr)
        let records = run.records()
        XCTAssertEqual(records.count, 4)
        XCTAssertEqual(records[0]["url"] as? String, b + "/image-0")
        XCTAssertEqual(records[1]["url"] as? String, b + "/image-1")
        XCTAssertEqual(records[2]["error"] as? String, "not_found")
        XCTAssertEqual(records[3]["error"] as? String, "invalid_data")
        XCTAssertTrue(run.stderr.contains("stdin:4"), run.stderr)
    }

    func test_fetch_requestsAURLInFlightOnlyOnceButAnswersEachAsking() throws {
        let server = try Served(test: self)
        let url = server.base + "/_fault/delay=300/image-0"
        let run = sh("feed-fetch --parallel 4 \"$U\" \"$U\" \"$U\"", environment: ["U": url, "FEED_LOG": "debug"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().count, 3)
        XCTAssertEqual(run.stderr.components(separatedBy: "GET \(url): started").count - 1, 1, run.stderr)
    }

    /// A closed standard input gives nothing, as a terminal: the first page,
    /// without a word. With `-`, reading it is the error it is.
    func test_fetch_withStandardInputClosed_fetchesTheFirstPage() throws {
        let server = try Served(test: self)
        let run = sh("feed-fetch --limit 2 <&-", environment: ["FEED_BASE_URL": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
        XCTAssertEqual(run.records().first?["url"] as? String, server.base + "/v1/feed?limit=2")
        let dash = sh("feed-fetch - <&-", environment: ["FEED_BASE_URL": server.base])
        XCTAssertEqual(dash.status, 74, dash.stderr)
        XCTAssertEqual(dash.stderr, "feed-fetch: cannot read standard input: Bad file descriptor\n")
    }

    /// The first page is for an input with no line at all (blank lines
    /// aside): a line refused (its newline missing, or past the line limit)
    /// is a line, and its error record is all the output.
    func test_fetch_aRefusedLineIsALine_noFirstPage() throws {
        let server = try Served(test: self)
        let environment = ["FEED_BASE_URL": server.base]
        let truncated = sh("printf 'http://127.0.0.1:9/x' | feed-fetch", environment: environment)
        XCTAssertEqual(truncated.status, 65, truncated.stderr)
        XCTAssertEqual(truncated.records().count, 1, truncated.out)
        XCTAssertEqual(truncated.records().first?["error"] as? String, "invalid_data", truncated.out)
        let long = sh("head -c 5000 /dev/zero | tr '\\0' a | FEED_MAX_LINE=4096 feed-fetch", environment: environment)
        XCTAssertEqual(long.status, 65, long.stderr)
        XCTAssertEqual(long.records().count, 1, long.out)
        let blank = sh("printf '\\n  \\n' | feed-fetch --limit 2", environment: environment)
        XCTAssertEqual(blank.status, 0, blank.stderr)
        XCTAssertEqual(blank.records().first?["url"] as? String, server.base + "/v1/feed?limit=2", "blank lines are no line")
    }

    /// A URL whose bytes are not UTF-8 is refused, never fetched as another:
    /// each bad byte became U+FFFD, and /a%EF%BF%BDb was asked for (found
    /// by the hunt). So is any argument that is not, in every tool (a
    /// store path was made with other bytes than given).
    func test_fetch_aURLNotUTF8_isRefused_neverFetchedAsAnother() throws {
        // Port 9 refuses: a fetch would be a connectivity error (69).
        let line = sh(#"printf 'http://127.0.0.1:9/a\377b\n' | feed-fetch"#)
        XCTAssertEqual(line.status, 65, line.stderr)
        XCTAssertEqual(line.records().first?["error"] as? String, "invalid_data", line.out)
        XCTAssertTrue(line.stderr.contains("not valid UTF-8"), line.stderr)
        let operand = sh(#"feed-fetch "http://127.0.0.1:9/a$(printf '\377')b""#)
        XCTAssertEqual(operand.status, 64, operand.stderr)
        XCTAssertTrue(operand.stderr.contains("an argument is not valid UTF-8"), operand.stderr)
        // In a password, which the tools hide from the process list: read before it is hidden (review: it was sent as U+FFFD).
        let password = sh(#"feed-paginate --base-url "http://u:p$(printf '\377')w@127.0.0.1:9" < /dev/null"#)
        XCTAssertEqual(password.status, 64, password.out)
        XCTAssertTrue(password.stderr.contains("an argument is not valid UTF-8"), password.stderr)
        let dir = temporaryDirectory(self)
        let store = sh(#"feed-cache --store "$D/c$(printf '\377').sqlite" info; echo "status $?"; ls -A "$D""#, environment: ["D": dir])
        XCTAssertTrue(store.stderr.contains("an argument is not valid UTF-8"), store.stderr)
        XCTAssertEqual(store.lines.filter { !$0.hasPrefix("{") }, ["status 64"], "no file made")
        // Nor a variable the tools read as a path or URL (a store was made
        // as c\u{FFFD}.json, another URL fetched): others are no matter.
        let variables = sh(#"""
            FEED_STORE="$D/c$(printf '\377').json" feed-cache save --allow-empty < /dev/null; echo "status $?"
            FEED_BASE_URL="http://127.0.0.1:9/a$(printf '\377')b" feed-paginate; echo "status $?"
            OTHER="$(printf '\377')" feed-paginate --base-url http://h; echo "status $?"
            ls -A "$D"
            """#, environment: ["D": dir])
        XCTAssertEqual(variables.lines.filter { !$0.hasPrefix("{") }, ["status 64", "status 64", "status 0"], variables.out)
        XCTAssertTrue(variables.stderr.contains("the environment variable FEED_STORE is not valid UTF-8"), variables.stderr)
        XCTAssertTrue(variables.stderr.contains("the environment variable FEED_BASE_URL is not valid UTF-8"), variables.stderr)
    }

    /// A spool that cannot be written to the end (a full disk, a file size
    /// limit: bash's 1,500 KiB, past the first MiB the spool writes) is
    /// found before the record starts: one store error record naming the
    /// URL, never half a record.
    func test_fetch_aSpoolFailingPartway_isAStoreRecord_neverHalfARecord() throws {
        let server = try Served(test: self)
        let run = sh(#"""
            bash -c 'ulimit -f 1500; TMPDIR="$T" feed-fetch "$B/_fault/big=3000000/v1/feed"; echo "status $?" >&2' | cat
            """#, environment: ["B": server.base, "T": temporaryDirectory(self)])
        XCTAssertTrue(run.stderr.hasSuffix("status 74\n"), run.stderr)
        XCTAssertEqual(run.lines.count, 1, String(run.out.prefix(300)))
        let record = run.records().first
        XCTAssertEqual(record?["error"] as? String, "store", String(run.out.prefix(300)))
        XCTAssertEqual(record?["url"] as? String, server.base + "/_fault/big=3000000/v1/feed")
    }

    func test_fetch_dashReadsOnlyStandardInputAndEmptyInputFetchesNothing() throws {
        let server = try Served(test: self)
        let run = sh("feed-fetch - < /dev/null", environment: ["FEED_BASE_URL": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.out, "")
    }

    func test_fetch_withNothingToFetchIsAUsageError() {
        let run = sh("feed-fetch < /dev/null")
        XCTAssertEqual(run.status, 64)
        XCTAssertEqual(run.records().first?["error"] as? String, "usage")
    }

    func test_fetch_rejectsBadOptionValues() {
        for args in ["--parallel 0", "--timeout -1", "--comments nope --base-url http://127.0.0.1:1", "ftp://x/y", "--base-url nope"] {
            XCTAssertEqual(sh("feed-fetch \(args) < /dev/null").status, 64, args)
        }
    }

    func test_fetch_logsEachRequestWithFeedLogDebug() throws {
        let server = try Served(test: self)
        let run = sh("feed-fetch \"$B/image-0\" > /dev/null", environment: ["B": server.base, "FEED_LOG": "debug"])
        XCTAssertTrue(run.stderr.contains("feed-fetch: GET \(server.base)/image-0: started"), run.stderr)
        XCTAssertTrue(run.stderr.contains("feed-fetch: GET \(server.base)/image-0: 200, "), run.stderr)
        XCTAssertTrue(run.stderr.contains(" ms"), run.stderr)
    }

    func test_fetch_quietWithExit0WhenDownstreamCloses() throws {
        let server = try Served(test: self)
        let dir = temporaryDirectory(self)
        let urls = (0..<200).map { "\(server.base)/image-\($0 % 3)?n=\($0)" }.joined(separator: "\n") + "\n"
        try urls.write(toFile: dir + "/urls", atomically: true, encoding: .utf8)
        let run = sh(#"{ feed-fetch < "$T/urls"; echo "$?" > "$T/status"; } | head -1 > /dev/null; cat "$T/status""#,
                     environment: ["T": dir])
        XCTAssertEqual(run.out, "0\n")
        XCTAssertEqual(run.stderr, "")
    }

    func test_fetch_writeErrorExits74() throws {
        let server = try Served(test: self)
        let run = sh("feed-fetch \"$B/image-0\" > /dev/full", environment: ["B": server.base])
        XCTAssertEqual(run.status, 74)
        XCTAssertTrue(run.stderr.contains("feed-fetch: cannot write"), run.stderr)
    }

    func test_fetch_SIGTERMCancelsInFlightWritesNoHalfRecordAndExits143() throws {
        let server = try Served(test: self)
        let dir = temporaryDirectory(self)
        let run = sh(#"feed-fetch "$B/image-0" "$B/_fault/hang/v1/feed" > "$T/out" & pid=$!; sleep 1; kill -TERM $pid; wait $pid; echo "status $?"; cat "$T/out""#,
                     environment: ["B": server.base, "T": dir], timeout: 20)
        XCTAssertEqual(run.lines.first, "status 143", run.out + run.stderr)
        let written = run.lines.dropFirst()
        XCTAssertEqual(written.count, 1, "the finished first response is written, nothing of the hung one")
        XCTAssertTrue(run.out.hasSuffix("\n"))
    }

    /// SIGUSR1, SIGUSR2, SIGALRM and SIGXCPU (the kernel's at a CPU time
    /// limit's soft bound) end a process by default: one that came
    /// while a tool was writing a record bigger than the pipe into a reader
    /// that had not read yet ended it inside the write, and the reader got
    /// a cut line. They are taken as SIGTERM is: the record under way is
    /// written whole, nothing else, and the status is 128 + the signal.
    /// One ignored at the start stays ignored.
    func test_fetch_signalEndingAProcessByDefault_whileARecordIsHalfWritten_endsAfterItWhole() throws {
        let server = try Served(["--builtin", "demo", "--big", "3000000"], test: self)
        let dir = temporaryDirectory(self)
        for (signal, status) in [("USR1", 138), ("USR2", 140), ("ALRM", 142), ("XCPU", 152)] {
            let run = sh(#"""
                rm -f "$T/pid" "$T/out"
                ( { feed-fetch "$B/v1/feed?limit=12" "$B/v1/feed?limit=11" & echo $! > "$T/pid"; wait $!; echo "status $?" > "$T/status"; } \
                    | { sleep 1; cat > "$T/out"; } ) &
                while [ ! -s "$T/pid" ]; do sleep 0.01; done
                sleep 0.4; kill -$G "$(cat "$T/pid")"; wait
                cat "$T/status"
                if [ -s "$T/out" ] && [ "$(tail -c 1 "$T/out" | od -An -tx1 | tr -d ' ')" != 0a ]; then echo cut; fi
                grep -qv '^{.*}$' "$T/out" && echo cut
                wc -l < "$T/out"
                """#, environment: ["B": server.base, "T": dir, "G": signal], timeout: 30)
            XCTAssertEqual(run.lines, ["status \(status)", "1"], "SIG\(signal): \(run.stderr)")
        }
        // A request that hangs for 1.5 s, then fails: 69, not 138.
        let ignored = sh(#"trap '' USR1; feed-fetch --timeout 1.5 "$B/_fault/hang/v1/feed" > /dev/null 2>&1 & pid=$!; sleep 0.5; kill -USR1 $pid; wait $pid; echo $?"#,
                         environment: ["B": server.base], timeout: 30)
        XCTAssertEqual(ignored.out, "69\n", ignored.stderr)
    }

    /// SIGTERM, SIGINT and SIGHUP at 30 moments while feed-fetch streams
    /// records of 3 MB to a fast reader: every line written is whole (a
    /// record's tail went out before its lock was let go), and the status
    /// is 0 or 128 + the signal.
    func test_fetch_signalAtAnyMomentWhileStreamingBigRecords_leavesOnlyWholeLines() throws {
        let server = try Served(["--builtin", "demo", "--big", "3000000"], test: self)
        let dir = temporaryDirectory(self)
        let urls = (1...40).map { quoted("\(server.base)/v1/feed?limit=\($0 % 12 + 1)&n=\($0)") }.joined(separator: " ")
        var cut = 0, interrupted = 0
        let runs = Int(ProcessInfo.processInfo.environment["FEED_STRESS_SIGNAL_RUNS"] ?? "") ?? 30
        for step in 0..<runs {
            let signal = ["TERM", "INT", "HUP"][step % 3]
            let delay = String(format: "%.3f", 0.01 + Double(step % 30) * 0.01 + Double(step / 30) * 0.0037)
            let run = sh("""
                mkfifo "$T/f\(step)"; cat "$T/f\(step)" > "$T/out" & reader=$!
                feed-fetch --parallel 4 \(urls) > "$T/f\(step)" & pid=$!
                sleep \(delay); kill -\(signal) $pid 2> /dev/null; wait $pid; echo $?; wait $reader
                # Whole: empty, or ending in a newline with every line an object.
                if [ -s "$T/out" ] && [ "$(tail -c 1 "$T/out" | od -An -tx1 | tr -d ' ')" != 0a ]; then echo cut; fi
                grep -qv '^{.*}$' "$T/out" && echo cut
                rm -f "$T/out" "$T/f\(step)"
                """, environment: ["T": dir], timeout: 60)
            let status = run.lines.first ?? ""
            XCTAssertTrue(["0", "143", "130", "129"].contains(status), "SIG\(signal) at \(delay) s: status \(status) \(run.stderr)")
            if status != "0" { interrupted += 1 }
            if run.lines.contains("cut") { cut += 1 }
        }
        StressSettings.current.report("signals tool=feed-fetch runs=\(runs) interrupted=\(interrupted) half_records=\(cut)")
        XCTAssertEqual(cut, 0, "runs that left a cut record")
        XCTAssertGreaterThan(interrupted, runs / 3, "the signals came while records were streamed")
    }

    /// A signal while a record of 10 MB goes to a reader that reads it
    /// slowly (about 1.6 MB/s, 64 KiB at a time) but never stops: the
    /// record is finished, some 6 s after the signal, not cut 2 s after it.
    /// Only a reader that takes nothing for 2 s is given up on.
    func test_fetch_signalWhileABigRecordGoesToASlowButMovingReader_finishesTheRecord() throws {
        let server = try Served(test: self)
        let dir = temporaryDirectory(self)
        let run = sh(#"""
            mkfifo "$T/f"
            python3 -c 'import sys, time
            out = open(sys.argv[1], "wb", buffering=0)
            while True:
                data = sys.stdin.buffer.read1(65536)
                if not data: break
                out.write(data); time.sleep(0.04)' "$T/out" < "$T/f" & reader=$!
            feed-fetch --max-body 64M "$B/_fault/big=10000000/v1/feed?limit=1" "$B/_fault/big=10000000/v1/feed?limit=2" > "$T/f" & pid=$!
            # The signal once the record has begun to arrive.
            while [ ! -s "$T/out" ]; do sleep 0.05; done
            kill -TERM $pid; wait $pid; echo $?; wait $reader
            tail -c 1 "$T/out" | od -An -tx1 | tr -d ' '
            wc -l < "$T/out"
            """#, environment: ["B": server.base, "T": dir], timeout: 60)
        XCTAssertEqual(run.lines.first, "143", run.stderr)
        XCTAssertEqual(run.lines.dropFirst().first, "0a", "the record was finished: \(run.out)")
        XCTAssertEqual(run.lines.last?.trimmingCharacters(in: .whitespaces), "1", "the next record, ready too, was not begun")
    }

    /// A big compact body's record after records that filled the output's
    /// buffer to its brim, appended to a file (`>>`, which sendfile
    /// refuses): the record is read and written instead, whole. Once, the
    /// buffer drained by the record's start made the refusal look like a
    /// failure after the first byte: status 74, the record cut.
    func test_fetch_appendingABigRecordAfterAFullBuffer_writesItWhole() throws {
        let server = try Served(test: self)
        let dir = temporaryDirectory(self)
        let run = sh(#"""
            # A small record 40 bytes short of the buffer's 65536, then the big
            # one's start, in one batch: the small one answers late, after the
            # big one is in. (The probe's URL is as long as the small one's.)
            overhead=$(( $(feed-fetch "$B/_fault/delay=100,big=10000/v1/feed?limit=1" | wc -c) - 10000 ))
            small="$B/_fault/delay=500,big=$(( 65536 - 40 - overhead ))/v1/feed?limit=1"
            printf 'before\n' > "$T/out"
            feed-fetch --max-body 64M "$small" "$B/_fault/big=3000000/v1/feed?limit=2" >> "$T/out"; echo "status $?"
            feed-fetch --max-body 64M "$small" "$B/_fault/big=3000000/v1/feed?limit=2" > "$T/plain"
            { printf 'before\n'; cat "$T/plain"; } | cmp - "$T/out" && echo same
            head -c 65496 "$T/plain" | tail -c 1 | od -An -tx1 | tr -d ' '
            """#, environment: ["B": server.base, "T": dir], timeout: 60)
        XCTAssertEqual(run.lines, ["status 0", "same", "0a"], run.stderr)
    }

    /// Under a low open-file limit, --parallel is lowered to what the limit
    /// leaves room for (said at info), so no request fails for want of a
    /// descriptor: "Too many open files" is not a network failure.
    func test_fetch_underALowOpenFileLimit_lowersItsParallelism_andFetchesEveryURL() throws {
        let server = try Served(test: self)
        let urls = (0..<200).map { "\(server.base)/image-\($0 % 3)?n=\($0)" }.joined(separator: "\n") + "\n"
        let run = sh("ulimit -n 20 && FEED_LOG=info feed-fetch --parallel 64 -", stdin: urls)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().filter { $0["status"] as? Int == 200 }.count, 200)
        XCTAssertTrue(run.stderr.contains("feed-fetch: --parallel 64 lowered to 1: the open-file limit is 20 (ulimit -n)"), run.stderr)
        XCTAssertFalse(run.stderr.contains("Too many open files"), run.stderr)
    }

    /// Descriptors the limit leaves room for but the process does not have
    /// (inherited ones fill the table): a request that finds none waits for
    /// another to end and goes again, so every URL is fetched; "Too many
    /// open files" never becomes a connectivity record.
    func test_fetch_withDescriptorsTakenByInheritedFiles_sendsARequestAgainWhenAnotherEnds() throws {
        // Each answer 100 ms late, so that 16 requests are in flight at once
        // and need a connection each: answered at once, a few kept
        // connections served them all, and the shortage (1 run in 10) never came.
        let server = try Served(["--builtin", "acceptance", "--delay", "100"], test: self)
        let directory = temporaryDirectory(self)
        let urls = (0..<40).map { "\(server.base)/image-\($0 % 3)?n=\($0)" }.joined(separator: "\n") + "\n"
        try urls.write(toFile: directory + "/urls", atomically: true, encoding: .utf8)
        // 64 allowed, 58 taken before feed-fetch starts: --parallel 16 is within the limit's room, not the table's.
        // bash: dash opens no descriptor above 9.
        let script = #"""
            exec < "$D/urls" > "$D/out" 2> "$D/err"
            ulimit -n 64
            (for ((fd = 3; fd < 58; fd++)); do eval "exec $fd</dev/null"; done; FEED_LOG=debug exec feed-fetch --parallel 16 -)
            echo $? > "$D/status"
            """#
        let run = sh(#"bash -c "$SCRIPT""#, environment: ["D": directory, "SCRIPT": script])
        XCTAssertEqual(run.status, 0, run.stderr)
        let out = try String(contentsOfFile: directory + "/out", encoding: .utf8)
        let err = try String(contentsOfFile: directory + "/err", encoding: .utf8)
        XCTAssertEqual(try String(contentsOfFile: directory + "/status", encoding: .utf8), "0\n", err)
        XCTAssertEqual(out.split(separator: "\n").filter { $0.contains(#""status":200"#) }.count, 40, err)
        XCTAssertTrue(err.contains("sent again when another request ends"), "the shortage was met and waited out")
        XCTAssertFalse(out.contains(#""error""#), out)
    }

    /// The same shortage met by a body past 1 MiB, whose spool needs a
    /// temporary file, is the same failure: with no other request to wait
    /// for, a `resource` error record, status 71, never a `store` one (74:
    /// the disk is not at fault).
    func test_fetch_aSpoolWithoutADescriptor_isAResourceError_notAStoreOne() throws {
        let server = try Served(test: self)
        let directory = temporaryDirectory(self)
        // 64 allowed, 60 taken before feed-fetch starts: the signals'
        // signalfd, libcurl's own pair and the connection take the rest,
        // and the spool finds none.
        let script = #"""
            exec > "$D/out" 2> "$D/err" < /dev/null
            ulimit -n 64
            (for ((fd = 3; fd < 60; fd++)); do eval "exec $fd</dev/null"; done
             exec feed-fetch "$B/_fault/big=1500000/v1/feed")
            echo $? > "$D/status"
            """#
        let run = sh(#"bash -c "$SCRIPT""#, environment: ["D": directory, "SCRIPT": script, "B": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        let out = try String(contentsOfFile: directory + "/out", encoding: .utf8)
        let err = try String(contentsOfFile: directory + "/err", encoding: .utf8)
        XCTAssertEqual(try String(contentsOfFile: directory + "/status", encoding: .utf8), "71\n", err)
        XCTAssertTrue(out.hasPrefix(#"{"error":"resource","message":"out of open files, with no other request in flight (ulimit -n 64): cannot create a temporary file in "#), String(out.prefix(300)))
        XCTAssertEqual(err.split(separator: "\n").count, 1, err)
    }

    /// Out of descriptors with no other request to wait for (the limit
    /// lowered under the running process, as a supervisor may): each request
    /// is a `resource` error record, said once on standard error, status 71;
    /// neither the resolver nor libdispatch's timers bring the process down.
    func test_fetch_outOfDescriptorsWithNoRequestToWaitFor_isAResourceError71_saidOnce() throws {
        guard sh("command -v prlimit").status == 0 else { throw XCTSkip("prlimit (util-linux) is not installed") }
        let server = try Served(test: self)
        let directory = temporaryDirectory(self)
        let localhost = server.base.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let run = sh(#"""
            { echo "$B/image-1"; while [ ! -e "$D/limited" ]; do sleep 0.05; done; echo "$L/image-2"; echo "$L/image-1?again"; } |
                feed-fetch --parallel 4 - > "$D/out" 2> "$D/err" &
            # The pipeline's last command: feed-fetch itself (by name, pgrep
            # found another test's feed-fetch when the tool tests ran at once).
            fetch=$!
            i=0; while [ ! -s "$D/out" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
            prlimit --pid "$fetch" --nofile=3:3 && touch "$D/limited"
            wait $fetch; echo $?
            """#, environment: ["D": directory, "B": server.base, "L": localhost], timeout: 60)
        XCTAssertEqual(run.out, "71\n", run.stderr)
        let lines = try String(contentsOfFile: directory + "/out", encoding: .utf8).split(separator: "\n")
        let err = try String(contentsOfFile: directory + "/err", encoding: .utf8)
        XCTAssertEqual(lines.count, 3, err)
        XCTAssertTrue(lines.first?.contains(#""status":200"#) == true)
        for line in lines.dropFirst() {
            XCTAssertTrue(line.hasPrefix(#"{"error":"resource","message":"out of open files, with no other request in flight (ulimit -n 3): "#), String(line))
        }
        XCTAssertEqual(err.split(separator: "\n").count, 1, err)
        XCTAssertTrue(err.contains("Too many open files"), err)
    }

    /// Out of descriptors while idle keep-alive connections hold some: they
    /// are closed and the connection is made once more, so a request to
    /// another server still goes out (with no other request to wait for).
    func test_fetch_outOfDescriptors_closesIdleKeepAliveConnections_andConnectsOnceMore() throws {
        guard sh("command -v prlimit").status == 0 else { throw XCTSkip("prlimit (util-linux) is not installed") }
        let first = try Served(test: self)
        let second = try Served(test: self)
        let directory = temporaryDirectory(self)
        let run = sh(#"""
            { echo "$A/image-1"; while [ ! -e "$D/limited" ]; do sleep 0.05; done; echo "$B/image-2"; } |
                feed-fetch --parallel 4 - > "$D/out" 2> "$D/err" &
            fetch=$!
            i=0; while [ ! -s "$D/out" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
            # The lowest descriptor number free: the limit, so that no new one can be had.
            n=0; while [ -e "/proc/$fetch/fd/$n" ]; do n=$((n + 1)); done
            prlimit --pid "$fetch" --nofile="$n:$n" && touch "$D/limited"
            wait $fetch; echo $?
            """#, environment: ["D": directory, "A": first.base, "B": second.base], timeout: 60)
        let err = (try? String(contentsOfFile: directory + "/err", encoding: .utf8)) ?? ""
        XCTAssertEqual(run.out, "0\n", run.stderr + err)
        let lines = try String(contentsOfFile: directory + "/out", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines.allSatisfy { $0.contains(#""status":200"#) }, lines.map { String($0.prefix(120)) }.joined(separator: "\n"))
    }
}
