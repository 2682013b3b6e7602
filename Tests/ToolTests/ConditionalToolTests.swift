import Foundation
import XCTest

/// Conditional requests against a real nginx (ETag and Last-Modified on,
/// as nginx has them for files): response records carry the validators,
/// request records carry them back, and a 304 is a response record without
/// a body.
final class ConditionalToolTests: XCTestCase {
    private let items = (0..<30).map { i in
        #"{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC5\#(String(format: "%04X", i))","description":"a description \#(i)","image":"https://a-url.com/\#(i).jpg"}"#
    }

    private func nginxWithFeed() throws -> Nginx {
        let nginx = try Nginx(test: self)
        try (#"{"items":["# + items.joined(separator: ",") + "]}\n").write(toFile: nginx.root + "/feed.json", atomically: true, encoding: .utf8)
        return nginx
    }

    func test_fetch_recordsTheValidators_andARequestRecordWithThemGetsA304WithoutABody() throws {
        let nginx = try nginxWithFeed()
        let first = sh(#"feed-fetch "$B/feed.json""#, environment: ["B": nginx.base])
        XCTAssertEqual(first.status, 0, first.stderr)
        let record = try XCTUnwrap(first.records().first)
        let etag = try XCTUnwrap(record["etag"] as? String)
        let lastModified = try XCTUnwrap(record["last_modified"] as? String)

        let request = try JSONSerialization.data(withJSONObject: ["url": nginx.base + "/feed.json", "if_none_match": etag, "if_modified_since": lastModified])
        let second = sh("feed-fetch", stdin: String(decoding: request, as: UTF8.self) + "\n")
        XCTAssertEqual(second.status, 0, second.stderr)
        let notModified = try XCTUnwrap(second.records().first)
        XCTAssertEqual(notModified["status"] as? Int, 304)
        XCTAssertEqual(notModified["body_base64"] as? String, "")
        XCTAssertNotNil(notModified["etag"])
        XCTAssertEqual(nginx.accessLog.map { String($0.prefix(3)) }, ["200", "304"])
    }

    private let image = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://x/image-0"}"#
    private let page200 = #"{"page":"http://x/v1/feed?limit=10","status":200,"etag":"\"a\""}"#
    private let page304 = #"{"page":"http://x/v1/feed?limit=10","status":304,"etag":"\"a\""}"#

    func test_pageRecords_arePassedOverByTheToolsThatReadFeedImages() throws {
        let d = temporaryDirectory(self)
        let environment = ["S": d + "/feed.sqlite", "NO_COLOR": "1", "LANG": "en_US.UTF-8", "LC_ALL": ""]
        let input = image + "\n" + page200 + "\n"
        for command in [#"feed-cache --store "$S" save"#, #"feed-paginate --base-url http://x"#, #"feed-cache --store "$S" missing-images"#,
                        #"feed-view --width 60"#] {
            let with = sh(command, stdin: input, environment: environment)
            let without = sh(command, stdin: image + "\n", environment: environment)
            XCTAssertEqual(with.status, 0, "\(command): \(with.stderr)")
            XCTAssertEqual(with.out, without.out, command)
            XCTAssertEqual(with.stderr, without.stderr, command)
        }
    }

    func test_fallback_writesTheCachedFeedForA304() throws {
        let d = temporaryDirectory(self)
        let environment = ["S": d + "/feed.sqlite"]
        XCTAssertEqual(sh(#"feed-cache --store "$S" save"#, stdin: image + "\n", environment: environment).status, 0)
        let run = sh(#"feed-cache --store "$S" fallback"#, stdin: page304 + "\n", environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines, [image])
        let changed = sh(#"feed-cache --store "$S" fallback"#, stdin: image.replacingOccurrences(of: "image-0", with: "image-9") + "\n" + page200 + "\n", environment: environment)
        XCTAssertEqual(changed.lines, [image.replacingOccurrences(of: "image-0", with: "image-9")], "a page of its own passes on as it is, without its page record")
    }
}
