import FeedServer
import Foundation
import XCTest

/// The API routes: feed pages, comments and image data.
final class FeedServerRouteTests: FeedServerTestCase {
    func test_feed_deliversFirstPageOfDefaultTenItems() throws {
        let (_, port, _) = try makeServer(fixtures: .demo)

        let response = try get("/v1/feed", port: port)

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.field("Content-Type"), "application/json")
        XCTAssertEqual(response.field("Content-Length"), String(response.body.count))
        XCTAssertEqual(ids(response), FeedServerFixtures.demo.feed.prefix(10).map(\.id))
    }

    func test_feed_encodesItemsCompactlyWithKeysInAPIOrder() throws {
        let fixtures = FeedServerFixtures(feed: [
            .init(id: Self.acceptanceIDs[0], description: "a \"quoted\"\ndescription", location: "a location", image: "http://x/1"),
            .init(id: Self.acceptanceIDs[1], image: "http://x/2"),
        ])
        let (_, port, _) = try makeServer(fixtures: fixtures)

        let response = try get("/v1/feed?limit=2", port: port)

        XCTAssertEqual(response.text, #"{"items":[{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"a \"quoted\"\ndescription","location":"a location","image":"http://x/1"},{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","image":"http://x/2"}]}"#)
    }

    /// With `--etag`, every 200 carries a strong ETag, its body's hash, and a request that
    /// names it (RFC 9110 13.1.2: weak comparison, one of a list, or `*`)
    /// gets 304 with no body: the conditional refresh has a 304 to show
    /// against the bundled server, as it has against nginx.
    func test_responses_carryAnETag_andARequestNamingItGets304() throws {
        let (_, port, _) = try makeServer(fixtures: .demo, etags: true)
        for target in ["/v1/feed?limit=2", "/v1/image/\(FeedServerFixtures.demo.feed[0].id)/comments", "/" + FeedServerFixtures.demo.images.keys.sorted()[0]] {
            let first = try get(target, port: port)
            XCTAssertEqual(first.status, 200, target)
            let tag = try XCTUnwrap(first.field("ETag"), target)
            XCTAssertTrue(tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count == 18, tag)
            XCTAssertEqual(try get(target, port: port).field("ETag"), tag, "the same body, the same tag")
            for asked in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
                let again = try get(target, port: port, fields: ["If-None-Match: \(asked)"])
                XCTAssertEqual(again.status, 304, "\(target) \(asked)")
                XCTAssertEqual(again.field("ETag"), tag)
                XCTAssertTrue(again.body.isEmpty)
            }
            XCTAssertEqual(try get(target, port: port, method: "HEAD", fields: ["If-None-Match: \(tag)"]).status, 304)
            XCTAssertEqual(try get(target, port: port, fields: ["If-None-Match: \"other\"", "If-None-Match: \(tag)"]).status, 304, "a list on two lines")
            XCTAssertEqual(try get(target, port: port, fields: ["If-None-Match: \"other\""]).status, 200)
        }
        let page1 = try get("/v1/feed?limit=1", port: port).field("ETag")
        let page2 = try get("/v1/feed?limit=2", port: port).field("ETag")
        XCTAssertNotEqual(page1, page2, "another body, another tag")
    }

    /// A response made by a fault, an error, or a status other than 200 has
    /// no tag and is never a 304; nor has any response without `--etag`.
    func test_errorsAndFaultedResponses_carryNoETag() throws {
        let (_, port, _) = try makeServer(fixtures: .demo, etags: true)
        let (_, plainPort, _) = try makeServer(fixtures: .demo)
        let plain = try get("/v1/feed", port: plainPort, fields: ["If-None-Match: *"])
        XCTAssertEqual(plain.status, 200)
        XCTAssertNil(plain.field("ETag"))
        for target in ["/v1/feed?limit=x", "/nothing", "/_fault/status=503/v1/feed", "/_fault/big=4096/v1/feed"] {
            let response = try get(target, port: port, fields: ["If-None-Match: *"])
            XCTAssertNotEqual(response.status, 304, target)
            XCTAssertNil(response.field("ETag"), target)
        }
    }

    func test_feed_paginatesByAfterIDAndLimit() throws {
        let (_, port, _) = try makeServer(fixtures: .demo)
        let all = FeedServerFixtures.demo.feed.map(\.id)

        let page = try get("/v1/feed?limit=3&after_id=\(all[4])", port: port)

        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(ids(page), Array(all[5..<8]))
    }

    func test_feed_acceptanceFixturesPaginateInThreePagesOfLimitTwo() throws {
        let (_, port, _) = try makeServer(fixtures: .acceptance)
        let ids = Self.acceptanceIDs

        let first = try get("/v1/feed?limit=2", port: port)
        let second = try get("/v1/feed?limit=2&after_id=\(ids[1])", port: port)
        let third = try get("/v1/feed?limit=2&after_id=\(ids[2])", port: port)

        XCTAssertEqual(self.ids(first), Array(ids[0..<2]))
        XCTAssertEqual(self.ids(second), [ids[2]])
        XCTAssertEqual(third.status, 200)
        XCTAssertEqual(third.text, #"{"items":[]}"#)
    }

    func test_feed_matchesAfterIDCaseInsensitively() throws {
        let (_, port, _) = try makeServer()

        let page = try get("/v1/feed?limit=2&after_id=\(Self.acceptanceIDs[0].lowercased())", port: port)

        XCTAssertEqual(ids(page), Array(Self.acceptanceIDs[1...]))
    }

    func test_feed_deliversEmptyPageForAfterIDNotInFeed() throws {
        let (_, port, _) = try makeServer()

        let page = try get("/v1/feed?after_id=\(UUID().uuidString)", port: port)

        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.text, #"{"items":[]}"#)
    }

    func test_feed_capsHugeLimits() throws {
        let (_, port, _) = try makeServer(fixtures: .demo)

        let page = try get("/v1/feed?limit=99999999999999999999999", port: port)

        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(ids(page).count, 12)
    }

    func test_feed_rejectsLimitThatIsNotAPositiveIntegerWith400() throws {
        let (_, port, _) = try makeServer()

        for limit in ["0", "-1", "abc", "", "1.5", "+2", "00", "2%20"] {
            let response = try get("/v1/feed?limit=\(limit)", port: port)
            XCTAssertEqual(response.status, 400, "limit=\(limit)")
            XCTAssertEqual(response.json?["error"] as? String, "bad_request", "limit=\(limit)")
            XCTAssertNotNil(response.json?["message"] as? String)
        }
    }

    func test_feed_rejectsAfterIDThatIsNotAUUIDWith400() throws {
        let (_, port, _) = try makeServer()

        for afterID in ["x", "", "2AB2AE66-A4B7-4A16-B374"] {
            XCTAssertEqual(try get("/v1/feed?after_id=\(afterID)", port: port).status, 400, "after_id=\(afterID)")
        }
    }

    func test_feed_ignoresUnknownQueryParameters() throws {
        let (_, port, _) = try makeServer()

        XCTAssertEqual(ids(try get("/v1/feed?limit=1&foo=bar&", port: port)), [Self.acceptanceIDs[0]])
    }

    func test_comments_deliversFixtureCommentsInAPIForm() throws {
        let (_, port, _) = try makeServer()

        let response = try get("/v1/image/\(Self.acceptanceIDs[0])/comments", port: port)

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.field("Content-Type"), "application/json")
        XCTAssertEqual(response.text, #"{"items":[{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"a message","created_at":"2020-05-20T11:24:59+0000","author":{"username":"a username"}}]}"#)
    }

    func test_comments_matchesImageIDCaseInsensitively() throws {
        let (_, port, _) = try makeServer()

        let response = try get("/v1/image/\(Self.acceptanceIDs[0].lowercased())/comments", port: port)

        XCTAssertEqual(response.items?.count, 1)
    }

    func test_comments_deliversNoItemsForImageWithoutComments() throws {
        let (_, port, _) = try makeServer()

        for id in [Self.acceptanceIDs[1], UUID().uuidString] {
            let response = try get("/v1/image/\(id)/comments", port: port)
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, #"{"items":[]}"#)
        }
    }

    func test_comments_rejectsImageIDThatIsNotAUUIDWith400() throws {
        let (_, port, _) = try makeServer()

        XCTAssertEqual(try get("/v1/image/not-a-uuid/comments", port: port).status, 400)
    }

    func test_demo_hasCommentsForSeveralImagesAndNoneForImageThree() throws {
        let demo = FeedServerFixtures.demo
        let (_, port, _) = try makeServer(fixtures: demo)

        let commented = demo.feed.filter { (try? get("/v1/image/\($0.id)/comments", port: port).items?.isEmpty == false) == true }
        let none = try get("/v1/image/\(demo.feed[3].id)/comments", port: port)

        XCTAssertGreaterThanOrEqual(commented.count, 3)
        XCTAssertEqual(none.items?.count, 0)
        XCTAssertTrue(demo.feed.contains { $0.description == nil && $0.location == nil })
        XCTAssertTrue(demo.feed.contains { $0.description == nil && $0.location != nil })
        XCTAssertTrue(demo.feed.contains { $0.description != nil && $0.location == nil })
        XCTAssertTrue(demo.feed.allSatisfy { $0.id == $0.id.uppercased() && UUID(uuidString: $0.id) != nil })
    }

    func test_image_deliversFixtureBytesWithContentTypeFromExtensionOrContent() throws {
        let fixtures = FeedServerFixtures(images: ["a.png": [1, 2, 3], "sniffed": [0x89, 0x50, 0x4E, 0x47, 0], "blob": [0, 1]])
        let (_, port, _) = try makeServer(fixtures: fixtures)

        let png = try get("/a.png", port: port)
        let sniffed = try get("/sniffed", port: port)
        let blob = try get("/blob", port: port)

        XCTAssertEqual(png.status, 200)
        XCTAssertEqual(png.body, [1, 2, 3])
        XCTAssertEqual(png.field("Content-Type"), "image/png")
        XCTAssertEqual(sniffed.field("Content-Type"), "image/png")
        XCTAssertEqual(blob.field("Content-Type"), "application/octet-stream")
        XCTAssertEqual(blob.body, [0, 1])
    }

    func test_image_servesEveryFeedImageOfTheBuiltInSetsAsAPNG() throws {
        for fixtures in [FeedServerFixtures.demo, .acceptance] {
            let (server, port, base) = try makeServer(fixtures: fixtures)
            let feed = try get("/v1/feed?limit=100", port: port)
            for item in feed.items ?? [] {
                let url = try XCTUnwrap(item["image"] as? String)
                XCTAssertTrue(url.hasPrefix(base + "/"), url)
                let image = try get(String(url.dropFirst(base.count)), port: port)
                XCTAssertEqual(image.status, 200, url)
                XCTAssertEqual(image.field("Content-Type"), "image/png", url)
                XCTAssertEqual(Array(image.body.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], url)
                XCTAssertLessThan(image.body.count, 1024, url)
            }
            XCTAssertEqual(feed.items?.count, fixtures.feed.count)
            server.stop()
        }
    }

    func test_image_decodesPercentEncodedNames() throws {
        let (_, port, _) = try makeServer(fixtures: FeedServerFixtures(images: ["a b.png": [7]]))

        XCTAssertEqual(try get("/a%20b.png", port: port).body, [7])
    }

    func test_unknownPathsAndImages_give404() throws {
        let (_, port, _) = try makeServer()

        for target in ["/", "/missing", "/v1", "/v1/feed/", "/v1/feeds", "/v1/image/\(Self.acceptanceIDs[0])",
                       "/images/image-0", "/../image-0", "/%2e%2e%2fimage-0", "/image-0/", "//image-0"] {
            let response = try get(target, port: port)
            XCTAssertEqual(response.status, 404, target)
            XCTAssertEqual(response.json?["error"] as? String, "not_found", target)
        }
    }

    func test_fixtureJSON_hasBaseReplacedByServerBaseURL() throws {
        let fixtures = FeedServerFixtures(
            feed: [.init(id: Self.acceptanceIDs[0], description: "see {{base}}", image: "{{base}}/image-0")],
            images: ["data.json": Array(#"{"url":"{{base}}/x"}"#.utf8), "raw": Array("{{base}}".utf8)]
        )
        let (_, port, base) = try makeServer(fixtures: fixtures)

        let item = try XCTUnwrap(try get("/v1/feed", port: port).items?.first)
        let json = try get("/data.json", port: port)

        XCTAssertEqual(item["image"] as? String, base + "/image-0")
        XCTAssertEqual(item["description"] as? String, "see \(base)")
        XCTAssertEqual(json.text, #"{"url":"\#(base)/x"}"#)
        XCTAssertEqual(json.field("Content-Type"), "application/json")
        XCTAssertEqual(try get("/raw", port: port).text, "{{base}}")
    }

    func test_fixtures_canBeReplacedWhileRunning() throws {
        let (server, port, _) = try makeServer()

        server.fixtures = FeedServerFixtures(feed: [.init(id: Self.acceptanceIDs[2], image: "x")])

        XCTAssertEqual(ids(try get("/v1/feed", port: port)), [Self.acceptanceIDs[2]])
    }

    func test_receivedRequests_recordsEveryRequestInOrder() throws {
        let (server, port, _) = try makeServer()

        _ = try get("/v1/feed?limit=1", port: port)
        _ = try get("/image-0", port: port, method: "HEAD")

        XCTAssertEqual(server.receivedRequests.map(\.target), ["/v1/feed?limit=1", "/image-0"])
        XCTAssertEqual(server.receivedRequests.map(\.method), ["GET", "HEAD"])
    }

    /// A server that does not record requests keeps none (feed-serve's:
    /// each request's target was kept for good).
    func test_receivedRequests_areNotKept_unlessRecorded() throws {
        let server = FeedServer(fixtures: .acceptance)
        _ = try server.start()
        defer { server.stop() }

        _ = try get("/v1/feed?limit=1", port: server.port)

        XCTAssertEqual(server.receivedRequests.count, 0)
    }
}
