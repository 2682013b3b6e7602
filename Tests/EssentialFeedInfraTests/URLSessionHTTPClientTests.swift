import Dispatch
import EssentialFeedNetwork
import FeedServer
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

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

    private func get(
        _ url: String, timeout: Double = 10, maxRedirects: Int = 5, maxBodyBytes: Int = 64 << 20
    ) -> Result<HTTPResult, HTTPFailure> {
        let client = URLSessionHTTPClient(timeout: timeout, maxRedirects: maxRedirects, maxBodyBytes: maxBodyBytes)
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

    // MARK: Faults with a documented outcome

    func test_get_failsWithTimeoutWhenTheHeadersNeverEnd() {
        let started = Date()
        guard case let .failure(failure) = get(base + "/_fault/hang/v1/feed", timeout: 0.5) else {
            return XCTFail("a head that never ends is no response")
        }
        XCTAssertEqual(failure.reason, .timedOut)
        XCTAssertEqual(failure.message, "timed out after 0.5 s")
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.4, "not before the bound")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    func test_get_fractionalTimeoutLetsAFasterResponseThrough() throws {
        // FoundationNetworking counts its own timeouts in whole seconds; 0.5 must not become 0.
        XCTAssertEqual(try get(base + "/_fault/delay=100/v1/feed", timeout: 0.5).get().status, 200)
        XCTAssertEqual(try get(base + "/_fault/delay=1200/v1/feed", timeout: 1.5).get().status, 200)
    }

    func test_get_followsRedirectsUpToTheLimitAndNamesTheFinalURL() throws {
        let result = try get(base + "/_fault/redirect=5/v1/feed?limit=1", maxRedirects: 5).get()
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.finalURL, base + "/_fault/redirect=0/v1/feed?limit=1")
        let json = try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any]
        XCTAssertEqual((json?["items"] as? [Any])?.count, 1)
    }

    func test_get_hasNoFinalURLWhenNotRedirected() throws {
        XCTAssertNil(try get(base + "/v1/feed?limit=1").get().finalURL)
    }

    func test_get_failsWithTooManyRedirectsPastTheLimit() {
        for (redirects, limit) in [(6, 5), (2, 1), (21, 20)] {
            guard case let .failure(failure) = get(base + "/_fault/redirect=\(redirects)/v1/feed", maxRedirects: limit) else {
                XCTFail("\(redirects) redirects with a limit of \(limit) should fail")
                continue
            }
            XCTAssertEqual(failure.reason, .tooManyRedirects)
            XCTAssertEqual(failure.message, "too many redirects (\(limit))")
        }
    }

    func test_get_withNoRedirectsAllowedDeliversThe3xxAsTheResponse() throws {
        let result = try get(base + "/_fault/redirect=1/v1/feed", maxRedirects: 0).get()
        XCTAssertEqual(result.status, 302)
        XCTAssertNil(result.finalURL)
        let json = try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any]
        XCTAssertEqual(json?["message"] as? String, "redirecting to " + base + "/_fault/redirect=0/v1/feed")
    }

    func test_get_failsWhenTheDeclaredBodyIsLargerThanTheLimit() {
        guard case let .failure(failure) = get(base + "/_fault/big=5000/v1/feed", maxBodyBytes: 4096) else {
            return XCTFail("a body over the limit is no response")
        }
        XCTAssertEqual(failure.reason, .bodyTooLarge)
        XCTAssertEqual(failure.message, "response body larger than 4096 bytes")
    }

    func test_get_acceptsABodyOfExactlyTheLimit() throws {
        let result = try get(base + "/_fault/big=4096/v1/feed", maxBodyBytes: 4096).get()
        XCTAssertEqual(result.body.count, 4096)
        guard case .failure = get(base + "/_fault/big=4097/v1/feed", maxBodyBytes: 4096) else {
            return XCTFail("one byte over the limit is too large")
        }
    }

    func test_get_stopsReadingAnEndlessBodyWithoutLengthPastTheLimit() throws {
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

    func test_get_deliversNonUTF8AndBinaryBodiesExactly() throws {
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

/// A raw HTTP server on 127.0.0.1 for what FeedServer cannot do: it answers
/// its first connection with a head without `Content-Length` and then body
/// bytes without end (until the client leaves or 1 GiB was sent), 64 KiB a
/// millisecond at most: a fast network, not a loopback flood that starves
/// the client's threads of the CPU.
private final class EndlessBodyServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var sentBytes = 0
    private let left = DispatchSemaphore(value: 0)

    var sent: Int { lock.withLock { sentBytes } }

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(listener, pointer, length) == 0 && listen(listener, 4) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { close(listener); throw POSIXError(.EADDRNOTAVAIL) }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        Thread.detachNewThread { [self] in
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                left.signal()
                return
            }
            // Read the request head (it fits in one read on loopback), then send without end.
            var request = [UInt8](repeating: 0, count: 64 << 10)
            _ = request.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            let head = Array("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n".utf8)
            _ = head.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
            while sent < 1 << 30 {
                let n = chunk.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { break }
                lock.withLock { sentBytes += n }
                usleep(1000)
            }
            close(fd)
            left.signal()
        }
    }

    /// Waits until the client closed its end (sending failed).
    func waitUntilClientLeft(timeout: Double) -> Bool {
        left.wait(timeout: .now() + timeout) == .success
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
