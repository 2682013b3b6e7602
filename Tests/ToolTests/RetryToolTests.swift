import Foundation
import XCTest

/// feed-fetch --retry and feed-sync's retries, against a raw server that
/// fails a chosen number of times, then answers.
final class RetryToolTests: XCTestCase {
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func next() -> Int { lock.withLock { defer { count += 1 }; return count } }
        var value: Int { lock.withLock { count } }
    }

    /// Answers the first `failing` requests for the feed with `status`
    /// (and `fields`), then a feed page of one item whose image it serves.
    private func server(failing: Int, status: Int = 503, fields: @escaping @Sendable () -> String = { "" }) throws -> (RawSocketServer, Counter) {
        let counter = Counter()
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                let ok: Bool
                if head.hasPrefix("GET /v1/feed") {
                    if counter.next() < failing {
                        ok = connection.respond(status: status, "busy", headers: fields())
                    } else {
                        let port = connection.localPort
                        ok = connection.respond(#"{"items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":"http://127.0.0.1:\#(port)/image-0"}]}"#)
                    }
                } else {
                    ok = connection.respond("image bytes")
                }
                guard ok else { return }
            }
        }
        addTeardownBlock { server.stop() }
        return (server, counter)
    }

    func test_retry_triesTransientFailuresAgain_waitingOneThenTwoSeconds() throws {
        let (server, counter) = try server(failing: 2)
        let started = Date()
        let run = sh(#"FEED_LOG=info feed-fetch --retry 2 "$B/v1/feed""#, environment: ["B": server.base])
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().first?["status"] as? Int, 200)
        XCTAssertEqual(counter.value, 3)
        XCTAssertGreaterThanOrEqual(elapsed, 3, "1 s, then 2 s")
        XCTAssertLessThan(elapsed, 8)
        XCTAssertTrue(run.stderr.contains("GET \(server.base)/v1/feed: 503; retry 1 of 2 in 1 s\n"), run.stderr)
        XCTAssertTrue(run.stderr.contains("GET \(server.base)/v1/feed: 503; retry 2 of 2 in 2 s\n"), run.stderr)
    }

    func test_retry_writesTheLastAttempt_whenTheRetriesAreSpent() throws {
        let (server, counter) = try server(failing: 9, fields: { "Retry-After: 0\r\n" })
        let run = sh(#"feed-fetch --retry 2 "$B/v1/feed" | feed-map"#, environment: ["B": server.base])
        XCTAssertEqual(run.status, 65, run.stderr)
        XCTAssertEqual(counter.value, 3)
        XCTAssertEqual(run.records().first?["error"] as? String, "invalid_data")
    }

    /// Seconds of retries, 64 at a time, with the sandbox on. libdispatch
    /// watches its global queues' threads by reading /proc/<thread>/stat
    /// once a second and stops the process (SIGILL) when it may not, which
    /// Landlock sees to: retries waited on a global queue died like that, at
    /// one of those seconds, when the queue was not empty (132 here in most
    /// runs; in 1 run of about 500 of the single retry above).
    func test_retry_manyAtOnceForSeconds_underTheSandbox_ends() throws {
        let (server, counter) = try server(failing: .max, fields: { "Retry-After: 0\r\n" })
        let urls = (0..<320).map { "\(server.base)/v1/feed?n=\($0)\n" }.joined()
        // Each URL retried for up to a second: about five seconds here, in
        // thousands of requests (it died in most runs before the change).
        let run = sh("feed-fetch --retry 100 --retry-max-time 1 --parallel 64", stdin: urls, timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().count, 320)
        XCTAssertEqual(Set(run.records().compactMap { $0["status"] as? Int }), [503])
        XCTAssertGreaterThan(counter.value, 320 * 2, "retries were made")
    }

    func test_retry_doesNotRetryA404() throws {
        let (server, counter) = try server(failing: 1, status: 404)
        let run = sh(#"feed-fetch --retry 3 "$B/v1/feed""#, environment: ["B": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().first?["status"] as? Int, 404)
        XCTAssertEqual(counter.value, 1)
    }

    func test_retry_honoursRetryAfterAsAnHTTPDate() throws {
        let (server, counter) = try server(failing: 1, fields: {
            // Two seconds from now, as an IMF-fixdate.
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return "Retry-After: \(formatter.string(from: Date().addingTimeInterval(2)))\r\n"
        })
        let started = Date()
        let run = sh(#"feed-fetch --retry 1 "$B/v1/feed""#, environment: ["B": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().first?["status"] as? Int, 200)
        XCTAssertEqual(counter.value, 2)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1, "the date is one to two seconds away")
    }

    func test_retryMaxTime_boundsTheRetries() throws {
        let (server, counter) = try server(failing: 9)
        let started = Date()
        let run = sh(#"feed-fetch --retry 5 --retry-max-time 1.5 "$B/v1/feed""#, environment: ["B": server.base])
        XCTAssertEqual(run.records().first?["status"] as? Int, 503)
        XCTAssertEqual(counter.value, 2, "a retry after 1 s; the next, 2 s later, would start past 1.5 s")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    func test_retry_ofARefusedConnection_endsInTheConnectivityRecord() throws {
        let started = Date()
        let run = sh("feed-fetch --retry 1 http://127.0.0.1:9/v1/feed")
        XCTAssertEqual(run.status, 69, run.stderr)
        XCTAssertEqual(run.records().first?["message"] as? String, "connection refused")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1, "one retry, a second later")
    }

    func test_feedSync_retriesTwiceByDefault() throws {
        let (server, counter) = try server(failing: 2)
        let directory = temporaryDirectory(self)
        let run = sh(#""$S/feed-sync" --base-url "$B" --store "$D/feed.sqlite" && feed-cache --store "$D/feed.sqlite" load"#,
                     environment: ["B": server.base, "D": directory, "FEED_BIN": Products.directory, "S": AcceptanceTests.scripts], timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().first?["id"] as? String, "73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6")
        XCTAssertEqual(counter.value, 3)

        let (failing, _) = try self.server(failing: 1)
        let none = sh(#""$S/feed-sync" --retry 0 --base-url "$B" --store "$D/other.sqlite""#,
                      environment: ["B": failing.base, "D": directory, "FEED_BIN": Products.directory, "S": AcceptanceTests.scripts], timeout: 60)
        XCTAssertEqual(none.status, 65, none.stderr)
    }
}
