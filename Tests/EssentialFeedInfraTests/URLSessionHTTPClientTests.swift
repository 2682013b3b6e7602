import Dispatch
import EssentialFeedNetwork
import FeedServer
import Foundation
import XCTest

/// The FoundationNetworking client against a real server on 127.0.0.1.
final class URLSessionHTTPClientTests: XCTestCase {
    private var server: FeedServer!
    private var base = ""

    override func setUpWithError() throws {
        server = FeedServer(fixtures: .acceptance)
        base = try server.start()
    }

    override func tearDown() {
        server.stop()
        server = nil
    }

    private func get(_ url: String, timeout: Double = 10) -> Result<HTTPResult, HTTPFailure> {
        let client = URLSessionHTTPClient(timeout: timeout)
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var result: Result<HTTPResult, HTTPFailure>? }
        let box = Box()
        client.get(url) { result in
            box.result = result
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + timeout + 10), .success, "no answer for \(url)")
        return box.result ?? .failure(HTTPFailure(.other, "no answer"))
    }

    func test_get_deliversStatusAndBodyOf200() throws {
        let result = try get(base + "/v1/feed?limit=2").get()
        XCTAssertEqual(result.status, 200)
        let json = try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any]
        XCTAssertEqual((json?["items"] as? [Any])?.count, 2)
    }

    func test_get_deliversNon200StatusesAsResponses() throws {
        for status in [201, 400, 404, 500, 503] {
            let result = try get(base + "/_fault/status=\(status)/v1/feed").get()
            XCTAssertEqual(result.status, status)
        }
    }

    func test_get_deliversUnknownPathAs404Response() throws {
        XCTAssertEqual(try get(base + "/no-such-image").get().status, 404)
    }

    func test_get_deliversImageBytesExactly() throws {
        let body = try get(base + "/image-0").get().body
        XCTAssertFalse(body.isEmpty)
        XCTAssertEqual(body, server.fixtures.images["image-0"].map(Array.init))
    }

    func test_get_failsWithRefusedOnAClosedPort() {
        let port = server.port
        server.stop()
        guard case let .failure(failure) = get("http://127.0.0.1:\(port)/v1/feed") else {
            return XCTFail("expected a failure")
        }
        XCTAssertEqual(failure.reason, .refused)
        XCTAssertEqual(failure.message, "connection refused")
    }

    func test_get_failsWithTimeoutWhenTheServerIsSlowerThanTheBound() {
        let started = Date()
        guard case let .failure(failure) = get(base + "/_fault/delay=3000/v1/feed", timeout: 0.5) else {
            return XCTFail("expected a timeout")
        }
        XCTAssertEqual(failure.reason, .timedOut)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.5)
    }

    func test_get_timeoutBoundsTheWholeRequestNotOnlyIdleTime() {
        // One byte every 200 ms never leaves the connection idle for long.
        guard case let .failure(failure) = get(base + "/_fault/drip=200/v1/feed", timeout: 1) else {
            return XCTFail("expected a timeout")
        }
        XCTAssertEqual(failure.reason, .timedOut)
    }

    func test_get_failsWhenTheBodyIsCutShort() {
        guard case let .failure(failure) = get(base + "/_fault/truncate=10/v1/feed") else {
            return XCTFail("a truncated body is not a response")
        }
        XCTAssertEqual(failure.reason, .connectionLost, failure.message)
    }

    func test_get_failsWhenTheConnectionIsReset() {
        guard case .failure = get(base + "/_fault/reset/v1/feed") else {
            return XCTFail("a reset is not a response")
        }
    }

    func test_cancel_deliversCancelledOnceAndPromptly() {
        let client = URLSessionHTTPClient(timeout: 10)
        let done = DispatchSemaphore(value: 0)
        final class Count: @unchecked Sendable {
            let lock = NSLock()
            var value = 0
            var last: Result<HTTPResult, HTTPFailure>?
        }
        let count = Count()
        let task = client.get(base + "/_fault/hang/v1/feed") { result in
            count.lock.lock()
            count.value += 1
            count.last = result
            count.lock.unlock()
            done.signal()
        }
        task.cancel()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        Thread.sleep(forTimeInterval: 0.3)
        count.lock.lock()
        defer { count.lock.unlock() }
        XCTAssertEqual(count.value, 1)
        if case let .failure(failure)? = count.last {
            XCTAssertEqual(failure.reason, .cancelled)
        } else {
            XCTFail("expected cancelled")
        }
    }
}
