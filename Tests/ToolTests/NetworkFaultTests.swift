import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Every network fault has one documented outcome (feed-fetch(1), FAILURES):
/// a record and an exit status from `feed-fetch`, and nothing written to the
/// cache by `feed-fetch … | feed-map | feed-cache save`.
final class NetworkFaultTests: XCTestCase {
    /// What one run of `feed-fetch OPTIONS URL | feed-map | feed-cache save` did.
    private struct FaultRun {
        /// The records feed-fetch wrote.
        let fetched: [[String: Any]]
        let fetchStatus: Int
        /// The status of the pipeline (of `feed-cache save`).
        let pipelineStatus: Int32
        let stderr: String
        let seconds: TimeInterval

        var record: [String: Any] { fetched.first ?? [:] }
    }

    /// A cache saved from a good feed page before the fault, to compare with after it.
    private struct SavedCache {
        let store: String
        let bytes: Data
        let loaded: String

        init(from base: String, in directory: String) throws {
            store = directory + "/feed.sqlite"
            let save = sh(#"feed-fetch --base-url "$B" --limit 2 | feed-map | feed-cache --store "$S" save"#,
                          environment: ["B": base, "S": store])
            XCTAssertEqual(save.status, 0, save.stderr)
            bytes = try Data(contentsOf: URL(fileURLWithPath: store))
            loaded = Self.load(store)
            XCTAssertEqual(loaded.split(separator: "\n").count, 2, "the cache holds the first two items")
        }

        static func load(_ store: String) -> String {
            sh(#"feed-cache --store "$S" load"#, environment: ["S": store]).out
        }

        func assertUnchanged(file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(try? Data(contentsOf: URL(fileURLWithPath: store)), bytes, "the store file is unchanged", file: file, line: line)
            XCTAssertEqual(Self.load(store), loaded, "the cache loads as before", file: file, line: line)
        }
    }

