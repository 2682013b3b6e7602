import Foundation
import XCTest

/// feed-map and comments-map as built executables in real pipes.
final class MapperToolTests: XCTestCase {
    let feedResponse = #"{"url":"http://h/v1/feed?limit=10","status":200,"body":{"items":[{"id":"2ab2ae66-a4b7-4a16-b374-51bbac8db086","description":"a description","location":"a location","image":"http://h/image-0"},{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","image":"http://h/image-1"}]}}"#
    let commentsResponse = #"{"url":"http://h/c","status":201,"body":{"items":[{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"a message","created_at":"2020-05-20T11:24:59+0000","author":{"username":"a username"}}]}}"#

    /// A tool gives the pipes it reads and writes a capacity of 1 MiB
    /// (Linux's default is 64 KiB), so that the stages of a long pipeline
    /// hand each other large pieces: feed-map in a pipeline of its own,
    /// each pipe's capacity read once it has ended (the pipes outlive it:
    /// the parent keeps an end of each).
    func test_tools_widenThePipesTheyReadAndWrite() {
        #if os(Linux)
        let script = """
            import fcntl, os, subprocess, sys
            r_in, w_in = os.pipe()
            r_out, w_out = os.pipe()
            before = fcntl.fcntl(w_in, 1032)
            tool = subprocess.Popen([sys.argv[1]], stdin=r_in, stdout=w_out)
            os.write(w_in, sys.argv[2].encode() + b"\\n")
            os.close(w_in)
            tool.wait()
            print(before, fcntl.fcntl(r_in, 1032), fcntl.fcntl(w_out, 1032), tool.returncode, len(os.read(r_out, 1 << 20)) > 0)
            """
        let run = sh("python3 -c \(quoted(script)) \(quoted(Products.path("feed-map"))) \(quoted(feedResponse))")
        XCTAssertEqual(run.out, "65536 1048576 1048576 0 True\n", run.stderr)
        #endif
    }

