import Dispatch
import EssentialFeedNetwork
import FeedServer
import Foundation
import XCTest

/// The behaviours every `HTTPClient` keeps, against a real server on
/// 127.0.0.1: one spec, run against each client. Each client's test case
/// conforms (so it must name every test) and calls the spec's body, which
/// lives in ``HTTPClientTestCase`` (XCTest on Linux runs only the test
/// methods a class declares itself, not inherited ones).
protocol HTTPClientSpecs {
    func test_get_deliversStatusAndBodyOf200() throws
    func test_get_deliversNon200StatusesAsResponses() throws
    func test_get_deliversUnknownPathAs404Response() throws
    func test_get_deliversImageBytesExactly() throws
    func test_get_failsWithRefusedOnAClosedPort()
    func test_get_failsWithTimeoutWhenTheServerIsSlowerThanTheBound()
    func test_get_timeoutBoundsTheWholeRequestNotOnlyIdleTime()
    func test_get_failsWhenTheBodyIsCutShort()
    func test_get_failsWhenTheConnectionIsReset()
    func test_cancel_deliversCancelledOnceAndPromptly()
    func test_get_failsWithTimeoutWhenTheHeadersNeverEnd()
    func test_get_fractionalTimeoutLetsAFasterResponseThrough() throws
    func test_get_followsRedirectsUpToTheLimitAndNamesTheFinalURL() throws
    func test_get_hasNoFinalURLWhenNotRedirected() throws
    func test_get_failsWithTooManyRedirectsPastTheLimit()
    func test_get_withNoRedirectsAllowedDeliversThe3xxAsTheResponse() throws
    func test_get_failsWhenTheDeclaredBodyIsLargerThanTheLimit()
    func test_get_acceptsABodyOfExactlyTheLimit() throws
    func test_get_stopsReadingAnEndlessBodyWithoutLengthPastTheLimit() throws
    func test_get_deliversNonUTF8AndBinaryBodiesExactly() throws
}

/// The base of each client's test case: a FeedServer on 127.0.0.1 for each
/// test, a way to make the client under test, and the bodies of the specs.
class HTTPClientTestCase: XCTestCase {
    var server: FeedServer!
    var base = ""

    /// The client under test, made anew for each request.
    func makeClient(timeout: Double, maxRedirects: Int, maxBodyBytes: Int) -> HTTPClient {
        fatalError("a subclass makes the client under test")
    }

    override func setUpWithError() throws {
        server = FeedServer(fixtures: .acceptance)
        base = try server.start()
    }

    override func tearDown() {
        server.stop()
        server = nil
    }

    /// One GET with a new client, waited for.
    func get(
        _ url: String, timeout: Double = 10, maxRedirects: Int = 5, maxBodyBytes: Int = 64 << 20,
        file: StaticString = #filePath, line: UInt = #line
    ) -> Result<HTTPResult, HTTPFailure> {
        let client = makeClient(timeout: timeout, maxRedirects: maxRedirects, maxBodyBytes: maxBodyBytes)
        return result(of: client, url, waiting: timeout + 10, file: file, line: line)
    }

