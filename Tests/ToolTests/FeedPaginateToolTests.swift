import Foundation
import XCTest

/// feed-paginate in real pipes, and against feed-serve's keyset pagination.
final class FeedPaginateToolTests: XCTestCase {
    let image0 = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://h/image-0"}"#
    let image1 = #"{"id":"a28f5fe3-27a7-44e9-8df5-53742d0e4a5a","url":"http://h/image-1"}"#

    func test_paginate_writesTheFirstPageWhenNothingIsLoaded() {
        let run = sh("feed-paginate --base-url http://127.0.0.1:8080/api/ < /dev/null")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines, [#"{"url":"http://127.0.0.1:8080/api/v1/feed?limit=10"}"#])
    }

    func test_paginate_writesTheNextPageAfterTheLastLoadedID() {
        let run = sh("feed-paginate --limit 2", stdin: image0 + "\n" + image1 + "\n", environment: ["FEED_BASE_URL": "http://h:81"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines, [#"{"url":"http://h:81/v1/feed?limit=2&after_id=A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A"}"#])
    }

    func test_paginate_passesErrorRecordsThroughAndWritesNoRequest() {
        let error = #"{"error":"not_found","message":"nothing cached"}"#
        let run = sh("feed-paginate --base-url http://h", stdin: image0 + "\n" + error + "\n")
        XCTAssertEqual(run.status, 66)
        XCTAssertEqual(run.lines, [error])
    }

    func test_paginate_rejectsARecordWithoutAUUID() {
        let run = sh("feed-paginate --base-url http://h", stdin: #"{"id":"x"}"# + "\n")
        XCTAssertEqual(run.status, 65)
        XCTAssertTrue(run.stderr.contains("stdin:1"), run.stderr)
    }

    func test_paginate_rejectsAnImageCommentRecord() {
        let comment = #"{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"m","created_at":"2020-05-20T11:24:59Z","username":"u"}"#
        XCTAssertEqual(sh("feed-paginate --base-url http://h", stdin: comment + "\n").status, 65)
    }

    func test_paginate_emptyBaseURLOptionFallsBackToTheEnvironment() {
        let run = sh("feed-paginate --base-url '' < /dev/null", environment: ["FEED_BASE_URL": "http://h"])
        XCTAssertEqual(run.lines, [#"{"url":"http://h/v1/feed?limit=10"}"#])
    }

    func test_paginate_needsABaseURL() {
        XCTAssertEqual(sh("feed-paginate < /dev/null").status, 64)
        XCTAssertEqual(sh("feed-paginate --base-url ftp://h < /dev/null").status, 64)
        XCTAssertEqual(sh("feed-paginate --base-url http://h --limit 0 < /dev/null").status, 64)
    }

    func test_paginateFetchMap_walksTheAcceptanceFeedPageByPage() throws {
        let server = try Served(test: self)
        let env = ["FEED_BASE_URL": server.base]
        let page1 = sh("feed-paginate --limit 2 < /dev/null | feed-fetch | feed-map", environment: env)
        XCTAssertEqual(page1.records().count, 2, page1.stderr)
        let page2 = sh("feed-paginate --limit 2 | feed-fetch | feed-map", stdin: page1.out, environment: env)
        XCTAssertEqual(page2.records().compactMap { $0["id"] as? String }, ["166FCDD7-C9F4-420A-B2D6-CE2EAFA3D82F"])
        let page3 = sh("feed-paginate --limit 2 | feed-fetch | feed-map", stdin: page1.out + page2.out, environment: env)
        XCTAssertEqual(page3.status, 0, page3.stderr)
        XCTAssertEqual(page3.out, "", "an empty page ends the feed")
    }
}
