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
    func test_get_sendsTheOneRequestShape() throws
    func test_get_decodesGzipAndDeflateBodies() throws
    func test_get_failsOnACorruptOrCutShortCompressedBody() throws
    func test_get_boundsEachLayerOfStackedCodings() throws
    func test_get_boundsTheDecodedSizeOfACompressedBody() throws
    func test_get_sendsConditions_andDeliversValidatorsAndA304() throws
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

    // MARK: Request shape and content codings

    /// A server that answers every request with `head` fields and `body`
    /// (framed by `Content-Length`, or chunked in `chunks` pieces), and
    /// keeps the last request head it read.
    final class Answering: @unchecked Sendable {
        private let lock = NSLock()
        private var lastHead = ""
        var server: RawSocketServer!
        var head: String { lock.withLock { lastHead } }

        init(fields: String, body: [UInt8], chunks: Int = 0) throws {
            server = try RawSocketServer { [self] connection in
                while let request = connection.readRequest() {
                    lock.withLock { lastHead = request }
                    var message: [UInt8]
                    if chunks > 0 {
                        message = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\(fields)\r\n".utf8)
                        let size = max(1, (body.count + chunks - 1) / chunks)
                        var start = 0
                        while start < body.count {
                            let end = min(body.count, start + size)
                            message += Array((String(end - start, radix: 16) + "\r\n").utf8) + body[start..<end] + Array("\r\n".utf8)
                            start = end
                        }
                        message += Array("0\r\n\r\n".utf8)
                    } else {
                        message = Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\(fields)\r\n".utf8) + body
                    }
                    guard connection.send(message) else { return }
                }
            }
        }

        var url: String { server.base + "/resource" }
    }

    func spec_get_sendsTheOneRequestShape() throws {
        let answering = try Answering(fields: "", body: Array("ok".utf8))
        defer { answering.server.stop() }
        _ = try get(answering.url).get()
        let lines = answering.head.split(separator: "\r\n", omittingEmptySubsequences: true).map(String.init)
        XCTAssertEqual(lines, [
            "GET /resource HTTP/1.1",
            "Host: 127.0.0.1:\(answering.server.port)",
            "User-Agent: feed-fetch",
            "Accept: */*",
            "Accept-Encoding: gzip, deflate",
        ])
    }

    func spec_get_decodesGzipAndDeflateBodies() throws {
        let payload = Array(String(repeating: #"{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","description":"x"},"#, count: 2000).utf8)
        let cases: [(String, [UInt8], Int)] = [
            ("Content-Encoding: gzip\r\n", Compression.compress(payload, .gzip), 0),
            ("Content-Encoding: gzip\r\n", Compression.compress(payload, .gzip), 7),
            ("Content-Encoding: x-gzip\r\n", Compression.compress(payload, .gzip), 0),
            ("Content-Encoding: deflate\r\n", Compression.compress(payload, .zlib), 3),
            ("Content-Encoding: deflate\r\n", Compression.compress(payload, .raw), 0),
            ("Content-Encoding: identity\r\n", payload, 2),
            ("", payload, 0),
            // Codings applied one after another (RFC 9110, 8.4), undone last first, as libcurl does.
            ("Content-Encoding: gzip, gzip\r\n", Compression.compress(Compression.compress(payload, .gzip), .gzip), 5),
            ("Content-Encoding: deflate\r\nContent-Encoding: gzip\r\n", Compression.compress(Compression.compress(payload, .zlib), .gzip), 0),
            ("Content-Encoding: gzip, identity, deflate\r\n", Compression.compress(Compression.compress(payload, .gzip), .raw), 0),
        ]
        for (fields, body, chunks) in cases {
            let answering = try Answering(fields: fields, body: body, chunks: chunks)
            defer { answering.server.stop() }
            let result = try get(answering.url).get()
            XCTAssertEqual(result.status, 200, fields)
            XCTAssertEqual(result.body.count, payload.count, "\(fields) in \(chunks) chunks")
            XCTAssertEqual(result.body, payload, "\(fields) in \(chunks) chunks")
        }
        // A coding this client does not decode, with one it does: the body is kept as sent.
        let sent = Compression.compress(payload, .gzip)
        let unknown = try Answering(fields: "Content-Encoding: gzip, br\r\n", body: sent)
        defer { unknown.server.stop() }
        XCTAssertEqual(try get(unknown.url).get().body, sent)
        // An empty compressed resource: no stream at all.
        let empty = try Answering(fields: "Content-Encoding: gzip\r\n", body: [])
        defer { empty.server.stop() }
        XCTAssertEqual(try get(empty.url).get().body, [])
    }

    /// A layer of codings between others is bounded as the body is: gzip
    /// members with nothing in them, nested, made minutes of work from a
    /// few hundred bytes sent, and an empty body in the end.
    func spec_get_boundsEachLayerOfStackedCodings() throws {
        let empty = Compression.compress([], .gzip)
        let members = Array([[UInt8]](repeating: empty, count: 100_000).joined())
        let answering = try Answering(fields: "Content-Encoding: gzip, gzip\r\n", body: Compression.compress(members, .gzip))
        defer { answering.server.stop() }
        let started = Date()
        guard case let .failure(failure) = get(answering.url, maxBodyBytes: 1 << 20) else {
            return XCTFail("a layer of \(members.count) bytes under a limit of 1 MiB is refused")
        }
        XCTAssertEqual(failure.reason, .bodyTooLarge, failure.message)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func spec_get_failsOnACorruptOrCutShortCompressedBody() throws {
        let payload = Array(String(repeating: "essential feed ", count: 5000).utf8)
        var corrupt = Compression.compress(payload, .gzip)
        for index in stride(from: 20, to: corrupt.count - 20, by: 7) { corrupt[index] ^= 0x5A }
        let cutShort = Array(Compression.compress(payload, .gzip).dropLast(40))
        for (name, body) in [("corrupt", corrupt), ("cut short", cutShort)] {
            let answering = try Answering(fields: "Content-Encoding: gzip\r\n", body: body)
            defer { answering.server.stop() }
            guard case let .failure(failure) = get(answering.url) else {
                XCTFail("a \(name) gzip body is no response")
                continue
            }
            XCTAssertEqual(failure.reason, .badResponse, "\(name): \(failure.message)")
            XCTAssertTrue(failure.message.hasPrefix("bad response: "), "\(name): \(failure.message)")
        }
    }

    /// 1 GiB of zeros in about 1 MiB of gzip, made once.
    static let bomb: [UInt8] = {
        let piece = [UInt8](repeating: 0, count: 1 << 20)
        return Compression.compress(.gzip, pieces: 1024) { _ in piece }
    }()

    func spec_get_boundsTheDecodedSizeOfACompressedBody() throws {
        XCTAssertLessThan(Self.bomb.count, 2 << 20)
        let answering = try Answering(fields: "Content-Encoding: gzip\r\n", body: Self.bomb)
        defer { answering.server.stop() }
        let started = Date()
        guard case let .failure(failure) = get(answering.url, maxBodyBytes: 8 << 20) else {
            return XCTFail("1 GiB decoded is over the limit")
        }
        XCTAssertEqual(failure.reason, .bodyTooLarge)
        XCTAssertEqual(failure.message, "response body larger than 8388608 bytes")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "decoding stops at the limit")

        // Exactly the limit, decoded, is accepted.
        let exact = try Answering(fields: "Content-Encoding: gzip\r\n", body: Compression.compress([UInt8](repeating: 7, count: 4096), .gzip))
        defer { exact.server.stop() }
        XCTAssertEqual(try get(exact.url, maxBodyBytes: 4096).get().body.count, 4096)
        guard case .failure = get(exact.url, maxBodyBytes: 4095) else { return XCTFail("one byte over, decoded, is too large") }
    }

    // MARK: Conditional requests

    func spec_get_sendsConditions_andDeliversValidatorsAndA304() throws {
        let etag = "\"v1\""
        let date = "Tue, 24 Nov 2026 10:00:00 GMT"
        final class Heads: @unchecked Sendable {
            let lock = NSLock()
            var heads: [String] = []
        }
        let heads = Heads()
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.lock.withLock { heads.heads.append(head) }
                let ok = head.contains("If-None-Match: \(etag)\r\n")
                    ? connection.send("HTTP/1.1 304 Not Modified\r\nETag: \(etag)\r\nLast-Modified: \(date)\r\n\r\n")
                    : connection.respond("fresh", headers: "ETag: \(etag)\r\nLast-Modified: \(date)\r\n")
                guard ok else { return }
            }
        }
        defer { server.stop() }
        let client = makeClient(timeout: 5, maxRedirects: 5, maxBodyBytes: 1 << 20)
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var results: [Result<HTTPResult, HTTPFailure>] = [] }
        let box = Box()
        client.get(HTTPRequest(server.base + "/feed")) { box.results.append($0); done.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        client.get(HTTPRequest(server.base + "/feed", ifNoneMatch: etag, ifModifiedSince: date)) { box.results.append($0); done.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)

        let fresh = try XCTUnwrap(box.results.first).get()
        XCTAssertEqual(fresh.status, 200)
        XCTAssertEqual(fresh.etag, etag)
        XCTAssertEqual(fresh.lastModified, date)
        let notModified = try box.results[1].get()
        XCTAssertEqual(notModified.status, 304)
        XCTAssertEqual(notModified.body, [])
        XCTAssertEqual(notModified.etag, etag)
        let all = heads.lock.withLock { heads.heads }
        XCTAssertFalse(all[0].contains("If-"), all[0])
        XCTAssertTrue(all[1].contains("\r\nIf-None-Match: \"v1\"\r\n"), all[1])
        XCTAssertTrue(all[1].contains("\r\nIf-Modified-Since: \(date)\r\n"), all[1])
    }
}