    /// A response whose line has come whole is mapped before the mapper
    /// waits for more input: a slow pipe shows each record as soon as it
    /// exists. The records of a response, and an error record after it,
    /// waited for 16 KiB more input or its end.
    func test_mappers_writeAWholeResponsesRecords_beforeWaitingForMoreInput() {
        let error = #"{"error":"connectivity","message":"refused","url":"http://h/x"}"#
        for (mapper, response) in [("feed-map", feedResponse), ("comments-map", commentsResponse)] {
            // The time the error record came out, and the time the input ended (4 s later).
            let run = sh(#"""
                { printf '%s\n%s\n' "$R" "$E"; sleep 4; } | \#(mapper) 2> /dev/null |
                    { grep -m 1 -q '"error":"connectivity"' && date +%s%N; exec cat > /dev/null; }
                date +%s%N
                """#, environment: ["R": response, "E": error], timeout: 20)
            let stamps = run.lines.compactMap { Int($0) }
            XCTAssertEqual(stamps.count, 2, "\(mapper): \(run.out) \(run.stderr)")
            if stamps.count == 2 {
                XCTAssertGreaterThan(stamps[1] - stamps[0], 2_000_000_000, "\(mapper): the records came at once, not at the end of the input")
            }
        }
    }

    /// `curl … | feed-map` without --raw: the mapper says once what to do.
    func test_mappers_onABarePayload_hintAtRawOnce() {
        let pretty = "{\n  \"items\": [\n    {\"id\": \"x\"}\n  ]\n}\n"
        for (mapper, input) in [("feed-map", pretty), ("comments-map", pretty), ("feed-map", #"{"items":[]}"# + "\n")] {
            let run = sh(mapper, stdin: input)
            XCTAssertEqual(run.status, 65)
            XCTAssertEqual(run.stderr.components(separatedBy: "\(mapper): hint: use --raw for a bare payload (e.g. from curl)\n").count, 2,
                           "one hint: \(run.stderr)")
            XCTAssertFalse(run.out.contains("hint"), "the hint is for a person: standard error only")
        }
        let records = sh("feed-map", stdin: #"{"url":"http://h","status":500,"body":{}}"# + "\nnot json\n")
        XCTAssertFalse(records.stderr.contains("hint"), "response records get no hint: \(records.stderr)")
    }

    /// The tools a step apart: records already mapped into a mapper
    /// (`feed-cache load | feed-map`), or responses into a tool that takes
    /// mapped records (`feed-fetch | feed-cache save`, `| feed-view`). Each
    /// says what the record is and what to do; the mapper's hint was "use
    /// --raw", which then failed otherwise (found by the stranger's review).
    func test_aStepLeftOutOrOneTooMany_saysWhatTheRecordIs() {
        let image = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://h/a"}"# + "\n"
        for mapper in ["feed-map", "comments-map"] {
            let run = sh(mapper, stdin: image)
            XCTAssertEqual(run.status, 65)
            XCTAssertEqual(run.stderr, "\(mapper): stdin:1: not a response record: no status (a feed image or comment record, as a mapper writes) (http://h/a)\n")
        }
        let response = #"{"url":"http://h/v1/feed","status":200,"body":{"items":[]}}"# + "\n"
        let store = temporaryDirectory(self) + "/feed.sqlite"
        let save = sh(#"feed-cache --store "$S" save"#, stdin: response, environment: ["S": store])
        XCTAssertEqual(save.status, 65)
        XCTAssertEqual(save.stderr, "feed-cache: stdin:1: not a feed image record: a response record (put feed-map before this tool)\n")
        let view = sh("feed-view", stdin: response)
        XCTAssertEqual(view.status, 65)
        XCTAssertTrue(view.stderr.hasPrefix("feed-view: stdin:1: not a feed image, image comment or error record: a response record (put feed-map"), view.stderr)
    }

    /// What curl writes of a page (one compact object, no newline after it)
    /// is said to be an API body, not a truncated line; a response record
    /// cut before its newline is still a truncated line.
    func test_mappers_onAnAPIBodyWithoutItsNewline_sayUseRaw() throws {
        let server = try Served(test: self)
        for mapper in ["feed-map", "comments-map"] {
            let run = sh(#"curl -s "$B/v1/feed?limit=2" | \#(mapper)"#, environment: ["B": server.base])
            XCTAssertEqual(run.status, 65)
            XCTAssertEqual(run.stderr, "\(mapper): stdin:1: input looks like an API body: use --raw\n")
            XCTAssertEqual(run.out, #"{"error":"invalid_data","message":"stdin:1: input looks like an API body: use --raw"}"# + "\n")
        }
        let cut = sh("feed-map", stdin: #"{"url":"http://h","status":200,"body":{"items":[]}}"#)
        XCTAssertEqual(cut.stderr, "feed-map: stdin:1: truncated line (no newline at end of input)\n")
    }

    /// The first thing a new user may see: a filter run with a terminal on
    /// standard input says so, then its usage on lines of their own.
    func test_filters_withATerminalOnStandardInput_printTheirUsageOnRealLinesAndExit64() {
        for filter in ["feed-map", "comments-map", "feed-paginate --base-url http://h", "reldate", "feed-view", "feed-cache save", "feed-cache fallback"] {
            let name = String(filter.prefix { $0 != " " })
            let run = sh("script -qec \(quoted(filter)) /dev/null; echo \"status $?\"", timeout: 20)
            let lines = run.out.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.first, "\(name): standard input is a terminal; pipe records in", filter)
            XCTAssertTrue(lines.dropFirst().first?.hasPrefix("usage: \(name)") ?? false, "\(filter): \(lines)")
            XCTAssertTrue(lines.contains("\(name): try '\(name) --help'"), "\(filter): \(lines)")
            XCTAssertFalse(run.out.contains("\\n"), "no escaped line breaks: \(run.out)")
            XCTAssertEqual(lines.last, "status 64", filter)
        }
    }

    func test_feedMap_writesOneFeedImageRecordPerItemInOrder() {
        let run = sh("feed-map", stdin: feedResponse + "\n")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines, [
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"a description","location":"a location","url":"http://h/image-0"}"#,
            #"{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","url":"http://h/image-1"}"#,
        ])
        XCTAssertEqual(run.stderr, "")
    }

    func test_feedMap_rejectsNon200ResponseWithOneInvalidDataRecordAndExit65() {
        let run = sh("feed-map", stdin: #"{"url":"http://h/x","status":201,"body":{"items":[]}}"# + "\n")
        XCTAssertEqual(run.status, 65)
        let records = run.records()
        XCTAssertEqual(records.count, 1)
        XCTAssertEqual(records.first?["error"] as? String, "invalid_data")
        XCTAssertEqual(records.first?["url"] as? String, "http://h/x")
        XCTAssertTrue(run.stderr.hasPrefix("feed-map: "), run.stderr)
    }

    func test_feedMap_writesNoPartialOutputForAResponseWithOneBadItem() {
        let bad = #"{"status":200,"body":{"items":[{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","image":"http://h/0"},{"id":"nope","image":"http://h/1"}]}}"#
        let run = sh("feed-map", stdin: bad + "\n")
        XCTAssertEqual(run.status, 65)
        XCTAssertEqual(run.records().count, 1)
        XCTAssertTrue(run.out.contains("feed item 2: id is not a UUID"), run.out)
    }

    func test_feedMap_passesErrorRecordsThroughUnchangedAndExitsWithTheirStatus() {
        let error = #"{"error":"connectivity","message":"connection refused","url":"http://h/v1/feed"}"#
        let run = sh("feed-map", stdin: error + "\n" + feedResponse + "\n")
        XCTAssertEqual(run.status, 69)
        XCTAssertEqual(run.lines.first, error)
        XCTAssertEqual(run.lines.count, 3)
        XCTAssertEqual(run.stderr, "", "a passed-through error is not reported again")
    }

    /// An error record of at most 1 MiB passes whole; one byte more, as a
    /// short record, whatever its length (1.1 MB and 2 MB passed whole:
    /// only a line a refill had crossed was held to the limit).
    func test_mappers_passAnErrorRecordOfAtMost1MiBWhole_aLongerOneAsAShortRecord() {
        let frame = #"{"error":"connectivity","message":"","url":"http://h/x"}"#.utf8.count
        for mapper in ["feed-map", "comments-map"] {
            for (length, whole) in [(1 << 20, true), ((1 << 20) + 1, false), (1_100_000, false), (2_000_000, false)] {
                let message = String(repeating: "x", count: length - frame)
                let error = #"{"error":"connectivity","message":""# + message + #"","url":"http://h/x"}"#
                let run = sh(mapper, stdin: error + "\n")
                XCTAssertEqual(run.status, 69, "\(mapper) \(length)")
                XCTAssertEqual(run.lines.count, 1, "\(mapper) \(length)")
                if whole {
                    XCTAssertEqual(run.lines.first, error, "\(mapper) \(length)")
                } else {
                    XCTAssertLessThan(run.out.utf8.count, 1_000, "\(mapper) \(length)")
                    XCTAssertTrue(run.out.contains("too long to pass through"), "\(mapper) \(length): \(run.out.prefix(200))")
                }
            }
        }
    }

    /// The mappers stream a response line of any length: FEED_MAX_LINE,
    /// the other tools' limit, is not theirs (essential-feed(7)).
    func test_mappers_readLinesLongerThanFEED_MAX_LINE() {
        let description = String(repeating: "d", count: 3_000)
        let response = feedResponse.replacingOccurrences(of: "a description", with: description)
        let run = sh("feed-map", stdin: response + "\n", environment: ["FEED_MAX_LINE": "1k"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.out.contains(description), run.out.prefix(200).description)
        let comments = sh("comments-map", stdin: commentsResponse.replacingOccurrences(of: "a message", with: description) + "\n",
                          environment: ["FEED_MAX_LINE": "1k"])
        XCTAssertEqual(comments.status, 0, comments.stderr)
    }

    /// A page record shows a password in its URL as `***`, as every
    /// printed record does (a response record made by hand may have one).
    func test_feedMap_pageRecord_masksThePasswordOfItsURL() {
        let run = sh("feed-map", stdin: #"{"url":"http://alice:secret@h/v1/feed","status":200,"etag":"x","body":{"items":[]}}"# + "\n")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines, [#"{"page":"http://alice:***@h/v1/feed","status":200,"etag":"x"}"#])
        // Its own user-info's only, as feed-fetch's response (a URL in its
        // query is part of it: masked, the page no longer matched the
        // response it came from, found in review).
        let nested = sh("feed-map", stdin: #"{"url":"http://h/v1/feed?src=http://u:p@cdn/x","status":200,"etag":"x","body":{"items":[]}}"# + "\n")
        XCTAssertEqual(nested.lines, [#"{"page":"http://h/v1/feed?src=http://u:p@cdn/x","status":200,"etag":"x"}"#])
    }

    func test_feedMap_firstFailureDecidesTheExitStatus() {
        let run = sh("feed-map", stdin: "not json\n" + #"{"error":"store","message":"m"}"# + "\n")
        XCTAssertEqual(run.status, 65)
    }

    func test_feedMap_namesTheLineNumberOfAnInvalidLine() {
        let run = sh("feed-map", stdin: feedResponse + "\n\n" + "{\"status\": 200, oops}\n")
        XCTAssertEqual(run.status, 65)
        XCTAssertTrue(run.stderr.contains("feed-map: stdin:3: invalid JSON at byte"), run.stderr)
        XCTAssertEqual(run.lines.count, 3)
    }

    func test_feedMap_reportsATruncatedLastLine() {
        let run = sh("feed-map", stdin: feedResponse)
        XCTAssertEqual(run.status, 65)
        XCTAssertTrue(run.stderr.contains("stdin:1: truncated line"), run.stderr)
        XCTAssertEqual(run.records().first?["error"] as? String, "invalid_data")
    }

    func test_feedMap_reportsALastLineCutInsideItsValueAsTruncated() {
        let run = sh("feed-map", stdin: feedResponse + "\n" + String(feedResponse.prefix(25)))
        XCTAssertEqual(run.status, 65)
        XCTAssertEqual(run.stderr, "feed-map: stdin:2: truncated line (no newline at end of input)\n")
    }

    func test_feedMap_toleratesCRLFAndBlankLines() {
        let run = sh("feed-map", stdin: "\r\n" + feedResponse + "\r\n\n")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines.count, 2)
    }

    func test_feedMap_rawReadsABarePayload() {
        let run = sh(#"printf '%s' '{"items":[{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","image":"http://h/0"}]}' | feed-map --raw"#)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines, [#"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://h/0"}"#])
    }

    func test_feedMap_exitStatusIsZeroWhenDownstreamCloses() throws {
        let dir = temporaryDirectory(self)
        let input = String(repeating: feedResponse + "\n", count: 5000)
        try input.write(toFile: dir + "/in", atomically: true, encoding: .utf8)
        let run = sh(#"set -e; { feed-map < "$T/in"; echo "$?" > "$T/status"; } | head -1 > /dev/null; cat "$T/status""#,
                     environment: ["T": dir])
        XCTAssertEqual(run.out, "0\n")
        XCTAssertEqual(run.stderr, "")
    }

    func test_feedMap_writeErrorOtherThanClosedPipeExits74() {
        let run = sh("feed-map > /dev/full", stdin: feedResponse + "\n")
        XCTAssertEqual(run.status, 74)
        XCTAssertTrue(run.stderr.contains("feed-map: cannot write to standard output"), run.stderr)
    }

    func test_feedMap_terminalOnStandardInputGivesUsageAndExit64() {
        let run = sh(#"script -qec "feed-map" /dev/null < /dev/null"#, timeout: 20)
        XCTAssertEqual(run.status, 64, run.out + run.stderr)
        XCTAssertTrue((run.out + run.stderr).contains("usage: feed-map"), run.out + run.stderr)
    }

    func test_feedMap_unknownOptionIsAUsageError() {
        let run = sh("feed-map --bogus < /dev/null")
        XCTAssertEqual(run.status, 64)
        XCTAssertEqual(run.records().first?["error"] as? String, "usage")
        XCTAssertTrue(run.stderr.contains("unknown option '--bogus'"), run.stderr)
    }

    func test_everyMapper_answersHelpAndVersion() {
        for tool in ["feed-map", "comments-map"] {
            let help = sh("\(tool) --help")
            XCTAssertEqual(help.status, 0)
            XCTAssertTrue(help.out.hasPrefix("usage: \(tool)"), help.out)
            let version = sh("\(tool) --version")
            XCTAssertEqual(version.status, 0)
            XCTAssertTrue(version.out.hasPrefix("\(tool) "), version.out)
        }
    }

    func test_commentsMap_writesCommentRecordsWithUTCDates() {
        let run = sh("comments-map", stdin: commentsResponse + "\n")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines, [
            #"{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"a message","created_at":"2020-05-20T11:24:59Z","username":"a username"}"#,
        ])
    }

    func test_commentsMap_rejects300() {
        let run = sh("comments-map", stdin: #"{"status":300,"body":{"items":[]}}"# + "\n")
        XCTAssertEqual(run.status, 65)
        XCTAssertEqual(run.records().first?["error"] as? String, "invalid_data")
    }

    func test_pipe_bodyBase64JSONIsMappedToo() {
        let body = Data(#"{"items":[{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","image":"http://h/0"}]}"#.utf8).base64EncodedString()
        let run = sh("feed-map", stdin: #"{"status":200,"body_base64":""# + body + #""}"# + "\n")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines.count, 1)
    }
}

extension MapperToolTests {
    /// A response whose records pass the 4 MiB held in memory: they spill to
    /// a temporary file and still come out whole, once, in order; an invalid
    /// one of the same size yields nothing.
    func test_feedMap_largeResponsesSpillAndStayAllOrNothing() throws {
        func response(_ count: Int, badLast: Bool) -> String {
            let items = (0..<count).map { i -> String in
                let id = badLast && i == count - 1 ? "nope" : String(format: "%08X-0000-4000-8000-%012X", i, i)
                return #"{"id":"\#(id)","description":"a description long enough to fill the buffer quickly, item \#(i)","image":"http://h/\#(i)"}"#
            }
            return #"{"status":200,"body":{"items":["# + items.joined(separator: ",") + "]}}\n"
        }
        let dir = temporaryDirectory(self)
        let input = response(40_000, badLast: false) + response(40_000, badLast: true) + response(2, badLast: false)
        try input.write(toFile: dir + "/in", atomically: true, encoding: .utf8)
        let run = sh(#"TMPDIR="$T" feed-map < "$T/in" > "$T/out"; echo $?; wc -l < "$T/out"; head -1 "$T/out"; tail -2 "$T/out" | head -1; ls "$T""#,
                     environment: ["T": dir], timeout: 120)
        let lines = run.lines
        XCTAssertEqual(lines.first, "65", run.out + run.stderr)
        XCTAssertEqual(lines.dropFirst().first?.trimmingCharacters(in: .whitespaces), "40003")
        XCTAssertEqual(lines.dropFirst(2).first, #"{"id":"00000000-0000-4000-8000-000000000000","description":"a description long enough to fill the buffer quickly, item 0","url":"http://h/0"}"#)
        XCTAssertEqual(lines.dropFirst(3).first, lines.dropFirst(2).first, "the small response follows the error record: \(run.out)")
        XCTAssertEqual(Array(lines.dropFirst(4)).sorted(), ["in", "out"], "the temporary file is gone")
        XCTAssertTrue(run.stderr.contains("stdin:2: feed item 40000: id is not a UUID"), run.stderr)
    }
}

extension MapperToolTests {
    /// A signal never leaves the spool's temporary file behind: feed-map
    /// signalled between making it and unlinking it left `feed-map.XXXXXX`
    /// in $TMPDIR (1 run in 70 of a SIGTERM 8-11 ms after it started). The
    /// file has no name now; where it must have one (a file system without
    /// O_TMPFILE), the signal waits for it to be unlinked. Nor a SIGKILL,
    /// which no process can wait out (an empty file was left behind). (Run
    /// on the debug build: it pauses there.)
    func test_spool_SIGTERMOrSIGKILLWhileTheSpoolFileIsMade_leavesNothingInTMPDIR() throws {
        guard ProcessInfo.processInfo.environment["FEED_BIN"] == nil else {
            throw XCTSkip("the pause as the spool's file is made is in debug builds only")
        }
        let d = temporaryDirectory(self)
        try FileManager.default.createDirectory(atPath: d + "/tmp", withIntermediateDirectories: true)
        let items = (0..<40_000).map { #"{"id":"2AB2AE66-A4B7-4A16-B374-\#(String(format: "%012X", $0))","image":"http://h/\#($0)"}"# }
        try (#"{"url":"http://h/v1/feed","status":200,"body":{"items":["# + items.joined(separator: ",") + "]}}\n")
            .write(toFile: d + "/in", atomically: true, encoding: .utf8)
        for (signal, named, status) in [("TERM", false, 143), ("TERM", true, 143), ("KILL", false, 137)] {
            let run = sh(#"""
                rm -f "$D/tmp/made."*
                # The pause's files in $TMPDIR, the one folder feed-map may write.
                TMPDIR="$D/tmp" FEED_TEST_PAUSE_SPOOL_FILE="$D/tmp/made" feed-map < "$D/in" > /dev/null & pid=$!
                while [ ! -e "$D/tmp/made.ready" ]; do sleep 0.01; done
                kill -$SIGNAL $pid; sleep 0.3; touch "$D/tmp/made.go"; wait $pid; echo "status $?"
                ls -A "$D/tmp" | grep -v '^made[.]'
                """#, environment: ["D": d, "SIGNAL": signal].merging(named ? ["FEED_TEST_NO_O_TMPFILE": "1"] : [:]) { $1 }, timeout: 30)
            XCTAssertEqual(run.out, "status \(status)\n", "\(signal), named \(named): \(run.stderr)")
        }
    }
}