    /// Runs `feed-fetch OPTIONS URL | feed-map | feed-cache --store STORE save`,
    /// keeping what feed-fetch wrote and its status.
    private func fetchIntoCache(_ url: String, _ options: String = "", store: String,
                                file: StaticString = #filePath, line: UInt = #line) -> FaultRun {
        let dir = temporaryDirectory(self)
        let started = Date()
        let run = sh(#"{ feed-fetch \#(options) "$U"; echo $? > "$T/status"; } | tee "$T/fetched" | feed-map | feed-cache --store "$S" save"#,
                     environment: ["U": url, "S": store, "T": dir], file: file, line: line)
        let seconds = Date().timeIntervalSince(started)
        let fetched = (try? String(contentsOfFile: dir + "/fetched", encoding: .utf8)) ?? ""
        let records = fetched.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertEqual(records.count, fetched.split(separator: "\n").count, "feed-fetch wrote only records: \(fetched)", file: file, line: line)
        let status = Int(((try? String(contentsOfFile: dir + "/status", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        return FaultRun(fetched: records, fetchStatus: status, pipelineStatus: run.status, stderr: run.stderr, seconds: seconds)
    }

    /// Asserts one error record of `kind` with `message` about `url`, the
    /// kind's status from feed-fetch and from the pipeline, and the message on
    /// standard error.
    private func assertFailure(_ run: FaultRun, _ kind: String, status: Int, message: String, url: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(run.fetched.count, 1, "one record per request", file: file, line: line)
        XCTAssertEqual(run.record["error"] as? String, kind, "\(run.record)", file: file, line: line)
        XCTAssertEqual(run.record["message"] as? String, message, file: file, line: line)
        XCTAssertEqual(run.record["url"] as? String, url, file: file, line: line)
        XCTAssertNil(run.record["status"], "no response record", file: file, line: line)
        XCTAssertEqual(run.fetchStatus, status, "feed-fetch's status", file: file, line: line)
        XCTAssertEqual(Int(run.pipelineStatus), status, "the pipeline's status", file: file, line: line)
        XCTAssertTrue(run.stderr.contains("feed-fetch: \(url): \(message)\n"), run.stderr, file: file, line: line)
    }

    // MARK: No response: connectivity, 69

    func test_refusedConnection_isConnectivity69AndLeavesTheCacheUnchanged() throws {
        let server = try Served(test: self)
        let cache = try SavedCache(from: server.base, in: temporaryDirectory(self))
        server.stop()
        let url = server.base + "/v1/feed?limit=2"
        let run = fetchIntoCache(url, store: cache.store)
        assertFailure(run, "connectivity", status: 69, message: "connection refused", url: url)
        cache.assertUnchanged()
    }

    func test_connectionReset_isConnectivity69AndLeavesTheCacheUnchanged() throws {
        let server = try Served(test: self)
        let cache = try SavedCache(from: server.base, in: temporaryDirectory(self))
        let url = server.base + "/_fault/reset/v1/feed?limit=2"
        let run = fetchIntoCache(url, store: cache.store)
        assertFailure(run, "connectivity", status: 69, message: "connection lost", url: url)
        cache.assertUnchanged()
    }

    func test_bodyCutShortOfItsContentLength_isConnectivity69AndLeavesTheCacheUnchanged() throws {
        let server = try Served(test: self)
        let cache = try SavedCache(from: server.base, in: temporaryDirectory(self))
        let url = server.base + "/_fault/truncate=20/v1/feed?limit=2"
        let run = fetchIntoCache(url, store: cache.store)
        XCTAssertEqual(run.record["error"] as? String, "connectivity", "\(run.fetched)")
        XCTAssertTrue((run.record["message"] as? String ?? "").hasPrefix("connection lost"), "\(run.record)")
        XCTAssertEqual(run.record["url"] as? String, url)
        XCTAssertEqual(run.fetchStatus, 69)
        XCTAssertEqual(run.pipelineStatus, 69)
        cache.assertUnchanged()
    }

    func test_serverClosingInTheMiddleOfTheHead_isConnectivity69AndLeavesTheCacheUnchanged() throws {
        // FoundationNetworking traps on this (SIGILL); feed-fetch's own HTTP client reports it.
        let server = try Served(test: self)
        let cache = try SavedCache(from: server.base, in: temporaryDirectory(self))
        let closing = try RawSocketServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.send("HTTP/1.1 200 OK\r\nContent-Type: application/js")
        }
        defer { closing.stop() }
        let url = closing.base + "/v1/feed?limit=2"
        let run = fetchIntoCache(url, store: cache.store)
        assertFailure(run, "connectivity", status: 69, message: "connection lost", url: url)
        XCTAssertFalse(run.stderr.contains("Fatal error"), run.stderr)
        cache.assertUnchanged()
    }

    func test_headersThatNeverEnd_timeOutAfterTheTimeoutAndLeaveTheCacheUnchanged() throws {
        let server = try Served(test: self)
        let cache = try SavedCache(from: server.base, in: temporaryDirectory(self))
        let url = server.base + "/_fault/hang/v1/feed?limit=2"
        let run = fetchIntoCache(url, "--timeout 1", store: cache.store)
        assertFailure(run, "connectivity", status: 69, message: "timed out after 1 s", url: url)
        XCTAssertGreaterThan(run.seconds, 0.9, "not before the bound")
        XCTAssertLessThan(run.seconds, 6, "bounded by --timeout")
        cache.assertUnchanged()

        // The bound said as it was given, in decimal (not "1e-09 s").
        let tiny = sh(#"feed-fetch --timeout 0.000000001 "$U""#, environment: ["U": url])
        XCTAssertEqual(tiny.records().first?["message"] as? String, "timed out after 0.000000001 s", tiny.stderr)
    }

    func test_drippingBody_isBoundedByTheTimeoutAsAWholeAndLeavesTheCacheUnchanged() throws {
        let server = try Served(test: self)
        let cache = try SavedCache(from: server.base, in: temporaryDirectory(self))
        // One byte every 100 ms: the connection is never idle, the ~180-byte body takes ~18 s.
        let url = server.base + "/_fault/drip=100/v1/feed?limit=2"
        let run = fetchIntoCache(url, "--timeout 1", store: cache.store)
        assertFailure(run, "connectivity", status: 69, message: "timed out after 1 s", url: url)
        XCTAssertLessThan(run.seconds, 6, "the whole request is bounded, not the time between bytes")
        cache.assertUnchanged()
    }

    func test_drippingBodyWithinTheTimeout_isAResponse() throws {
        let server = try Served(test: self)
        let run = sh(#"feed-fetch --timeout 20 "$B/_fault/drip=2/v1/feed?limit=1" | feed-map"#, environment: ["B": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().count, 1)
    }

    func test_fractionalTimeout_letsAFasterResponseThrough() throws {
        let server = try Served(test: self)
        let run = sh(#"feed-fetch --timeout 0.5 "$B/_fault/delay=100/v1/feed?limit=1""#, environment: ["B": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().first?["status"] as? Int, 200)
    }

    // MARK: Any status is a response

    func test_5xx_isAResponseThatFeedMapRejectsWith65AndLeavesTheCacheUnchanged() throws {
        let server = try Served(test: self)
        let cache = try SavedCache(from: server.base, in: temporaryDirectory(self))
        for status in [500, 502, 503] {
            let url = server.base + "/_fault/status=\(status)/v1/feed?limit=2"
            let run = fetchIntoCache(url, store: cache.store)
            XCTAssertEqual(run.fetchStatus, 0, "a 5xx is a response: \(run.stderr)")
            XCTAssertEqual(run.record["status"] as? Int, status)
            XCTAssertEqual(run.record["url"] as? String, url)
            XCTAssertNotNil(run.record["body"])
            XCTAssertEqual(run.pipelineStatus, 65, "feed-map: invalid_data")
            XCTAssertTrue(run.stderr.contains("feed-map: ") && run.stderr.contains("status \(status)"), run.stderr)
            XCTAssertFalse(run.stderr.contains("feed-fetch: "), run.stderr)
        }
        cache.assertUnchanged()
    }

    // MARK: Redirects: followed up to --max-redirects

    func test_redirectsWithinTheLimit_areFollowedAndTheFinalURLIsNamed() throws {
        let server = try Served(test: self)
        let store = temporaryDirectory(self) + "/feed.sqlite"
        let url = server.base + "/_fault/redirect=5/v1/feed?limit=2"
        let run = fetchIntoCache(url, store: store)
        XCTAssertEqual(run.fetchStatus, 0, run.stderr)
        XCTAssertEqual(run.record["status"] as? Int, 200)
        XCTAssertEqual(run.record["url"] as? String, url, "url stays the URL asked for")
        XCTAssertEqual(run.record["final_url"] as? String, server.base + "/_fault/redirect=0/v1/feed?limit=2")
        XCTAssertEqual(run.pipelineStatus, 0, run.stderr)
        XCTAssertEqual(SavedCache.load(store).split(separator: "\n").count, 2, "the redirected feed is saved")

        let direct = sh(#"feed-fetch "$B/v1/feed?limit=1""#, environment: ["B": server.base])
        XCTAssertNil(direct.records().first?["final_url"], "no final_url without a redirect")

        let logged = sh(#"feed-fetch "$U" > /dev/null"#, environment: ["U": server.base + "/_fault/redirect=1/image-0", "FEED_LOG": "debug"])
        XCTAssertTrue(logged.stderr.contains(", redirected to \(server.base)/_fault/redirect=0/image-0\n"), logged.stderr)
    }

    func test_redirectsPastTheLimit_areConnectivity69AndLeaveTheCacheUnchanged() throws {
        let server = try Served(test: self)
        let cache = try SavedCache(from: server.base, in: temporaryDirectory(self))
        let url = server.base + "/_fault/redirect=6/v1/feed?limit=2"
        assertFailure(fetchIntoCache(url, store: cache.store), "connectivity", status: 69, message: "too many redirects (5)", url: url)
        let fewer = server.base + "/_fault/redirect=3/v1/feed?limit=2"
        assertFailure(fetchIntoCache(fewer, "--max-redirects 2", store: cache.store),
                      "connectivity", status: 69, message: "too many redirects (2)", url: fewer)
        cache.assertUnchanged()
    }

    func test_maxRedirectsZero_makesThe3xxTheResponseWhichFeedMapRejects() throws {
        let server = try Served(test: self)
        let cache = try SavedCache(from: server.base, in: temporaryDirectory(self))
        let url = server.base + "/_fault/redirect=1/v1/feed?limit=2"
        let run = fetchIntoCache(url, "--max-redirects 0", store: cache.store)
        XCTAssertEqual(run.fetchStatus, 0, run.stderr)
        XCTAssertEqual(run.record["status"] as? Int, 302)
        XCTAssertEqual(run.record["url"] as? String, url)
        XCTAssertNil(run.record["final_url"])
        XCTAssertEqual((run.record["body"] as? [String: Any])?["message"] as? String,
                       "redirecting to " + server.base + "/_fault/redirect=0/v1/feed?limit=2")
        XCTAssertEqual(run.pipelineStatus, 65)
        cache.assertUnchanged()
    }

    // MARK: Bodies: --max-body, and bytes kept exactly

    func test_bodyOverMaxBody_isInvalidData65AndLeavesTheCacheUnchanged() throws {
        let server = try Served(test: self)
        let cache = try SavedCache(from: server.base, in: temporaryDirectory(self))
        let url = server.base + "/_fault/big=5000/v1/feed?limit=2"
        let run = fetchIntoCache(url, "--max-body 1k", store: cache.store)
        assertFailure(run, "invalid_data", status: 65, message: "response body larger than 1024 bytes", url: url)
        cache.assertUnchanged()

        let exact = sh(#"feed-fetch --max-body 1k "$B/_fault/big=1024/v1/feed?limit=2""#, environment: ["B": server.base])
        XCTAssertEqual(exact.status, 0, "a body of exactly the limit is accepted: \(exact.stderr)")
        XCTAssertEqual(exact.records().first?["status"] as? Int, 200)
    }

    func test_endlessBodyWithoutLength_isStoppedAtMaxBodyAndLeavesTheCacheUnchanged() throws {
        let server = try Served(test: self)
        let cache = try SavedCache(from: server.base, in: temporaryDirectory(self))
        let endless = try EndlessBodyServer()
        defer { endless.stop() }
        let url = "http://127.0.0.1:\(endless.port)/v1/feed"
        let run = fetchIntoCache(url, "--max-body 2M --timeout 30", store: cache.store)
        assertFailure(run, "invalid_data", status: 65, message: "response body larger than 2097152 bytes", url: url)
        XCTAssertLessThan(run.seconds, 10, "reading stops at the limit, not at the timeout")
        XCTAssertTrue(endless.waitUntilClientLeft(timeout: 5), "feed-fetch closed the connection")
        XCTAssertLessThan(endless.sent, 64 << 20, "the transfer stopped soon after the limit")
        cache.assertUnchanged()
    }

    func test_maxBodyAndMaxRedirects_takeTheirDocumentedValues() throws {
        let server = try Served(test: self)
        for options in ["--max-body 100000", "--max-body 64k", "--max-body 64K", "--max-body 1M", "--max-body 1g",
                        "--max-redirects 0", "--max-redirects 20"] {
            let run = sh(#"feed-fetch \#(options) "$B/v1/feed?limit=1""#, environment: ["B": server.base])
            XCTAssertEqual(run.status, 0, "\(options): \(run.stderr)")
        }
        for options in ["--max-body 1x", "--max-body -1", "--max-body ''", "--max-body k", "--max-body 1.5M",
                        "--max-body 99999999999999G", "--max-redirects 21", "--max-redirects -1", "--max-redirects many"] {
            let run = sh(#"feed-fetch \#(options) "$B/v1/feed?limit=1""#, environment: ["B": server.base])
            XCTAssertEqual(run.status, 64, options)
            XCTAssertEqual(run.records().first?["error"] as? String, "usage", options)
        }
    }

    func test_nonUTF8AndBinaryBodies_comeOutAsBase64OfExactlyTheBytesSent() throws {
        let dir = temporaryDirectory(self)
        try FileManager.default.createDirectory(atPath: dir + "/images", withIntermediateDirectories: true)
        try Data(#"{"items":[]}"#.utf8).write(to: URL(fileURLWithPath: dir + "/feed.json"))
        let bodies: [String: [UInt8]] = [
            "latin1": Array("caf".utf8) + [0xE9, 0x0A],
            "all-bytes": (0...255).map { UInt8($0) },
            "almost-json": Array(#"{"a":""#.utf8) + [0xFF] + Array(#""}"#.utf8),
            "bom-json": [0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8),
            "empty": [],
        ]
        for (name, bytes) in bodies {
            try Data(bytes).write(to: URL(fileURLWithPath: dir + "/images/" + name))
        }
        let server = try Served([dir], test: self)
        let names = bodies.keys.sorted()
        let run = sh("feed-fetch " + names.map { quoted(server.base + "/" + $0) }.joined(separator: " "))
        XCTAssertEqual(run.status, 0, run.stderr)
        let records = run.records()
        XCTAssertEqual(records.count, names.count)
        for (name, record) in zip(names, records) {
            XCTAssertEqual(record["url"] as? String, server.base + "/" + name)
            XCTAssertNil(record["body"], "\(name) is not UTF-8 JSON")
            guard let encoded = record["body_base64"] as? String, let decoded = Data(base64Encoded: encoded) else {
                XCTFail("\(name): no body_base64 in \(record)")
                continue
            }
            XCTAssertEqual(Array(decoded), bodies[name], name)
        }
    }
}
