import FeedServer
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// Faults, per request through `/_fault/SPEC/` and global.
final class FeedServerFaultTests: FeedServerTestCase {
    func test_faultPrefix_routesTheRestOfThePathNormally() throws {
        let (_, port, _) = try makeServer()

        let feed = try get("/_fault/delay=0/v1/feed?limit=2&after_id=\(Self.acceptanceIDs[0])", port: port)
        let comments = try get("/_fault/delay=0/v1/image/\(Self.acceptanceIDs[0])/comments", port: port)
        let image = try get("/_fault/delay=0/image-1", port: port)

        XCTAssertEqual(ids(feed), Array(Self.acceptanceIDs[1...]))
        XCTAssertEqual(comments.items?.count, 1)
        XCTAssertEqual(image.body, FeedServerFixtures.acceptance.images["image-1"])
    }

    func test_faultPrefix_rejectsUnknownOrMalformedSpecWith400() throws {
        let (_, port, _) = try makeServer()

        // A wait past a day (Foundation's deadline overflowed at 7.4e12 ms,
        // and the trap ended the server for every client: found by the hunt).
        for spec in ["bogus=1", "delay=x", "delay=-1", "status=99", "status=600", "reset=2", "%zz", "delay=86400001", "drip=9999999999999"] {
            let response = try get("/_fault/\(spec)/v1/feed", port: port)
            XCTAssertEqual(response.status, 400, spec)
            XCTAssertNotNil(response.json?["message"] as? String, spec)
        }
    }

    func test_delay_waitsBeforeResponding() throws {
        let (_, port, _) = try makeServer()

        var response: RawHTTPResponse?
        let elapsed = try milliseconds { response = try get("/_fault/delay=300/v1/feed", port: port) }

        XCTAssertEqual(response?.status, 200)
        XCTAssertGreaterThanOrEqual(elapsed, 290)
    }

    func test_status_forcesTheStatusAndKeepsTheNormalBody() throws {
        let (_, port, _) = try makeServer()

        let response = try get("/_fault/status=503/v1/feed?limit=1", port: port)

        XCTAssertEqual(response.statusLine, "HTTP/1.1 503 Service Unavailable")
        XCTAssertEqual(ids(response), [Self.acceptanceIDs[0]])
    }

    func test_status204_sendsNoBodyAndKeepsFraming() throws {
        let (_, port, _) = try makeServer()
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        connection.request("/_fault/status=204/v1/feed")
        let noContent = try XCTUnwrap(connection.readResponse())
        connection.request("/v1/feed?limit=1")
        let next = try XCTUnwrap(connection.readResponse())

        XCTAssertEqual(noContent.status, 204)
        XCTAssertNil(noContent.field("Content-Length"))
        XCTAssertEqual(ids(next), [Self.acceptanceIDs[0]])
    }

