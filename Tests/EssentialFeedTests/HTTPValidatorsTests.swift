import XCTest
import EssentialFeed

/// Validators as RFC 9110 writes them, and nothing else: no byte of a
/// record or a server reaches a request's header block unchecked.
final class HTTPValidatorsTests: XCTestCase {
    func test_entityTag_takesStrongAndWeakTags_andDropsBlanksAroundThem() {
        XCTAssertEqual(HTTPValidators.entityTag("\"abc\""), "\"abc\"")
        XCTAssertEqual(HTTPValidators.entityTag("W/\"5f-1a2b\""), "W/\"5f-1a2b\"")
        XCTAssertEqual(HTTPValidators.entityTag(" \t\"\"\t "), "\"\"")
        XCTAssertEqual(HTTPValidators.entityTag("\"caf\u{E9}\""), "\"caf\u{E9}\"", "obs-text is allowed")
    }

    func test_entityTag_refusesControlsQuotesAndOtherShapes() {
        for text in ["\"a\r\nX: 1\"", "\"a\rb\"", "\"a\nb\"", "\"a\u{0}\"", "\"a\u{7F}\"", "\"a\"b\"", "\"a\" \"b\"", "abc", "\"abc", "abc\"",
                     "w/\"a\"", "W/abc", "*", "", "\"a\tb\"", "\"a b\"", "\"" + String(repeating: "a", count: 1100) + "\""] {
            XCTAssertNil(HTTPValidators.entityTag(text), text.debugDescription)
        }
    }

    func test_httpDate_takesTheThreeForms_andRefusesControlsAndOtherText() {
        XCTAssertEqual(HTTPValidators.httpDate("Sun, 06 Nov 1994 08:49:37 GMT"), "Sun, 06 Nov 1994 08:49:37 GMT")
        // The obsolete forms, and what is read leniently, as IMF-fixdate: what goes back to a server is a sender's form.
        XCTAssertEqual(HTTPValidators.httpDate("Sunday, 06-Nov-94 08:49:37 GMT"), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(HTTPValidators.httpDate("Sun Nov  6 08:49:37 1994"), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(HTTPValidators.httpDate("Sun,,,06---Nov,1994,08:49:37,GMT"), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(HTTPValidators.httpDate("Tue, 3 Jun 2008 11:05:30 GMT"), "Tue, 03 Jun 2008 11:05:30 GMT")
        // Years before 1000 keep their four digits (Go's zero time is year 1).
        for date in ["Mon, 01 Jan 0001 00:00:00 GMT", "Sun, 06 Nov 0050 08:49:37 GMT", "Sat, 06 Nov 0100 08:49:37 GMT"] {
            XCTAssertEqual(HTTPValidators.httpDate(date), date)
        }
        // The fixed layout with a wrong weekday, or another case, is written anew.
        XCTAssertEqual(HTTPValidators.httpDate("Mon, 06 Nov 1994 08:49:37 GMT"), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(HTTPValidators.httpDate("SUN, 06 Nov 1994 08:49:37 GMT"), "Sun, 06 Nov 1994 08:49:37 GMT")
        for text in ["Sun, 06 Nov 1994 08:49:37 GMT\r\nX: 1", "Sun, 06 Nov 1994\r08:49:37 GMT", "yesterday", "", "Sun, 06 Nov 1994 08:49:37 GMT\u{0}"] {
            XCTAssertNil(HTTPValidators.httpDate(text), text.debugDescription)
        }
    }

    func test_pageRecordsValidators_keepOnlyWhatMatchesTheGrammar() {
        let page = PageRecord(url: "http://h/v1/feed?limit=1", status: 200, etag: "\"a\r\nX: 1\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(FeedValidators(page), FeedValidators(url: "http://h/v1/feed?limit=1", etag: nil, lastModified: "Sun, 06 Nov 1994 08:49:37 GMT"))
        XCTAssertNil(FeedValidators(PageRecord(url: "http://h/", status: 200, etag: "\u{0}", lastModified: nil)))
    }
}
