import Foundation
import XCTest

/// Conditional requests against a real nginx (ETag and Last-Modified on,
/// as nginx has them for files): response records carry the validators,
/// request records carry them back, and a 304 is a response record without
/// a body.
final class ConditionalToolTests: XCTestCase {
    private let items = (0..<30).map { i in
        #"{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC5\#(String(format: "%04X", i))","description":"a description \#(i)","image":"https://a-url.com/\#(i).jpg"}"#
    }

    private func nginxWithFeed() throws -> Nginx {
        let nginx = try Nginx(test: self)
        try (#"{"items":["# + items.joined(separator: ",") + "]}\n").write(toFile: nginx.root + "/feed.json", atomically: true, encoding: .utf8)
        return nginx
    }

    func test_fetch_recordsTheValidators_andARequestRecordWithThemGetsA304WithoutABody() throws {
        let nginx = try nginxWithFeed()
        let first = sh(#"feed-fetch "$B/feed.json""#, environment: ["B": nginx.base])
        XCTAssertEqual(first.status, 0, first.stderr)
        let record = try XCTUnwrap(first.records().first)
        let etag = try XCTUnwrap(record["etag"] as? String)
        let lastModified = try XCTUnwrap(record["last_modified"] as? String)

        let request = try JSONSerialization.data(withJSONObject: ["url": nginx.base + "/feed.json", "if_none_match": etag, "if_modified_since": lastModified])
        let second = sh("feed-fetch", stdin: String(decoding: request, as: UTF8.self) + "\n")
        XCTAssertEqual(second.status, 0, second.stderr)
        let notModified = try XCTUnwrap(second.records().first)
        XCTAssertEqual(notModified["status"] as? Int, 304)
        XCTAssertEqual(notModified["body_base64"] as? String, "")
        XCTAssertNotNil(notModified["etag"])
        XCTAssertEqual(nginx.accessLog.map { String($0.prefix(3)) }, ["200", "304"])
    }

    private let image = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://x/image-0"}"#
    private let page200 = #"{"page":"http://x/v1/feed?limit=10","status":200,"etag":"\"a\""}"#
    private let page304 = #"{"page":"http://x/v1/feed?limit=10","status":304,"etag":"\"a\""}"#

    func test_pageRecords_arePassedOverByTheToolsThatReadFeedImages() throws {
        let d = temporaryDirectory(self)
        let environment = ["S": d + "/feed.sqlite", "NO_COLOR": "1", "LANG": "en_US.UTF-8", "LC_ALL": ""]
        let input = image + "\n" + page200 + "\n"
        for command in [#"feed-cache --store "$S" save"#, #"feed-paginate --base-url http://x"#, #"feed-cache --store "$S" missing-images"#,
                        #"feed-view --width 60"#] {
            let with = sh(command, stdin: input, environment: environment)
            let without = sh(command, stdin: image + "\n", environment: environment)
            XCTAssertEqual(with.status, 0, "\(command): \(with.stderr)")
            XCTAssertEqual(with.out, without.out, command)
            XCTAssertEqual(with.stderr, without.stderr, command)
        }
    }

    func test_fallback_writesTheCachedFeedForA304() throws {
        let d = temporaryDirectory(self)
        let environment = ["S": d + "/feed.sqlite"]
        XCTAssertEqual(sh(#"feed-cache --store "$S" save"#, stdin: image + "\n", environment: environment).status, 0)
        let run = sh(#"feed-cache --store "$S" fallback"#, stdin: page304 + "\n", environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines, [image])
        let changed = sh(#"feed-cache --store "$S" fallback"#, stdin: image.replacingOccurrences(of: "image-0", with: "image-9") + "\n" + page200 + "\n", environment: environment)
        XCTAssertEqual(changed.lines, [image.replacingOccurrences(of: "image-0", with: "image-9")], "a page of its own passes on as it is, without its page record")
    }

    // MARK: The cron job, end to end

    /// nginx serving the feed page at /v1/feed (any query) with items whose
    /// images it serves too.
    private func nginxServingAFeed(items count: Int, tag: String) throws -> Nginx {
        let nginx = try Nginx(test: self, locations: "location /v1/ { default_type application/json; }")
        try writeFeed(nginx, items: count, tag: tag)
        return nginx
    }

    private func writeFeed(_ nginx: Nginx, items count: Int, tag: String) throws {
        try FileManager.default.createDirectory(atPath: nginx.root + "/v1", withIntermediateDirectories: true)
        let items = (0..<count).map { i in
            #"{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC5\#(String(format: "%04X", i))","description":"\#(tag) \#(i)","image":"\#(nginx.base)/image-\#(i)"}"#
        }
        try (#"{"items":["# + items.joined(separator: ",") + "]}\n").write(toFile: nginx.root + "/v1/feed", atomically: true, encoding: .utf8)
        for i in 0..<count { try Data("image \(i)".utf8).write(to: URL(fileURLWithPath: nginx.root + "/image-\(i)")) }
    }

    private func sync(_ nginx: Nginx, _ store: String, now: String) -> Run {
        sh(#""$S/feed-sync" --base-url "$B" --store "$T" --now "$N""#,
           environment: ["S": AcceptanceTests.scripts, "B": nginx.base, "T": store, "N": now, "FEED_BIN": Products.directory], timeout: 60)
    }

    private func info(_ store: String, now: String) throws -> [String: Any] {
        let run = sh(#"feed-cache --store "$T" --now "$N" info"#, environment: ["T": store, "N": now])
        return try XCTUnwrap(run.records().first, run.stderr)
    }

    func test_feedSync_twiceAgainstAnUnchangedFeed_transfersNoFeedBody_andRestampsTheCache() throws {
        let nginx = try nginxServingAFeed(items: 3, tag: "first")
        let store = temporaryDirectory(self) + "/feed.sqlite"
        let first = sync(nginx, store, now: "2026-11-01T00:00:00Z")
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try info(store, now: "2026-11-01T00:00:00Z")["timestamp"] as? String, "2026-11-01T00:00:00Z")
        let firstRun = nginx.accessLog
        XCTAssertEqual(firstRun.filter { $0.contains("/v1/feed") }.map { String($0.prefix(3)) }, ["200"])
        XCTAssertEqual(firstRun.filter { $0.contains("/image-") }.count, 3)

        // Eight days later (past the 7-day policy): the server confirms the feed.
        let second = sync(nginx, store, now: "2026-11-09T00:00:00Z")
        XCTAssertEqual(second.status, 0, second.stderr)
        let secondRun = Array(nginx.accessLog.dropFirst(firstRun.count))
        XCTAssertEqual(secondRun.map { String($0.prefix(3)) }, ["304"], "one conditional request, answered 304; no image fetched: \(secondRun)")
        let bytes = Int(secondRun[0].split(separator: " ")[1]) ?? .max
        XCTAssertLessThan(bytes, 400, "a head, no feed body")
        let after = try info(store, now: "2026-11-09T00:00:00Z")
        XCTAssertEqual(after["timestamp"] as? String, "2026-11-09T00:00:00Z", "stamped with the confirmation")
        XCTAssertEqual(after["items"] as? Int, 3)
        let load = sh(#"feed-cache --store "$T" --now 2026-11-09T00:00:00Z load"#, environment: ["T": store])
        XCTAssertEqual(load.status, 0, load.stderr)
        XCTAssertEqual(load.records().compactMap { $0["description"] as? String }, ["first 0", "first 1", "first 2"])

        // A changed feed (a new ETag): replaced, with the new validators.
        try writeFeed(nginx, items: 2, tag: "changed feed")
        let third = sync(nginx, store, now: "2026-11-10T00:00:00Z")
        XCTAssertEqual(third.status, 0, third.stderr)
        XCTAssertEqual(nginx.accessLog.last(where: { $0.contains("/v1/feed") })?.prefix(3), "200")
        let changed = sh(#"feed-cache --store "$T" --now 2026-11-10T00:00:00Z load"#, environment: ["T": store])
        XCTAssertEqual(changed.records().compactMap { $0["description"] as? String }, ["changed feed 0", "changed feed 1"])
        let fourth = sync(nginx, store, now: "2026-11-11T00:00:00Z")
        XCTAssertEqual(fourth.status, 0, fourth.stderr)
        XCTAssertEqual(nginx.accessLog.last(where: { $0.contains("/v1/feed") })?.prefix(3), "304", "the new validators were kept")
    }

    /// The README's conditional refresh against the bundled server with
    /// `--etag`, as it runs against nginx: the second run sends the cached page's ETag,
    /// gets 304 with no body, and the save confirms the cache. feed-serve
    /// sent no validator, so the recipe never saw a 304 there.
    func test_conditionalRefresh_againstFeedServe_getsA304TheSecondTime_andConfirmsTheCache() throws {
        let server = try Served(["--builtin", "acceptance", "--etag"], test: self)
        let directory = temporaryDirectory(self)
        let store = directory + "/feed.sqlite"
        let recipe = #"feed-paginate < /dev/null | feed-cache conditional | feed-fetch | tee "$R" | feed-map | feed-cache --now "$N" save"#
        var statuses: [[Int]] = []
        for (run, now) in ["2026-11-01T00:00:00Z", "2026-11-09T00:00:00Z"].enumerated() {
            let responses = "\(directory)/responses-\(run)"
            let result = sh(recipe, environment: ["FEED_BASE_URL": server.base, "FEED_STORE": store, "R": responses, "N": now])
            XCTAssertEqual(result.status, 0, result.stderr)
            let lines = try String(contentsOfFile: responses, encoding: .utf8).split(separator: "\n")
            statuses.append(lines.compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))).flatMap { ($0 as? [String: Any])?["status"] as? Int }
            })
            XCTAssertEqual(try info(store, now: now)["timestamp"] as? String, now)
        }
        XCTAssertEqual(statuses, [[200], [304]])
        XCTAssertEqual(try info(store, now: "2026-11-09T00:00:00Z")["items"] as? Int, 3)
    }

    func test_feedSync_againstAServerThatIgnoresTheValidators_replacesTheCacheEachTime() throws {
        let heads = Heads()
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.append(head)
                let port = connection.localPort
                let body = #"{"items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":"http://127.0.0.1:\#(port)/image-0"}]}"#
                guard connection.respond(head.contains("/image-") ? "bytes" : body, headers: "ETag: \"always\"\r\n") else { return }
            }
        }
        addTeardownBlock { server.stop() }
        let store = temporaryDirectory(self) + "/feed.json"
        for now in ["2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z"] {
            let run = sh(#""$S/feed-sync" --base-url "$B" --store "$T" --now "$N""#,
                         environment: ["S": AcceptanceTests.scripts, "B": server.base, "T": store, "N": now, "FEED_BIN": Products.directory])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(try info(store, now: now)["timestamp"] as? String, now)
        }
        let feedRequests = heads.all.filter { $0.hasPrefix("GET /v1/feed") }
        XCTAssertEqual(feedRequests.count, 2)
        XCTAssertFalse(feedRequests[0].contains("If-None-Match"))
        XCTAssertTrue(feedRequests[1].contains("If-None-Match: \"always\"\r\n"), feedRequests[1])
    }

    /// A request record whose validators carry CR LF: nothing of them
    /// reaches the wire (no extra header, no second request), the request
    /// goes out unconditional, and FEED_LOG=debug says why.
    func test_aRequestRecordWithCRLFInItsValidators_sendsNoInjectedHeaderOrRequest() throws {
        let heads = Heads()
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.append(head)
                guard connection.respond(#"{"items":[]}"#) else { return }
            }
        }
        addTeardownBlock { server.stop() }
        let injected = "\"a\"\r\nX-Injected: 1\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x"
        let record = #"{"url":"\#(server.base)/v1/feed?limit=1","if_none_match":"\#(injected.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n"))","if_modified_since":"Sun, 06 Nov 1994 08:49:37 GMT\r\nX-Date: 2"}"#
        let run = sh("FEED_LOG=debug feed-fetch", stdin: record + "\n")
        XCTAssertEqual(run.status, 0, run.stderr)
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(heads.all.count, 1, "\(heads.all)")
        let head = heads.all.first ?? ""
        XCTAssertFalse(head.contains("X-Injected") || head.contains("smuggled") || head.contains("If-None-Match"), head)
        XCTAssertFalse(head.contains("If-Modified-Since"), head)
        XCTAssertFalse(head.contains("X-Date"), head)
        XCTAssertTrue(run.stderr.contains("if_none_match is not an entity tag: not sent"), run.stderr)
        XCTAssertTrue(run.stderr.contains("if_modified_since is not an HTTP date: not sent"), run.stderr)
    }

    /// A server that plants an ETag holding a bare CR (and a Last-Modified
    /// with a CR): the response record carries neither, the cache keeps
    /// neither, and the next run's request holds only what the server sends
    /// next that is an entity tag. (A NUL in a head is no response at all:
    /// the next test.)
    func test_aServersETagWithCR_isNeitherKeptNorSentBack() throws {
        let heads = Heads()
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.append(head)
                let body = #"{"items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":"http://h/a.png"}]}"#
                let planted = heads.all.count == 1 ? "ETag: \"a\rX-Evil: 1\"\r\nLast-Modified: Sun, 06 Nov 1994\r08:49:37 GMT\r\n" : "ETag: \"good\"\r\n"
                guard connection.respond(body, headers: planted) else { return }
            }
        }
        addTeardownBlock { server.stop() }
        let store = temporaryDirectory(self) + "/feed.sqlite"
        let env = ["B": server.base, "T": store]
        let first = sh(#"feed-paginate --base-url "$B" --limit 1 < /dev/null | feed-cache --store "$T" conditional | feed-fetch | tee "$T.responses" | feed-map | feed-cache --store "$T" save"#, environment: env)
        XCTAssertEqual(first.status, 0, first.stderr)
        let response = try String(contentsOfFile: store + ".responses", encoding: .utf8)
        XCTAssertFalse(response.contains("etag") || response.contains("last_modified"), response)
        for _ in 0..<2 {
            let next = sh(#"feed-paginate --base-url "$B" --limit 1 < /dev/null | feed-cache --store "$T" conditional | feed-fetch | feed-map | feed-cache --store "$T" save"#, environment: env)
            XCTAssertEqual(next.status, 0, next.stderr)
        }
        let all = heads.all
        XCTAssertEqual(all.count, 3)
        XCTAssertFalse(all[1].contains("If-None-Match") || all[1].contains("If-Modified-Since") || all[1].contains("X-Evil"), all[1])
        XCTAssertTrue(all[2].contains("If-None-Match: \"good\"\r\n"), all[2])
    }

    /// A NUL in a response head (RFC 9110 lets a recipient refuse it, and
    /// libcurl does): no response, a connectivity record saying "bad
    /// response".
    func test_aNULInAResponseHead_isABadResponse_andTheCacheStays() throws {
        let server = try RawSocketServer { connection in
            while connection.readRequest() != nil {
                let body = #"{"items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":"http://h/a.png"}]}"#
                guard connection.respond(body, headers: "ETag: \"a\u{0}\"\r\n") else { return }
            }
        }
        addTeardownBlock { server.stop() }
        let run = sh(#"feed-fetch "$B/v1/feed?limit=1""#, environment: ["B": server.base])
        XCTAssertEqual(run.status, 69, run.stderr)
        XCTAssertTrue(run.stderr.contains("bad response"), run.stderr)
        XCTAssertTrue(run.out.hasPrefix(#"{"error":"connectivity""#), run.out)
    }

    func test_conditional_addsTheValidatorsToTheRequestForTheCachedPageOnly() throws {
        let d = temporaryDirectory(self)
        let environment = ["T": d + "/feed.sqlite"]
        let saved = sh(#"feed-cache --store "$T" save"#, stdin: image + "\n" + page200 + "\n", environment: environment)
        XCTAssertEqual(saved.status, 0, saved.stderr)
        let run = sh(#"feed-cache --store "$T" conditional"#,
                     stdin: #"{"url":"http://x/v1/feed?limit=10"}"# + "\n" + #"{"url":"http://x/v1/feed?limit=20"}"# + "\n", environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines, [#"{"url":"http://x/v1/feed?limit=10","if_none_match":"\"a\""}"#, #"{"url":"http://x/v1/feed?limit=20"}"#])
        let none = sh(#"feed-cache --store "$T" conditional"#, stdin: #"{"url":"http://x/v1/feed?limit=10"}"# + "\n", environment: ["T": d + "/none.sqlite"])
        XCTAssertEqual(none.lines, [#"{"url":"http://x/v1/feed?limit=10"}"#])
    }

    /// A page with a password in its URL (a base URL with credentials, as
    /// feed-sync(1) allows) is kept with it shown as ***: its request, with
    /// the password, gets its validators (it never did: found in review).
    func test_conditional_addsTheValidatorsToTheCachedPagesRequest_whoseURLHasAPassword() throws {
        let d = temporaryDirectory(self)
        let environment = ["T": d + "/feed.sqlite"]
        let page = #"{"page":"http://u:***@x/v1/feed?limit=10","status":200,"etag":"\"a\""}"#
        XCTAssertEqual(sh(#"feed-cache --store "$T" save"#, stdin: image + "\n" + page + "\n", environment: environment).status, 0)
        let run = sh(#"feed-cache --store "$T" conditional"#, stdin: #"{"url":"http://u:pw@x/v1/feed?limit=10"}"# + "\n", environment: environment)
        XCTAssertEqual(run.lines, [#"{"url":"http://u:pw@x/v1/feed?limit=10","if_none_match":"\"a\""}"#])
        // And one written by hand with it in clear, and its 304, which
        // keeps the Last-Modified it does not give.
        let clear = #"{"page":"http://u:pw@x/v1/feed?limit=10","status":200,"etag":"\"a\"","last_modified":"Tue, 01 Dec 2026 00:00:00 GMT"}"#
        XCTAssertEqual(sh(#"feed-cache --store "$T" save"#, stdin: image + "\n" + clear + "\n", environment: environment).status, 0)
        let both = [#"{"url":"http://u:pw@x/v1/feed?limit=10","if_none_match":"\"a\"","if_modified_since":"Tue, 01 Dec 2026 00:00:00 GMT"}"#]
        XCTAssertEqual(sh(#"feed-cache --store "$T" conditional"#, stdin: #"{"url":"http://u:pw@x/v1/feed?limit=10"}"# + "\n", environment: environment).lines, both)
        let notModified = #"{"page":"http://u:***@x/v1/feed?limit=10","status":304,"etag":"\"a\""}"#
        XCTAssertEqual(sh(#"feed-cache --store "$T" save"#, stdin: notModified + "\n", environment: environment).status, 0)
        XCTAssertEqual(sh(#"feed-cache --store "$T" conditional"#, stdin: #"{"url":"http://u:pw@x/v1/feed?limit=10"}"# + "\n", environment: environment).lines, both)
    }

    /// conditional reads the store for validators only: one it cannot read
    /// gives none, and the save at the pipe's end decides. A damaged store
    /// of ours is then reset by that save (a store error record from
    /// conditional made the save change nothing, and the store stayed
    /// damaged run after run); one not ours is the save's store error.
    func test_conditional_onAStoreItCannotRead_passesTheRequests_andTheSaveDecides() throws {
        let d = temporaryDirectory(self)
        let run = sh(#"""
            printf '%s\n' "$I" "$P" | feed-cache --store "$D/feed.json" save && head -c 100 "$D/feed.json" > "$D/cut" && mv "$D/cut" "$D/feed.json" &&
            printf '%s\n' '{"url":"http://x/v1/feed?limit=10"}' | feed-cache --store "$D/feed.json" conditional; echo "status $?"
            printf '%s\n' "$I" | feed-cache --store "$D/feed.json" save; echo "save $?"
            feed-cache --store "$D/feed.json" load | wc -l
            sqlite3 "$D/notes.sqlite" 'CREATE TABLE notes(t)'
            printf '%s\n' '{"url":"http://x/v1/feed?limit=10"}' | feed-cache --store "$D/notes.sqlite" conditional; echo "status $?"
            printf '%s\n' "$I" | feed-cache --store "$D/notes.sqlite" save 2> /dev/null; echo "save $?"
            """#, environment: ["D": d, "I": image, "P": page200])
        XCTAssertEqual(run.lines, [#"{"url":"http://x/v1/feed?limit=10"}"#, "status 0", "save 0", "1",
                                   #"{"url":"http://x/v1/feed?limit=10"}"#, "status 0", #"{"error":"store","message":"\#(d)/notes.sqlite: not a feed cache (a SQLite database of another application)"}"#, "save 74"],
                       run.out + run.stderr)
    }

    func test_save_ofA304Alone_confirmsTheCachedFeed_orIsNotFoundWithNothingCached() throws {
        let d = temporaryDirectory(self)
        let environment = ["T": d + "/feed.json"]
        let nothing = sh(#"feed-cache --store "$T" save"#, stdin: page304 + "\n", environment: environment)
        XCTAssertEqual(nothing.status, 66, nothing.stderr)
        XCTAssertEqual(nothing.records().first?["error"] as? String, "not_found")
        for store in ["feed.json", "feed.sqlite"] {
            let none = sh(#"feed-cache --store "$D/\#(store)" save"#, stdin: page304 + "\n", environment: ["D": d])
            XCTAssertEqual(none.status, 66, none.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: d + "/" + store), "no store is made for nothing to confirm")
        }
        XCTAssertEqual(sh(#"feed-cache --store "$T" --now 2026-01-01T00:00:00Z save"#, stdin: image + "\n" + page200 + "\n", environment: environment).status, 0)
        let confirmed = sh(#"FEED_LOG=info feed-cache --store "$T" --now 2026-01-20T00:00:00Z save --tee"#, stdin: page304 + "\n", environment: environment)
        XCTAssertEqual(confirmed.status, 0, confirmed.stderr)
        XCTAssertEqual(confirmed.lines, [page304], "--tee writes the page record on")
        XCTAssertTrue(confirmed.stderr.contains("save: not modified: the cached feed (1 item) confirmed at 2026-01-20T00:00:00Z"), confirmed.stderr)
        let load = sh(#"feed-cache --store "$T" --now 2026-01-21T00:00:00Z load"#, environment: environment)
        XCTAssertEqual(load.lines, [image])
    }

    /// A 304 for a page after an item (asked for without validators) is
    /// refused before anything else: it re-stamped the whole feed.
    func test_saveMerge_ofA304ForAPageAfterAnItem_confirmsNothing() throws {
        let d = temporaryDirectory(self)
        let environment = ["T": d + "/feed.sqlite"]
        XCTAssertEqual(sh(#"feed-cache --store "$T" --now 2026-01-01T00:00:00Z save"#, stdin: image + "\n" + page200 + "\n", environment: environment).status, 0)
        let run = sh(#"feed-cache --store "$T" --now 2026-01-20T00:00:00Z save --merge --after 2AB2AE66-A4B7-4A16-B374-51BBAC8DB086"#, stdin: page304 + "\n", environment: environment)
        XCTAssertEqual(run.status, 65, run.stderr)
        XCTAssertTrue(run.stderr.contains("304 Not Modified for a page after an item"), run.stderr)
        XCTAssertEqual(sh(#"feed-cache --store "$T" --now 2026-01-20T00:00:00Z load"#, environment: environment).status, 66, "still expired")
    }

    /// A 304 answers a conditional request only: to one the cache made no
    /// validators for (another page, or a cache that keeps none), or naming
    /// another entity tag than the one kept (RFC 9111, 4.3.4), it confirms
    /// nothing (65), and an expired feed stays expired (it was made current
    /// again: found by the hunt).
    func test_save_ofA304ThatAnswersNoConditionalRequestOfTheCaches_confirmsNothing() throws {
        let d = temporaryDirectory(self)
        let environment = ["T": d + "/feed.sqlite"]
        let other304 = #"{"page":"http://y/v1/feed?limit=10","status":304}"#
        let otherTag304 = #"{"page":"http://x/v1/feed?limit=10","status":304,"etag":"\"b\""}"#
        let weak304 = #"{"page":"http://x/v1/feed?limit=10","status":304,"etag":"W/\"a\""}"#
        XCTAssertEqual(sh(#"feed-cache --store "$T" --now 2026-01-01T00:00:00Z save"#, stdin: image + "\n" + page200 + "\n", environment: environment).status, 0)
        for (page, message) in [(other304, "to a request without validators"), (otherTag304, "with other validators than the cached feed's")] {
            let run = sh(#"feed-cache --store "$T" --now 2026-01-20T00:00:00Z save"#, stdin: page + "\n", environment: environment)
            XCTAssertEqual(run.status, 65, run.stderr)
            XCTAssertTrue(run.stderr.contains(message), run.stderr)
            XCTAssertEqual(sh(#"feed-cache --store "$T" --now 2026-01-20T00:00:00Z load"#, environment: environment).status, 66, "still expired")
        }
        let weak = sh(#"feed-cache --store "$T" --now 2026-01-20T00:00:00Z save"#, stdin: weak304 + "\n", environment: environment)
        XCTAssertEqual(weak.status, 0, "the same entity tag, weak: \(weak.stderr)")
        XCTAssertEqual(sh(#"feed-cache --store "$T" --now 2026-01-21T00:00:00Z load"#, environment: environment).lines, [image])
        // A cache that keeps no validators asked for none.
        XCTAssertEqual(sh(#"feed-cache --store "$T" --now 2026-02-01T00:00:00Z save"#, stdin: image + "\n", environment: environment).status, 0)
        let bare = sh(#"feed-cache --store "$T" --now 2026-02-20T00:00:00Z save"#, stdin: page304 + "\n", environment: environment)
        XCTAssertEqual(bare.status, 65, bare.stderr)
    }
}