    func test_truncate_sendsFewerBytesThanContentLengthThenCloses() throws {
        let (_, port, _) = try makeServer()
        let full = try get("/v1/feed", port: port)
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        connection.request("/_fault/truncate=10/v1/feed")
        let head = try XCTUnwrap(connection.readResponse(toHead: true))
        let body = connection.readToEnd()

        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.field("Content-Length"), String(full.body.count))
        XCTAssertEqual(body, Array(full.body.prefix(10)))
    }

    func test_reset_abortsTheConnectionWithoutResponse() throws {
        let (_, port, _) = try makeServer()
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))

        connection.request("/_fault/reset/v1/feed")
        let bytes = connection.readToEnd()

        XCTAssertEqual(bytes, [])
        XCTAssertEqual(connection.lastError, ECONNRESET)
    }

    func test_drip_sendsTheBodyByteByByteSlowly() throws {
        let (_, port, _) = try makeServer()
        let full = try get("/image-0", port: port)

        var dripped: RawHTTPResponse?
        let elapsed = try milliseconds { dripped = try get("/_fault/drip=5/image-0", port: port) }

        XCTAssertEqual(dripped?.body, full.body)
        XCTAssertGreaterThanOrEqual(elapsed, Double(full.body.count * 5) * 0.9)
    }

    func test_hang_sendsAPartialHeadAndWaitsUntilStop() throws {
        let (server, port, _) = try makeServer()
        let connection = try XCTUnwrap(RawHTTPConnection(port: port, timeout: 10))

        connection.request("/_fault/hang/v1/feed")
        let partial = try XCTUnwrap(connection.read(until: "\r\n"))
        let header = try XCTUnwrap(connection.read(until: "\r\n"))
        let stopped = expectation(description: "stopped")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            server.stop()
            stopped.fulfill()
        }
        let rest = connection.readToEnd()

        XCTAssertEqual(String(decoding: partial, as: UTF8.self), "HTTP/1.1 200 OK\r\n")
        XCTAssertEqual(String(decoding: header, as: UTF8.self), "Content-Type: application/json\r\n")
        XCTAssertEqual(rest, [], "nothing more until the server stops")
        XCTAssertEqual(connection.lastError, 0, "closed, not timed out")
        wait(for: [stopped], timeout: 2)
    }

    func test_hang_endsWhenTheClientCloses() throws {
        let (server, port, _) = try makeServer()
        do {
            let connection = try XCTUnwrap(RawHTTPConnection(port: port))
            connection.request("/_fault/hang/v1/feed")
            _ = connection.read(until: "\r\n")
            XCTAssertEqual(server.openConnections, 1)
        }

        let deadline = Date(timeIntervalSinceNow: 3)
        while server.openConnections > 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }

        XCTAssertEqual(server.openConnections, 0)
    }

    func test_redirect_redirectsNTimesThenAnswers() throws {
        let (_, port, base) = try makeServer()

        var target = "/_fault/redirect=3,delay=0/v1/feed?limit=1"
        var locations: [String] = []
        var response = try get(target, port: port)
        while response.status == 302, locations.count < 10 {
            let location = try XCTUnwrap(response.field("Location"))
            locations.append(location)
            target = String(location.dropFirst(base.count))
            response = try get(target, port: port)
        }

        XCTAssertEqual(locations, [
            base + "/_fault/delay=0,redirect=2/v1/feed?limit=1",
            base + "/_fault/delay=0,redirect=1/v1/feed?limit=1",
            base + "/_fault/delay=0,redirect=0/v1/feed?limit=1",
        ])
        XCTAssertEqual(ids(response), [Self.acceptanceIDs[0]])
    }

    func test_big_padsJSONBodiesToTheGivenSize() throws {
        let (_, port, _) = try makeServer()

        let unpadded = try get("/v1/feed?limit=1", port: port)
        let feed = try get("/_fault/big=300000/v1/feed?limit=1", port: port)
        let empty = try get("/_fault/big=100/v1/feed?after_id=\(Self.acceptanceIDs[2])", port: port)
        let small = try get("/_fault/big=10/v1/feed", port: port)
        let image = try get("/_fault/big=1000/image-0", port: port)

        XCTAssertEqual(feed.body.count, 300_000)
        XCTAssertEqual(ids(feed), [Self.acceptanceIDs[0]])
        XCTAssertEqual((feed.json?["pad"] as? String)?.count, 300_000 - unpadded.body.count - ",\"pad\":\"\"".utf8.count)
        XCTAssertEqual(empty.body.count, 100)
        XCTAssertEqual(empty.items?.count, 0)
        XCTAssertEqual(small.items?.count, 3, "a body already bigger stays as it is")
        XCTAssertEqual(image.body, FeedServerFixtures.acceptance.images["image-0"], "non-JSON bodies stay as they are")
    }

    func test_globalFaults_applyToEveryRequestAndThePrefixOverridesThem() throws {
        let (_, port, _) = try makeServer(faults: FeedServerFaults(status: 500))

        XCTAssertEqual(try get("/v1/feed", port: port).status, 500)
        XCTAssertEqual(try get("/image-0", port: port).status, 500)
        XCTAssertEqual(try get("/_fault/status=200/v1/feed", port: port).status, 200)
    }

    func test_globalRedirect_redirectsThroughAFaultPrefix() throws {
        let (_, port, base) = try makeServer(faults: FeedServerFaults(redirect: 1))

        let first = try get("/v1/feed", port: port)
        let location = try XCTUnwrap(first.field("Location"))
        let second = try get(String(location.dropFirst(base.count)), port: port)

        XCTAssertEqual(first.status, 302)
        XCTAssertEqual(location, base + "/_fault/redirect=0/v1/feed")
        XCTAssertEqual(second.status, 200)
    }

    func test_faults_canBeChangedWhileRunning() throws {
        let (server, port, _) = try makeServer()

        server.faults = FeedServerFaults(reset: true)
        let connection = try XCTUnwrap(RawHTTPConnection(port: port))
        connection.request("/v1/feed")

        XCTAssertEqual(connection.readToEnd(), [])
        XCTAssertEqual(connection.lastError, ECONNRESET)
    }
}
