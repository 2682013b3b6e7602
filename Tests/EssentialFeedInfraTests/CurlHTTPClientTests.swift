import EssentialFeedNetwork
import Foundation
import XCTest

/// The one HTTP client, on libcurl, against the HTTP client spec, and
/// against servers that misbehave on purpose (``RawSocketServer``).
final class CurlHTTPClientTests: HTTPClientTestCase, HTTPClientSpecs {
    override func makeClient(timeout: Double, maxRedirects: Int, maxBodyBytes: Int) -> HTTPClient {
        CurlHTTPClient(timeout: timeout, maxRedirects: maxRedirects, maxBodyBytes: maxBodyBytes)
    }

    func test_get_deliversStatusAndBodyOf200() throws {
        try spec_get_deliversStatusAndBodyOf200()
    }

    func test_get_deliversNon200StatusesAsResponses() throws {
        try spec_get_deliversNon200StatusesAsResponses()
    }

    func test_get_deliversUnknownPathAs404Response() throws {
        try spec_get_deliversUnknownPathAs404Response()
    }

    func test_get_deliversImageBytesExactly() throws {
        try spec_get_deliversImageBytesExactly()
    }

    func test_get_failsWithRefusedOnAClosedPort() {
        spec_get_failsWithRefusedOnAClosedPort()
    }

    func test_get_failsWithTimeoutWhenTheServerIsSlowerThanTheBound() {
        spec_get_failsWithTimeoutWhenTheServerIsSlowerThanTheBound()
    }

    func test_get_timeoutBoundsTheWholeRequestNotOnlyIdleTime() {
        spec_get_timeoutBoundsTheWholeRequestNotOnlyIdleTime()
    }

    func test_get_failsWhenTheBodyIsCutShort() {
        spec_get_failsWhenTheBodyIsCutShort()
    }

    func test_get_failsWhenTheConnectionIsReset() {
        spec_get_failsWhenTheConnectionIsReset()
    }

    func test_cancel_deliversCancelledOnceAndPromptly() {
        spec_cancel_deliversCancelledOnceAndPromptly()
    }

    func test_get_failsWithTimeoutWhenTheHeadersNeverEnd() {
        spec_get_failsWithTimeoutWhenTheHeadersNeverEnd()
    }

    func test_get_fractionalTimeoutLetsAFasterResponseThrough() throws {
        try spec_get_fractionalTimeoutLetsAFasterResponseThrough()
    }

    func test_get_followsRedirectsUpToTheLimitAndNamesTheFinalURL() throws {
        try spec_get_followsRedirectsUpToTheLimitAndNamesTheFinalURL()
    }

    func test_get_hasNoFinalURLWhenNotRedirected() throws {
        try spec_get_hasNoFinalURLWhenNotRedirected()
    }

    func test_get_failsWithTooManyRedirectsPastTheLimit() {
        spec_get_failsWithTooManyRedirectsPastTheLimit()
    }

    func test_get_withNoRedirectsAllowedDeliversThe3xxAsTheResponse() throws {
        try spec_get_withNoRedirectsAllowedDeliversThe3xxAsTheResponse()
    }

    func test_get_failsWhenTheDeclaredBodyIsLargerThanTheLimit() {
        spec_get_failsWhenTheDeclaredBodyIsLargerThanTheLimit()
    }

    func test_get_acceptsABodyOfExactlyTheLimit() throws {
        try spec_get_acceptsABodyOfExactlyTheLimit()
    }

    func test_get_stopsReadingAnEndlessBodyWithoutLengthPastTheLimit() throws {
        try spec_get_stopsReadingAnEndlessBodyWithoutLengthPastTheLimit()
    }

    func test_get_deliversNonUTF8AndBinaryBodiesExactly() throws {
        try spec_get_deliversNonUTF8AndBinaryBodiesExactly()
    }

    func test_get_sendsTheOneRequestShape() throws {
        try spec_get_sendsTheOneRequestShape()
    }

    func test_get_decodesGzipAndDeflateBodies() throws {
        try spec_get_decodesGzipAndDeflateBodies()
    }

    func test_get_boundsEachLayerOfStackedCodings() throws {
        try spec_get_boundsEachLayerOfStackedCodings()
    }

    func test_get_failsOnACorruptOrCutShortCompressedBody() throws {
        try spec_get_failsOnACorruptOrCutShortCompressedBody()
    }

    func test_get_boundsTheDecodedSizeOfACompressedBody() throws {
        try spec_get_boundsTheDecodedSizeOfACompressedBody()
    }