    /// One GET with `client`, waited for at most `waiting` seconds.
    func result(
        of client: HTTPClient, _ url: String, waiting: Double = 20, file: StaticString = #filePath, line: UInt = #line
    ) -> Result<HTTPResult, HTTPFailure> {
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var result: Result<HTTPResult, HTTPFailure>? }
        let box = Box()
        client.get(url) { result in
            box.result = result
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + waiting), .success, "no answer for \(url)", file: file, line: line)
        return box.result ?? .failure(HTTPFailure(.other, "no answer"))
    }

    // MARK: The specs

    func spec_get_deliversStatusAndBodyOf200() throws {
        let result = try get(base + "/v1/feed?limit=2").get()
        XCTAssertEqual(result.status, 200)
        let json = try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any]
        XCTAssertEqual((json?["items"] as? [Any])?.count, 2)
    }

    func spec_get_deliversNon200StatusesAsResponses() throws {
        for status in [201, 400, 404, 500, 503] {
            let result = try get(base + "/_fault/status=\(status)/v1/feed").get()
            XCTAssertEqual(result.status, status)
        }
    }

    func spec_get_deliversUnknownPathAs404Response() throws {
        XCTAssertEqual(try get(base + "/no-such-image").get().status, 404)
    }

    func spec_get_deliversImageBytesExactly() throws {
        let body = try get(base + "/image-0").get().body
        XCTAssertFalse(body.isEmpty)
        XCTAssertEqual(body, server.fixtures.images["image-0"].map(Array.init))
    }

    func spec_get_failsWithRefusedOnAClosedPort() {
        let port = server.port
        server.stop()
        guard case let .failure(failure) = get("http://127.0.0.1:\(port)/v1/feed") else {
            return XCTFail("expected a failure")
        }
        XCTAssertEqual(failure.reason, .refused)
        XCTAssertEqual(failure.message, "connection refused")
    }

    func spec_get_failsWithTimeoutWhenTheServerIsSlowerThanTheBound() {
        let started = Date()
        guard case let .failure(failure) = get(base + "/_fault/delay=3000/v1/feed", timeout: 0.5) else {
            return XCTFail("expected a timeout")
        }
        XCTAssertEqual(failure.reason, .timedOut)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.5)
    }

    func spec_get_timeoutBoundsTheWholeRequestNotOnlyIdleTime() {
        // One byte every 200 ms never leaves the connection idle for long.
        guard case let .failure(failure) = get(base + "/_fault/drip=200/v1/feed", timeout: 1) else {
            return XCTFail("expected a timeout")
        }
        XCTAssertEqual(failure.reason, .timedOut)
    }

    func spec_get_failsWhenTheBodyIsCutShort() {
        guard case let .failure(failure) = get(base + "/_fault/truncate=10/v1/feed") else {
            return XCTFail("a truncated body is not a response")
        }
        XCTAssertEqual(failure.reason, .connectionLost, failure.message)
    }

    func spec_get_failsWhenTheConnectionIsReset() {
        guard case let .failure(failure) = get(base + "/_fault/reset/v1/feed") else {
            return XCTFail("a reset is not a response")
        }
        XCTAssertEqual(failure.reason, .connectionLost)
        XCTAssertEqual(failure.message, "connection lost")
    }

    func spec_cancel_deliversCancelledOnceAndPromptly() {
        let client = makeClient(timeout: 10, maxRedirects: 5, maxBodyBytes: 64 << 20)
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

    // MARK: Faults with a documented outcome

    func spec_get_failsWithTimeoutWhenTheHeadersNeverEnd() {
        let started = Date()
        guard case let .failure(failure) = get(base + "/_fault/hang/v1/feed", timeout: 0.5) else {
            return XCTFail("a head that never ends is no response")
        }
        XCTAssertEqual(failure.reason, .timedOut)
        XCTAssertEqual(failure.message, "timed out after 0.5 s")
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.4, "not before the bound")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    func spec_get_fractionalTimeoutLetsAFasterResponseThrough() throws {
        // FoundationNetworking counts its own timeouts in whole seconds; 0.5 must not become 0.
        XCTAssertEqual(try get(base + "/_fault/delay=100/v1/feed", timeout: 0.5).get().status, 200)
        XCTAssertEqual(try get(base + "/_fault/delay=1200/v1/feed", timeout: 1.5).get().status, 200)
    }

    func spec_get_followsRedirectsUpToTheLimitAndNamesTheFinalURL() throws {
        let result = try get(base + "/_fault/redirect=5/v1/feed?limit=1", maxRedirects: 5).get()
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.finalURL, base + "/_fault/redirect=0/v1/feed?limit=1")
        let json = try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any]
        XCTAssertEqual((json?["items"] as? [Any])?.count, 1)
    }

    func spec_get_hasNoFinalURLWhenNotRedirected() throws {
        XCTAssertNil(try get(base + "/v1/feed?limit=1").get().finalURL)
    }

    func spec_get_failsWithTooManyRedirectsPastTheLimit() {
        for (redirects, limit) in [(6, 5), (2, 1), (21, 20)] {
            guard case let .failure(failure) = get(base + "/_fault/redirect=\(redirects)/v1/feed", maxRedirects: limit) else {
                XCTFail("\(redirects) redirects with a limit of \(limit) should fail")
                continue
            }
            XCTAssertEqual(failure.reason, .tooManyRedirects)
            XCTAssertEqual(failure.message, "too many redirects (\(limit))")
        }
    }

    func spec_get_withNoRedirectsAllowedDeliversThe3xxAsTheResponse() throws {
        let result = try get(base + "/_fault/redirect=1/v1/feed", maxRedirects: 0).get()
        XCTAssertEqual(result.status, 302)
        XCTAssertNil(result.finalURL)
        let json = try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any]
        XCTAssertEqual(json?["message"] as? String, "redirecting to " + base + "/_fault/redirect=0/v1/feed")
    }

    func spec_get_failsWhenTheDeclaredBodyIsLargerThanTheLimit() {
        guard case let .failure(failure) = get(base + "/_fault/big=5000/v1/feed", maxBodyBytes: 4096) else {
            return XCTFail("a body over the limit is no response")
        }
        XCTAssertEqual(failure.reason, .bodyTooLarge)
        XCTAssertEqual(failure.message, "response body larger than 4096 bytes")
    }

    func spec_get_acceptsABodyOfExactlyTheLimit() throws {
        let result = try get(base + "/_fault/big=4096/v1/feed", maxBodyBytes: 4096).get()
        XCTAssertEqual(result.body.count, 4096)
        guard case .failure = get(base + "/_fault/big=4097/v1/feed", maxBodyBytes: 4096) else {
            return XCTFail("one byte over the limit is too large")
        }
    }

    func spec_get_stopsReadingAnEndlessBodyWithoutLengthPastTheLimit() throws {
        let endless = try EndlessBodyServer()
        defer { endless.stop() }
        let started = Date()
        guard case let .failure(failure) = get("http://127.0.0.1:\(endless.port)/endless", timeout: 20, maxBodyBytes: 1 << 20) else {
            return XCTFail("an endless body is no response")
        }
        XCTAssertEqual(failure.reason, .bodyTooLarge)
        XCTAssertEqual(failure.message, "response body larger than 1048576 bytes")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the transfer stops at the limit, not at the timeout")
        XCTAssertTrue(endless.waitUntilClientLeft(timeout: 5), "the client closes the connection")
        XCTAssertLessThan(endless.sent, 32 << 20, "the transfer stopped soon after the limit")
    }

    func spec_get_deliversNonUTF8AndBinaryBodiesExactly() throws {
        let latin1: [UInt8] = Array("caf".utf8) + [0xE9, 0x0A]
        let allBytes = (0...255).map { UInt8($0) }
        let almostJSON: [UInt8] = Array(#"{"a":""#.utf8) + [0xFF] + Array(#""}"#.utf8)
        let other = FeedServer(fixtures: FeedServerFixtures(images: ["latin1": latin1, "all": allBytes, "almost": almostJSON, "empty": []]))
        let otherBase = try other.start()
        defer { other.stop() }
        for (name, bytes) in [("latin1", latin1), ("all", allBytes), ("almost", almostJSON), ("empty", [])] {
            let result = try get(otherBase + "/" + name).get()
            XCTAssertEqual(result.status, 200, name)
            XCTAssertEqual(result.body, bytes, name)
        }
    }
}
