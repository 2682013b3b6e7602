import FeedServer
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// HTTP/1.1 framing, methods, persistence, bad clients and concurrency.
final class FeedServerHTTPTests: FeedServerTestCase {
    func test_head_sendsTheHeadersOfGetWithoutBody() throws {
        let (_, port, _) = try makeServer()
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        connection.request("/v1/feed", method: "HEAD")
        let head = try XCTUnwrap(connection.readResponse(toHead: true))
        connection.request("/v1/feed")
        let get = try XCTUnwrap(connection.readResponse())

        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.field("Content-Length"), String(get.body.count))
        XCTAssertEqual(head.field("Content-Type"), "application/json")
        XCTAssertEqual(get.items?.count, 3, "the HEAD response must not have sent a body")
    }

    func test_otherMethods_get405WithAllowAndKeepTheConnectionUsable() throws {
        let (_, port, _) = try makeServer()
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        connection.send("POST /v1/feed HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        let post = try XCTUnwrap(connection.readResponse())
        connection.request("/v1/feed", method: "DELETE")
        let delete = try XCTUnwrap(connection.readResponse())
        connection.request("/v1/feed?limit=1")
        let get = try XCTUnwrap(connection.readResponse())

        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.field("Allow"), "GET, HEAD")
        XCTAssertEqual(post.json?["error"] as? String, "method_not_allowed")
        XCTAssertEqual(delete.status, 405)
        XCTAssertEqual(get.status, 200)
    }

    func test_malformedRequests_get400AndTheConnectionCloses() throws {
        let (_, port, _) = try makeServer()
        let malformed = [
            "GARBAGE\r\n\r\n",
            "GET\r\n\r\n",
            "GET /v1/feed\r\n\r\n",
            "GET v1/feed HTTP/1.1\r\n\r\n",
            "GET  /v1/feed HTTP/1.1\r\n\r\n",
            "GET /v1/feed HTTP/1.1\r\nHost: h\r\nNo colon here\r\n\r\n",
            "GET /v1/feed HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n",
            "GET /v1/feed HTTP/1.1\r\nHost: h\r\nX: a\r\n folded\r\n\r\n",
            "GET /v1/feed HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\n\r\n",
            "GET /v1/feed HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            "GET /v1/feed HTTP/1.1\r\nHost: h\r\nX: a\0b\r\n\r\n",
            "G(T /v1/feed HTTP/1.1\r\n\r\n",
        ]
        // Each with a Host field where it is the head's fields that are at
        // fault: without one, the missing Host was the fault.
        for request in malformed {
            let connection = try XCTUnwrap(RawHTTPConnection(port: port))
            connection.send(request)
            let response = connection.readResponse()
            XCTAssertEqual(response?.status, 400, request.debugDescription)
            XCTAssertEqual(response?.field("Connection"), "close", request.debugDescription)
            XCTAssertTrue(connection.isClosedByServer(), request.debugDescription)
        }
    }

    func test_unsupportedHTTPVersion_gets505() throws {
        let (_, port, _) = try makeServer()
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        connection.send("GET /v1/feed HTTP/2.0\r\n\r\n")

        XCTAssertEqual(connection.readResponse()?.status, 505)
    }

    func test_chunkedRequestBody_gets501() throws {
        let (_, port, _) = try makeServer()
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        connection.send("POST /v1/feed HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")

        XCTAssertEqual(connection.readResponse()?.status, 501)
    }

    func test_tooLargeHeaders_get431() throws {
        let (_, port, _) = try makeServer()
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        connection.send("GET /v1/feed HTTP/1.1\r\n" + String(repeating: "X-Filler: \(String(repeating: "x", count: 100))\r\n", count: 200))
        let response = connection.readResponse()

        XCTAssertEqual(response?.status, 431)
        XCTAssertTrue(connection.isClosedByServer())
    }

    func test_tooLongRequestLine_gets414() throws {
        let (_, port, _) = try makeServer()
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        connection.send("GET /" + String(repeating: "a", count: 20000))

        XCTAssertEqual(connection.readResponse()?.status, 414)
    }

    /// Empty lines before the request line count towards the head's limit:
    /// megabytes of them were kept, and scanned again at each read.
    func test_emptyLinesBeforeTheRequestLine_countTowardsTheLimit() throws {
        let (_, port, _) = try makeServer()
        let few = try XCTUnwrap(RawHTTPConnection(port: port))
        few.send("\r\n\r\nGET /v1/feed?limit=1 HTTP/1.1\r\nHost: h\r\n\r\n")
        XCTAssertEqual(few.readResponse()?.status, 200)

        let many = try XCTUnwrap(RawHTTPConnection(port: port))
        many.send(String(repeating: "\r\n", count: 10000) + "GET /v1/feed?limit=1 HTTP/1.1\r\nHost: h\r\n\r\n")
        XCTAssertEqual(many.readResponse()?.status, 431)
        XCTAssertTrue(many.isClosedByServer())
        // Just within it, a request whose head reaches past it with them.
        let past = try XCTUnwrap(RawHTTPConnection(port: port))
        past.send(String(repeating: "\r\n", count: 8000) + "GET /v1/feed?limit=1 HTTP/1.1\r\nHost: h\r\nX-Filler: " + String(repeating: "x", count: 500) + "\r\n\r\n")
        XCTAssertEqual(past.readResponse()?.status, 431)
    }

    /// RFC 9112, 3.2: an HTTP/1.1 request without a Host field, or any with
    /// two or with a value that is not a host and port (two hosts in one
    /// field), gets 400; an HTTP/1.0 one without is served.
    func test_aMissingRepeatedOrInvalidHost_gets400() throws {
        let (_, port, _) = try makeServer()
        for (request, status) in [("GET /v1/feed?limit=1 HTTP/1.1\r\n\r\n", 400),
                                  ("GET /v1/feed?limit=1 HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", 400),
                                  ("GET /v1/feed?limit=1 HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n", 400),
                                  ("GET /v1/feed?limit=1 HTTP/1.0\r\n\r\n", 200),
                                  ("GET /v1/feed?limit=1 HTTP/1.1\r\nHost: a, b\r\n\r\n", 400),
                                  ("GET /v1/feed?limit=1 HTTP/1.1\r\nHost: a b\r\n\r\n", 400),
                                  ("GET /v1/feed?limit=1 HTTP/1.1\r\nHost: a:80x\r\n\r\n", 400),
                                  ("GET /v1/feed?limit=1 HTTP/1.1\r\nHost: a/b\r\n\r\n", 400),
                                  ("GET /v1/feed?limit=1 HTTP/1.1\r\nHost: [::1\r\n\r\n", 400),
                                  ("GET /v1/feed?limit=1 HTTP/1.1\r\nHost: u@h\r\n\r\n", 400),
                                  ("GET /v1/feed?limit=1 HTTP/1.1\r\nHost: a%2\r\n\r\n", 400),
                                  ("GET /v1/feed?limit=1 HTTP/1.1\r\nHost: a%2e\r\n\r\n", 200),
                                  ("GET /v1/feed?limit=1 HTTP/1.1\r\nHost: \r\n\r\n", 200),
                                  ("GET /v1/feed?limit=1 HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", 200),
                                  ("GET /v1/feed?limit=1 HTTP/1.1\r\nHost: xn--bcher-kva.example:80\r\n\r\n", 200),
                                  ("GET /v1/feed?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 200)] {
            let connection = try XCTUnwrap(RawHTTPConnection(port: port))
            connection.send(request)
            XCTAssertEqual(connection.readResponse()?.status, status, request)
        }
    }

    func test_absoluteFormTargets_areServedLikeOriginForm() throws {
        let (server, port, _) = try makeServer()
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        connection.send("GET http://127.0.0.1:\(port)/v1/feed?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let feed = try XCTUnwrap(connection.readResponse())
        connection.send("GET http://localhost?limit=1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let root = try XCTUnwrap(connection.readResponse())

        XCTAssertEqual(ids(feed), [Self.acceptanceIDs[0]])
        XCTAssertEqual(root.status, 404)
        XCTAssertEqual(server.receivedRequests.map(\.target), ["/v1/feed?limit=1", "/?limit=1"])
    }

    func test_headersSplitAcrossManyWrites_areReassembled() throws {
        let (_, port, _) = try makeServer()
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        for byte in Array("GET /v1/feed?limit=1 HTTP/1.1\nHost: x\n\n".utf8) {
            connection.send([byte])
        }

        XCTAssertEqual(ids(try XCTUnwrap(connection.readResponse())), [Self.acceptanceIDs[0]])
    }

    func test_keepAlive_servesSequentialAndPipelinedRequestsOnOneConnection() throws {
        let (_, port, _) = try makeServer()
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        connection.request("/v1/feed?limit=1")
        let first = try XCTUnwrap(connection.readResponse())
        connection.request("/v1/feed?limit=1&after_id=\(Self.acceptanceIDs[0])")
        let second = try XCTUnwrap(connection.readResponse())
        connection.send(
            "GET /image-0 HTTP/1.1\r\nHost: h\r\n\r\nGET /v1/image/\(Self.acceptanceIDs[0])/comments HTTP/1.1\r\nHost: h\r\n\r\nGET /missing HTTP/1.1\r\nHost: h\r\n\r\n"
        )
        let pipelined = (0..<3).compactMap { _ in connection.readResponse() }

        XCTAssertEqual(ids(first), [Self.acceptanceIDs[0]])
        XCTAssertEqual(ids(second), [Self.acceptanceIDs[1]])
        XCTAssertNil(first.field("Connection"))
        XCTAssertEqual(pipelined.map(\.status), [200, 200, 404])
        XCTAssertEqual(pipelined.first?.body, FeedServerFixtures.acceptance.images["image-0"])
    }

    func test_connectionClose_isHonoured() throws {
        let (_, port, _) = try makeServer()
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        connection.request("/v1/feed", fields: ["Connection: close"])
        let response = try XCTUnwrap(connection.readResponse())

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.field("Connection"), "close")
        XCTAssertTrue(connection.isClosedByServer())
    }

    func test_http10_closesUnlessKeepAliveIsAsked() throws {
        let (_, port, _) = try makeServer()
        let plain = try XCTUnwrap(RawHTTPConnection(port: port))
        let keepAlive = try XCTUnwrap(RawHTTPConnection(port: port))

        plain.send("GET /v1/feed HTTP/1.0\r\n\r\n")
        keepAlive.send("GET /v1/feed HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let closed = try XCTUnwrap(plain.readResponse())
        let kept = try XCTUnwrap(keepAlive.readResponse())
        keepAlive.send("GET /image-1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")

        XCTAssertEqual(closed.field("Connection"), "close")
        XCTAssertTrue(plain.isClosedByServer())
        XCTAssertEqual(kept.field("Connection"), "keep-alive")
        XCTAssertEqual(keepAlive.readResponse()?.status, 200)
    }

    func test_responses_carryDateAndExactContentLength() throws {
        let (_, port, _) = try makeServer(fixtures: .demo)
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        connection.request("/v1/feed?limit=12", fields: ["Connection: close"])
        let bytes = connection.readToEnd()
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")

        XCTAssertEqual(parts.count, 2)
        XCTAssertTrue(parts[0].hasPrefix("HTTP/1.1 200 OK\r\n"), parts[0])
        XCTAssertTrue(parts[0].contains("\r\nContent-Length: \(parts[1].utf8.count)\r\n"), parts[0])
        XCTAssertNotNil(parts[0].range(of: #"\r\nDate: \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT\r\n"#, options: .regularExpression))
    }

    func test_concurrentClients_areAllServedAtOnce() throws {
        let (_, port, _) = try makeServer(fixtures: .demo)
        let connections = try (0..<20).map { _ in try XCTUnwrap(RawHTTPConnection(port: port)) }

        var responses: [RawHTTPResponse?] = []
        let elapsed = milliseconds {
            for (index, connection) in connections.enumerated() {
                connection.request("/_fault/delay=300/v1/feed?limit=\(index + 1)")
            }
            responses = connections.map { $0.readResponse() }
        }

        XCTAssertEqual(responses.map { $0?.items?.count }, (1...20).map { min($0, 12) })
        XCTAssertLessThan(elapsed, 3000, "20 requests delayed by 300 ms each must be served concurrently")
    }

    func test_garbageClients_neverStopTheServer() throws {
        let (_, port, _) = try makeServer()
        var seed: UInt64 = 42
        for length in [1, 7, 100, 5000, 40000] {
            let connection = try XCTUnwrap(RawHTTPConnection(port: port, timeout: 2))
            let garbage = (0..<length).map { _ -> UInt8 in
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(truncatingIfNeeded: seed >> 33)
            }
            connection.send(garbage)
            connection.finishSending()
            _ = connection.readToEnd()
        }
        // Clients that hang up mid-request or before reading.
        for partial in ["GET /v1/feed HTTP/1.1\r\nHost:", "GET /v1/feed?limit=3 HTTP/1.1\r\nHost: h\r\n\r\n"] {
            let connection = try XCTUnwrap(RawHTTPConnection(port: port))
            connection.send(partial)
        }

        XCTAssertEqual(try get("/v1/feed", port: port).status, 200)
    }

    func test_urlSession_readsPagesAndImages() throws {
        let (_, _, base) = try makeServer()
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }

        func fetch(_ url: String) throws -> (Data, HTTPURLResponse) {
            let done = expectation(description: url)
            nonisolated(unsafe) var result: (Data, HTTPURLResponse)?
            session.dataTask(with: URL(string: url)!) { data, response, _ in
                if let data, let response = response as? HTTPURLResponse { result = (data, response) }
                done.fulfill()
            }.resume()
            wait(for: [done], timeout: 5)
            return try XCTUnwrap(result, url)
        }

        let (feed, feedResponse) = try fetch(base + "/v1/feed?limit=2")
        let (image, imageResponse) = try fetch(base + "/image-2")
        let (_, redirected) = try fetch(base + "/_fault/redirect=3/v1/feed")

        XCTAssertEqual(feedResponse.statusCode, 200)
        let items = try XCTUnwrap((try JSONSerialization.jsonObject(with: feed) as? [String: Any])?["items"] as? [Any])
        XCTAssertEqual(items.count, 2)
        XCTAssertEqual(imageResponse.statusCode, 200)
        XCTAssertEqual([UInt8](image), FeedServerFixtures.acceptance.images["image-2"])
        XCTAssertEqual(redirected.statusCode, 200)
        XCTAssertEqual(redirected.url?.absoluteString, base + "/_fault/redirect=0/v1/feed")
    }
}