    func test_get_sendsConditions_andDeliversValidatorsAndA304() throws {
        try spec_get_sendsConditions_andDeliversValidatorsAndA304()
    }

    // MARK: Own behaviours

    private func client(timeout: Double = 5, connections: Int = 8, maxBodyBytes: Int = 64 << 20) -> CurlHTTPClient {
        CurlHTTPClient(timeout: timeout, maxConnectionsPerHost: connections, maxBodyBytes: maxBodyBytes)
    }

    private func failure(_ result: Result<HTTPResult, HTTPFailure>, file: StaticString = #filePath, line: UInt = #line) -> HTTPFailure? {
        guard case let .failure(failure) = result else {
            XCTFail("expected a failure, got \(result)", file: file, line: line)
            return nil
        }
        return failure
    }

    private func body(_ result: Result<HTTPResult, HTTPFailure>) -> String? {
        (try? result.get()).map { String(decoding: $0.body, as: UTF8.self) }
    }

    func test_get_sendsAnHTTP11GETWithTheFieldsItPromises() throws {
        let heads = Recorder()
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.append(head)
                connection.respond("ok")
            }
        }
        defer { server.stop() }
        _ = try result(of: client(), "http://us%65r:p%40ss@127.0.0.1:\(server.port)/a%20b/c?q=1#fragment").get()
        let head = try XCTUnwrap(heads.all.first)
        let lines = head.components(separatedBy: "\r\n")
        XCTAssertEqual(lines.first, "GET /a%20b/c?q=1 HTTP/1.1")
        for field in ["Host: 127.0.0.1:\(server.port)", "Accept-Encoding: gzip, deflate",
                      "User-Agent: feed-fetch", "Authorization: Basic dXNlcjpwQHNz"] {
            XCTAssertTrue(lines.contains(field), "\(field) in \(head)")
        }
        XCTAssertTrue(head.hasSuffix("\r\n\r\n"))
    }

    func test_get_reusesAKeepAliveConnectionForTheNextRequests() throws {
        let server = try RawSocketServer.keepAlive("ok")
        defer { server.stop() }
        let client = client()
        for index in 0..<5 {
            XCTAssertEqual(body(result(of: client, server.base + "/\(index)")), "ok")
        }
        XCTAssertEqual(server.accepted, 1, "one connection for five requests")
    }

    func test_get_opensAtMostMaxConnectionsPerHostAndQueuesTheRest() throws {
        let server = try RawSocketServer { connection in
            while connection.readRequest() != nil {
                usleep(50_000)
                guard connection.respond("ok") else { return }
            }
        }
        defer { server.stop() }
        let client = client(connections: 2)
        let group = DispatchGroup()
        let bodies = Recorder()
        for index in 0..<8 {
            group.enter()
            client.get(server.base + "/\(index)") { result in
                bodies.append((try? result.get()).map { String(decoding: $0.body, as: UTF8.self) } ?? "failed")
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(bodies.all, Array(repeating: "ok", count: 8))
        XCTAssertLessThanOrEqual(server.mostOpenAtOnce, 2)
        XCTAssertLessThanOrEqual(server.accepted, 2)
    }

    func test_get_retriesOnANewConnectionWhenTheIdleOneWasClosedWithTheRequestUnanswered() throws {
        let server = try RawSocketServer { connection in
            if connection.index == 0 {
                // Answers once, then takes the next request and closes: an idle timeout met at the wrong moment.
                guard connection.readRequest() != nil else { return }
                connection.respond("first")
                _ = connection.readRequest()
                return
            }
            while connection.readRequest() != nil { connection.respond("again") }
        }
        defer { server.stop() }
        let client = client()
        XCTAssertEqual(body(result(of: client, server.base + "/1")), "first")
        XCTAssertEqual(body(result(of: client, server.base + "/2")), "again")
        XCTAssertEqual(server.accepted, 2)
    }

    func test_get_retriesOnANewConnectionWhenTheIdleOneWasClosedMeanwhile() throws {
        let server = try RawSocketServer { connection in
            // Answers without Connection: close, then closes while the connection is idle.
            guard connection.readRequest() != nil else { return }
            connection.respond(connection.index == 0 ? "first" : "again")
        }
        defer { server.stop() }
        let client = client()
        XCTAssertEqual(body(result(of: client, server.base + "/1")), "first")
        usleep(100_000)
        XCTAssertEqual(body(result(of: client, server.base + "/2")), "again")
    }

    func test_get_doesNotRetryOnceTheResponseHasBegun() throws {
        let server = try RawSocketServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.respond("first")
            guard connection.readRequest() != nil else { return }
            connection.send("HTTP/1.1 200 OK\r\nContent-Le")
        }
        defer { server.stop() }
        let client = client()
        XCTAssertEqual(body(result(of: client, server.base + "/1")), "first")
        XCTAssertEqual(failure(result(of: client, server.base + "/2"))?.reason, .connectionLost)
        XCTAssertEqual(server.accepted, 1, "not sent again")
    }

    func test_get_failsWithConnectionLostWhenTheServerClosesInTheMiddleOfTheHead() throws {
        for sent in ["HTTP/1.1 200 OK\r\nContent-Le", "HTTP/1.", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", ""] {
            let server = try RawSocketServer { connection in
                guard connection.readRequest() != nil else { return }
                connection.send(sent)
            }
            defer { server.stop() }
            let failure = failure(result(of: client(), server.base + "/v1/feed"))
            XCTAssertEqual(failure?.reason, .connectionLost, sent)
            XCTAssertEqual(failure?.message, "connection lost", sent)
        }
    }

    /// A redirect's head cut short as well: libcurl followed its Location
    /// (the line whole) as if the head had ended, and the record was the
    /// next response's 200.
    func test_get_failsWithConnectionLostWhenTheServerClosesInTheMiddleOfARedirectsHead() throws {
        for sent in ["HTTP/1.1 302 Found\r\nLocation: /next\r\n", "HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 0\r\n",
                     "HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 0\r\n\r"] {
            let server = try RawSocketServer { connection in
                guard let head = connection.readRequest() else { return }
                if head.hasPrefix("GET /next ") { connection.respond("ok") } else { connection.send(sent) }
            }
            defer { server.stop() }
            let failure = failure(result(of: client(), server.base + "/start"))
            XCTAssertEqual(failure?.reason, .connectionLost, sent)
            XCTAssertEqual(failure?.message, "connection lost", sent)
        }
    }

    /// A request, once answered and let go by its caller, is let go by the
    /// client too, with its body: each request's transfer was kept for good
    /// by a cycle (found in review), its spool file open with it.
    func test_get_keepsNothingOfARequestOnceItIsAnsweredAndLetGo() throws {
        let server = try RawSocketServer.keepAlive("body")
        defer { server.stop() }
        let client = CurlHTTPClient(timeout: 5)
        weak var weakTask: AnyObject?
        let done = DispatchSemaphore(value: 0)
        do {
            let task = client.get(server.base + "/a") { _ in done.signal() }
            weakTask = task as AnyObject
            XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        }
        let deadline = Date().addingTimeInterval(2)
        while weakTask != nil, Date() < deadline { usleep(10_000) }
        XCTAssertNil(weakTask, "the request is still held")
    }

    /// A redirect to a scheme that is never followed: said as such (it
    /// read "Protocol "file" not supported or disabled in libcurl"; found
    /// by the hunt).
    func test_get_aRedirectToAnotherScheme_isABadResponseThatNamesIt() throws {
        for location in ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/"] {
            let server = try RawSocketServer { connection in
                guard connection.readRequest() != nil else { return }
                _ = connection.respond(status: 302, "", headers: "Location: \(location)\r\n")
            }
            defer { server.stop() }
            let failure = failure(result(of: client(), server.base + "/start"))
            XCTAssertEqual(failure?.reason, .badResponse, location)
            let scheme = location.prefix { $0 != ":" }
            XCTAssertEqual(failure?.message, "bad response: a redirect to a \(scheme): URL (only http and https are followed)")
        }
    }

    func test_get_decodesAChunkedBodyArrivingInPiecesAndKeepsTheConnection() throws {
        let server = try RawSocketServer { connection in
            guard connection.readRequest() != nil else { return }
            for piece in ["HTTP/1.1 200 OK\r\nTransfer-Enc", "oding: chunked\r\n\r\n5", ";name=value\r\nhel", "lo\r\n7\r\n, world\r",
                          "\n10\r\n 0123456789abcde\r\n0\r\n", "X-Trailer: t\r\n\r\n"] {
                connection.send(piece)
                usleep(20_000)
            }
            guard connection.readRequest() != nil else { return }
            connection.respond("next")
        }
        defer { server.stop() }
        let client = client()
        XCTAssertEqual(body(result(of: client, server.base + "/chunked")), "hello, world 0123456789abcde")
        XCTAssertEqual(body(result(of: client, server.base + "/next")), "next")
        XCTAssertEqual(server.accepted, 1)
    }

    func test_get_failsWithConnectionLostWhenAChunkedBodyIsCutShort() throws {
        let server = try RawSocketServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel")
        }
        defer { server.stop() }
        XCTAssertEqual(failure(result(of: client(), server.base + "/"))?.reason, .connectionLost)
    }

    func test_get_failsWithBodyTooLargeWhenChunksPassTheLimit() throws {
        let server = try RawSocketServer { connection in
            guard connection.readRequest() != nil else { return }
            let chunk = "7d0\r\n" + String(repeating: "x", count: 2000) + "\r\n"
            connection.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk + chunk + chunk + "0\r\n\r\n")
        }
        defer { server.stop() }
        let failure = failure(result(of: client(maxBodyBytes: 4096), server.base + "/"))
        XCTAssertEqual(failure?.reason, .bodyTooLarge)
        XCTAssertEqual(failure?.message, "response body larger than 4096 bytes")
    }

    func test_get_readsABodyWithoutLengthUntilTheServerCloses() throws {
        let server = try RawSocketServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.send(connection.index == 0 ? "HTTP/1.1 200 OK\r\n\r\nuntil " : "HTTP/1.0 200 OK\r\n\r\nclose")
        }
        defer { server.stop() }
        let client = client()
        XCTAssertEqual(body(result(of: client, server.base + "/1")), "until ")
        XCTAssertEqual(body(result(of: client, server.base + "/2")), "close")
    }

    func test_get_deliversA204AndA304WithoutWaitingForABody() throws {
        let server = try RawSocketServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.send("HTTP/1.1 204 No Content\r\n\r\n")
            guard connection.readRequest() != nil else { return }
            connection.send("HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n")
            guard connection.readRequest() != nil else { return }
            connection.respond("after")
        }
        defer { server.stop() }
        let client = client(timeout: 2)
        XCTAssertEqual(try result(of: client, server.base + "/1").get(), HTTPResult(status: 204, body: []))
        XCTAssertEqual(try result(of: client, server.base + "/2").get(), HTTPResult(status: 304, body: [], etag: "\"x\""))
        XCTAssertEqual(body(result(of: client, server.base + "/3")), "after")
        XCTAssertEqual(server.accepted, 1)
    }

    func test_get_skipsInformationalHeads() throws {
        let server = try RawSocketServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.send("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        }
        defer { server.stop() }
        XCTAssertEqual(try result(of: client(), server.base + "/").get(), HTTPResult(status: 200, body: Array("ok".utf8)))
    }

    /// The .netrc entry of a host goes to that host: not to another one a
    /// redirect leads to (libcurl's reading of the file).
    func test_get_sendsTheNetrcCredentialsOfTheHost_andNotToTheHostARedirectGoesTo() throws {
        let heads = Recorder()
        final class Port: @unchecked Sendable { var value: UInt16 = 0 }
        let port = Port()
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.append(head)
                if head.hasPrefix("GET /first ") {
                    connection.respond(status: 302, "", headers: "Location: http://localhost:\(port.value)/second\r\n")
                } else {
                    connection.respond("done")
                }
            }
        }
        defer { server.stop() }
        port.value = server.port
        let netrc = NSTemporaryDirectory() + "/netrc-\(UUID().uuidString)"
        try "machine 127.0.0.1 login alice password secret\n".write(toFile: netrc, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: netrc) }
        let response = try result(of: CurlHTTPClient(timeout: 5, netrcFile: netrc), server.base + "/first").get()
        XCTAssertEqual(response.status, 200)
        let all = heads.all
        XCTAssertEqual(all.count, 2)
        XCTAssertTrue(all.first?.contains("Authorization: Basic YWxpY2U6c2VjcmV0\r\n") ?? false, "\(all)")
        XCTAssertFalse(all.last?.contains("Authorization") ?? true, "\(all)")
    }

    func test_get_followsRelativeRedirectsResolvedAgainstTheCurrentURL() throws {
        let heads = Recorder()
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.append(head.components(separatedBy: "\r\n")[0])
                if head.hasPrefix("GET /a/b/c ") {
                    connection.respond(status: 302, "", headers: "Location: ../d?x=1\r\n")
                } else if head.hasPrefix("GET /a/d?x=1 ") {
                    connection.respond(status: 301, "moved", headers: "Location: /final\r\n")
                } else {
                    connection.respond("done")
                }
            }
        }
        defer { server.stop() }
        let response = try result(of: client(), server.base + "/a/b/c").get()
        XCTAssertEqual(response, HTTPResult(status: 200, body: Array("done".utf8), finalURL: server.base + "/final"))
        XCTAssertEqual(heads.all, ["GET /a/b/c HTTP/1.1", "GET /a/d?x=1 HTTP/1.1", "GET /final HTTP/1.1"])
        XCTAssertEqual(server.accepted, 1, "redirects to the same host reuse the connection")
    }

    func test_get_failsWithBadResponseWhenTheHeadIsLargerThanTheLimit() throws {
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                let size = head.hasPrefix("GET /big ") ? 70_000 : 60_000
                guard connection.respond("ok", headers: "X-Big: \(String(repeating: "x", count: size))\r\n") else { return }
            }
        }
        defer { server.stop() }
        let failure = failure(result(of: client(), server.base + "/big"))
        XCTAssertEqual(failure?.reason, .badResponse)
        XCTAssertEqual(failure?.message, "bad response: response head larger than 65536 bytes")
        XCTAssertEqual(body(result(of: client(), server.base + "/fits")), "ok", "a head of 60 KB is fine")
    }

    func test_get_saysAURLIsTooLongForARequestRatherThanOutOfMemory() throws {
        let server = try RawSocketServer.keepAlive("short")
        defer { server.stop() }
        // libcurl builds the request head in a buffer of at most 1 MiB, and tells a URL past it as a lack of memory.
        let long = server.base + "/" + String(repeating: "a", count: 1_100_000)
        let failure = failure(result(of: client(), long))
        XCTAssertEqual(failure?.reason, .other)
        XCTAssertEqual(failure?.message, "URL of \(long.utf8.count) bytes: longer than a request can hold (1 MiB)")
        XCTAssertEqual(body(result(of: client(), server.base + "/" + String(repeating: "a", count: 60_000))), "short", "a URL of 60 KB is sent")
    }

    func test_get_failsWithBadResponseOnAMalformedHead() throws {
        let heads = [
            "HTTP/2 200\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "ICY 200 OK\r\n\r\n",
            "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            // Both lengths (RFC 9112, 6.3: a server never sends both, and a
            // message with both "ought to be handled as an error": a sign of
            // response splitting). libcurl took the chunked one.
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\nok\r\n0\r\n\r\n",
        ]
        for head in heads {
            let server = try RawSocketServer { connection in
                guard connection.readRequest() != nil else { return }
                connection.send(head)
            }
            defer { server.stop() }
            let failure = failure(result(of: client(), server.base + "/"))
            XCTAssertEqual(failure?.reason, .badResponse, "\(head): \(String(describing: failure))")
        }
    }

    /// A validator field given twice: one that is no validator does not
    /// take the place of one that is, whichever comes first (the later one
    /// dropped the earlier, and the next run asked unconditionally); of two
    /// valid ones, the last is kept.
    func test_get_keepsTheValidValidator_ofTwoFieldsOfOneName() throws {
        let date = "Sun, 06 Nov 1994 08:49:37 GMT", later = "Mon, 07 Nov 1994 08:49:37 GMT"
        let cases: [(fields: String, etag: String?, lastModified: String?)] = [
            ("ETag: \"v1\"\r\nETag: bare\r\nLast-Modified: \(date)\r\nLast-Modified: yesterday\r\n", "\"v1\"", date),
            ("ETag: bare\r\nETag: \"v1\"\r\nLast-Modified: yesterday\r\nLast-Modified: \(date)\r\n", "\"v1\"", date),
            ("ETag: \"v1\"\r\nETag: W/\"v2\"\r\nLast-Modified: \(date)\r\nLast-Modified: \(later)\r\n", "W/\"v2\"", later),
            ("ETag: bare\r\nLast-Modified: yesterday\r\n", nil, nil),
        ]
        for (fields, etag, lastModified) in cases {
            let server = try RawSocketServer { connection in
                guard connection.readRequest() != nil else { return }
                connection.respond("ok", headers: fields)
            }
            defer { server.stop() }
            let response = try result(of: client(), server.base + "/").get()
            XCTAssertEqual(response.etag, etag, fields)
            XCTAssertEqual(response.lastModified, lastModified, fields)
        }
    }

    /// The fields read are told by name in any case, and a list field's
    /// elements in any case, with blanks and empty elements around them
    /// (RFC 9110, 5.6.1: `, , chunked` was refused).
    func test_get_readsTheFieldsItNeedsInAnyCase_andListsWithBlanksAndEmptyElements() throws {
        let zipped = Compression.compress(Array("in any case".utf8), .gzip)
        let server = try RawSocketServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.send("HTTP/1.1 200 OK\r\nCONTENT-ENCODING: , GZip ,\r\netag: \"v1\"\r\nLAST-modified: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
                + "Transfer-Encoding:  , , Chunked\t\r\nRetry-AFTER: 5\r\nconnection: Keep-Alive ,CLOSE\r\n\r\n"
                + String(zipped.count, radix: 16) + "\r\n")
            _ = connection.send(zipped + Array("\r\n0\r\n\r\n".utf8))
        }
        defer { server.stop() }
        let response = try result(of: client(), server.base + "/").get()
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "in any case")
        XCTAssertEqual(response.etag, "\"v1\"")
        XCTAssertEqual(response.lastModified, "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(response.retryAfter, "5")

        // Anything but chunked alone is refused as a transfer coding, and
        // only the ASCII letters are folded: a KELVIN SIGN lower-cases to
        // "k", but "chun\u{212A}ed" is no coding libcurl de-chunks (taken
        // as chunked, the chunks' framing was the body).
        for field in ["Transfer-Encoding: chunked, chunked", "Transfer-Encoding: gzip, chunked", "Transfer-Encoding: chun\u{212A}ed"] {
            let refusing = try RawSocketServer { connection in
                guard connection.readRequest() != nil else { return }
                connection.send("HTTP/1.1 200 OK\r\n\(field)\r\n\r\n0\r\n\r\n")
            }
            defer { refusing.stop() }
            XCTAssertEqual(failure(result(of: client(), refusing.base + "/"))?.reason, .badResponse, field)
        }
    }

    func test_get_connectsByNameAndToIPv6Literals() throws {
        let server = try RawSocketServer.keepAlive("by name")
        defer { server.stop() }
        // localhost may resolve to ::1 first, where nothing listens: the next address is tried.
        XCTAssertEqual(body(result(of: client(), "http://localhost:\(server.port)/")), "by name")
        let refused = failure(result(of: client(), "http://[::1]:\(server.port)/"))
        XCTAssertTrue([.refused, .other].contains(refused?.reason), "an IPv6 address is connected to: \(String(describing: refused))")
        XCTAssertEqual(failure(result(of: client(), "http://[::1/"))?.message, "not a valid URL")
    }

    func test_get_failsWithCannotResolveHostForAnUnknownName() {
        let failure = failure(result(of: client(timeout: 20), "http://no-such-host.invalid/"))
        XCTAssertEqual(failure?.reason, .cannotResolveHost)
        XCTAssertEqual(failure?.message, "cannot resolve host")
    }

    func test_get_timeoutCoversTheWaitForAConnection() throws {
        let server = try RawSocketServer { connection in
            _ = connection.readRequest()
            connection.hold(10)
        }
        defer { server.stop() }
        let client = CurlHTTPClient(timeout: 0.5, maxConnectionsPerHost: 1)
        client.get(server.base + "/holds-the-connection") { _ in }
        let started = Date()
        let failure = failure(result(of: client, server.base + "/waits"))
        XCTAssertEqual(failure?.reason, .timedOut)
        XCTAssertEqual(failure?.message, "timed out after 0.5 s")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }

    func test_cancel_whileWaitingForAConnectionDeliversCancelledPromptly() throws {
        let server = try RawSocketServer { connection in
            _ = connection.readRequest()
            connection.hold(10)
        }
        defer { server.stop() }
        let client = client(timeout: 10, connections: 1)
        let first = client.get(server.base + "/holds-the-connection") { _ in }
        defer { first.cancel() }
        let done = DispatchSemaphore(value: 0)
        let outcome = Recorder()
        let waiting = client.get(server.base + "/waits") { result in
            outcome.append((try? result.get()).map { "\($0.status)" } ?? "\(result)")
            done.signal()
        }
        usleep(100_000)
        let started = Date()
        waiting.cancel()
        XCTAssertEqual(done.wait(timeout: .now() + 2), .success)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        XCTAssertEqual(outcome.all.count, 1)
        XCTAssertTrue(outcome.all.first?.contains("cancelled") ?? false, "\(outcome.all)")
    }
}

/// Strings noted from any thread.
private final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String] = []

    func append(_ value: String) { lock.withLock { values.append(value) } }
    var all: [String] { lock.withLock { values } }
}
