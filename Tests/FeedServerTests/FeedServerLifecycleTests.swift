import FeedServer
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// Starting, stopping and resources.
final class FeedServerLifecycleTests: FeedServerTestCase {
    func test_start_returnsBaseURLOfAnOSChosenPort() throws {
        let server = FeedServer(fixtures: .acceptance)
        defer { server.stop() }

        XCTAssertEqual(server.port, 0)
        XCTAssertNil(server.baseURL)
        let base = try server.start()

        XCTAssertNotEqual(server.port, 0)
        XCTAssertEqual(base, "http://127.0.0.1:\(server.port)")
        XCTAssertEqual(server.baseURL, base)
    }

    func test_start_twiceThrows() throws {
        let (server, _, _) = try makeServer()

        XCTAssertThrowsError(try server.start()) { error in
            XCTAssertEqual(error as? FeedServer.Error, .alreadyStarted)
        }
    }

    func test_start_onAPortInUseThrowsCannotListen() throws {
        let (_, port, _) = try makeServer()
        let second = FeedServer(fixtures: .acceptance)

        XCTAssertThrowsError(try second.start(port: port)) { error in
            XCTAssertEqual(error as? FeedServer.Error, .cannotListen(port: port, reason: String(cString: strerror(EADDRINUSE))))
            XCTAssertEqual("\(error)", "cannot listen on 127.0.0.1:\(port): Address already in use")
        }
    }

    func test_stop_closesListenerAndEveryOpenConnectionPromptly() throws {
        let (server, port, _) = try makeServer()
        let idle = try XCTUnwrap(RawHTTPConnection(port: port))
        idle.request("/v1/feed")
        XCTAssertEqual(idle.readResponse()?.status, 200)
        let delayed = try XCTUnwrap(RawHTTPConnection(port: port))
        delayed.request("/_fault/delay=60000/v1/feed")
        let dripping = try XCTUnwrap(RawHTTPConnection(port: port))
        dripping.request("/_fault/drip=60000/v1/feed")
        let hanging = try XCTUnwrap(RawHTTPConnection(port: port))
        hanging.request("/_fault/hang/v1/feed")
        let silent = try XCTUnwrap(RawHTTPConnection(port: port))
        _ = hanging.read(until: "\r\n")
        _ = dripping.read(until: "\r\n\r\n")

        let elapsed = milliseconds { server.stop() }

        XCTAssertLessThan(elapsed, 1500)
        XCTAssertEqual(server.openConnections, 0)
        for connection in [idle, delayed, dripping, hanging, silent] {
            _ = connection.readToEnd()
            XCTAssertNotEqual(connection.lastError, EAGAIN, "the connection must be closed, not left open")
        }
        XCTAssertNil(RawHTTPConnection(port: port), "the listener must be closed")
    }

    func test_stop_isIdempotentAndTheServerCanStartAgain() throws {
        let server = FeedServer(fixtures: .acceptance)
        server.stop()
        try server.start()
        server.stop()
        server.stop()

        let base = try server.start()
        defer { server.stop() }

        XCTAssertEqual(try get("/v1/feed", port: server.port).items?.count, 3)
        XCTAssertEqual(base, server.baseURL)
    }

    func test_serving_leaksNoFileDescriptors() throws {
        let before = try openFileDescriptors()
        let server = FeedServer(fixtures: .acceptance)
        try server.start()
        let port = server.port

        for target in ["/v1/feed", "/_fault/reset/v1/feed", "/_fault/truncate=3/v1/feed", "/missing"] {
            _ = RawHTTPConnection.get(target, port: port)
        }
        let open = try XCTUnwrap(RawHTTPConnection(port: port))
        open.request("/v1/feed")
        _ = open.readResponse()
        let garbage = try XCTUnwrap(RawHTTPConnection(port: port))
        garbage.send("\u{1}\u{2}\r\n\r\n")
        _ = garbage.readToEnd()
        server.stop()

        // Compared as sets: what other tests' threads close meanwhile does not count.
        let opened = try openFileDescriptors().subtracting(before)
        XCTAssertEqual(opened.count, 2, "only the two client sockets are still open: \(opened.sorted())")
        XCTAssertTrue(opened.allSatisfy { $0.contains(" socket:[") }, "\(opened.sorted())")
    }

    func test_log_reportsEachRequestWithStatusAndBytes() throws {
        let lines = LockedLines()
        let server = FeedServer(fixtures: .acceptance, log: { lines.append($0) })
        try server.start()
        defer { server.stop() }

        let response = try get("/v1/feed?limit=1", port: server.port)
        _ = RawHTTPConnection.get("/_fault/reset/image-0", port: server.port)
        server.stop()

        // Each connection logs once its response is written, so the client
        // may see the first response before its line is logged: any order.
        let logged = lines.all
        XCTAssertEqual(logged.count, 2, "\(logged)")
        XCTAssertEqual(logged.filter { $0.hasPrefix("GET /v1/feed?limit=1 200 \(response.body.count) bytes ") }.count, 1, "\(logged)")
        XCTAssertEqual(logged.filter { $0.hasPrefix("GET /_fault/reset/image-0 reset") }.count, 1, "\(logged)")
    }

    /// Each open descriptor as "NUMBER TARGET" (`socket:[INODE]`, a path,
    /// …), so that a number reused for something else counts as new.
    private func openFileDescriptors() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").map { fd in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? "?"
            return "\(fd) \(target)"
        })
    }

    /// A request must arrive whole within the timeout: a client that sends
    /// a byte of its head at a time, each well within it, is closed at it
    /// (a bound on each read only kept such a client's place for good); an
    /// idle kept-alive connection too, and other clients are served.
    func test_aRequestThatTrickles_isClosedAtTheTimeout() throws {
        let server = FeedServer(fixtures: .acceptance, timeout: 1)
        _ = try server.start()
        defer { server.stop() }
        let port = server.port

        let slow = try XCTUnwrap(RawHTTPConnection(port: port))
        let idle = try XCTUnwrap(RawHTTPConnection(port: port))
        idle.request("/v1/feed?limit=1")
        XCTAssertEqual(idle.readResponse()?.status, 200)
        let started = Date()
        var sent = slow.send("GET /v1/feed HTTP/1.1\r\n")
        while sent, Date().timeIntervalSince(started) < 4 {
            Thread.sleep(forTimeInterval: 0.2)
            sent = slow.send("X")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "the trickle was cut at the timeout")
        XCTAssertTrue(idle.isClosedByServer())
        let other = try XCTUnwrap(RawHTTPConnection(port: port))
        other.request("/v1/feed?limit=1")
        XCTAssertEqual(other.readResponse()?.status, 200)
    }
}

/// Lines collected from any thread.
final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}
