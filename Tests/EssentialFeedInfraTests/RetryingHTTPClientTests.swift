import Dispatch
import EssentialFeedNetwork
import Foundation
import XCTest

/// The retrying client against a raw server that fails, then answers.
final class RetryingHTTPClientTests: XCTestCase {
    /// Answers the first `failing` requests with `status` (and `fields`), the rest with 200 "ok".
    private func server(failing: Int, status: Int = 503, fields: String = "") throws -> (RawSocketServer, Counter) {
        let counter = Counter()
        let server = try RawSocketServer { connection in
            while connection.readRequest() != nil {
                let n = counter.next()
                let ok = n < failing ? connection.respond(status: status, "busy", headers: fields) : connection.respond("ok")
                guard ok else { return }
            }
        }
        return (server, counter)
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func next() -> Int { lock.withLock { defer { count += 1 }; return count } }
        var value: Int { lock.withLock { count } }
    }

    func test_retriesTransientFailures_thenDeliversTheAnswer() throws {
        let (server, counter) = try server(failing: 2)
        defer { server.stop() }
        let client = RetryingHTTPClient(CurlHTTPClient(timeout: 5), policy: RetryPolicy(retries: 2, maxTime: 60, firstDelay: 0.05))
        let result = try answer(of: client, server.base + "/a").get()
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(counter.value, 3)
    }

    func test_deliversTheLastAttempt_whenTheRetriesAreSpent() throws {
        let (server, counter) = try server(failing: 5)
        defer { server.stop() }
        let client = RetryingHTTPClient(CurlHTTPClient(timeout: 5), policy: RetryPolicy(retries: 2, maxTime: 60, firstDelay: 0.05))
        XCTAssertEqual(try answer(of: client, server.base + "/a").get().status, 503)
        XCTAssertEqual(counter.value, 3)
    }

    func test_doesNotRetryWhatIsNotTransient() throws {
        let (server, counter) = try server(failing: 1, status: 404)
        defer { server.stop() }
        let client = RetryingHTTPClient(CurlHTTPClient(timeout: 5), policy: RetryPolicy(retries: 3, maxTime: 60, firstDelay: 0.05))
        XCTAssertEqual(try answer(of: client, server.base + "/a").get().status, 404)
        XCTAssertEqual(counter.value, 1)
    }

    func test_waitsWhatRetryAfterSays() throws {
        let (server, counter) = try server(failing: 1, fields: "Retry-After: 1\r\n")
        defer { server.stop() }
        let client = RetryingHTTPClient(CurlHTTPClient(timeout: 5), policy: RetryPolicy(retries: 1, maxTime: 60, firstDelay: 0.01))
        let started = Date()
        XCTAssertEqual(try answer(of: client, server.base + "/a").get().status, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.95)
        XCTAssertEqual(counter.value, 2)
    }

    func test_cancel_duringTheWait_deliversCancelledAtOnce_andSendsNoMore() throws {
        let (server, counter) = try server(failing: 5)
        defer { server.stop() }
        let client = RetryingHTTPClient(CurlHTTPClient(timeout: 5), policy: RetryPolicy(retries: 3, maxTime: 60, firstDelay: 2))
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var results: [Result<HTTPResult, HTTPFailure>] = [] }
        let box = Box()
        let task = client.get(server.base + "/a") { box.results.append($0); done.signal() }
        while counter.value < 1 { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.2)
        task.cancel()
        XCTAssertEqual(done.wait(timeout: .now() + 1), .success)
        Thread.sleep(forTimeInterval: 2.2)
        XCTAssertEqual(box.results.count, 1)
        guard case let .failure(failure)? = box.results.first else { return XCTFail("cancelled") }
        XCTAssertEqual(failure.reason, .cancelled)
        XCTAssertEqual(counter.value, 1)
    }
}
