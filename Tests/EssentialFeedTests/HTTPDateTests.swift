@testable import EssentialFeed
import XCTest

final class HTTPDateTests: XCTestCase {
    /// RFC 9110's example instant.
    private let example = 784_111_777

    func test_format_writesIMFFixdate() {
        XCTAssertEqual(HTTPDate.format(example), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(HTTPDate.format(0), "Thu, 01 Jan 1970 00:00:00 GMT")
        XCTAssertEqual(HTTPDate.format(951_782_400), "Tue, 29 Feb 2000 00:00:00 GMT")
    }

    func test_parse_readsTheThreeFormsOfRFC9110() {
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), example)
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"), example)
        XCTAssertEqual(HTTPDate.parse("Sun Nov  6 08:49:37 1994"), example)
    }

    func test_parse_refusesWhatIsNotAnHTTPDate() {
        for text in ["", "120", "Sun, 06 Nov 1994 08:49:37 CET", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
                     "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT", "2020-05-20T11:24:59Z",
                     // Years past four digits, from a server: once an overflow (SIGILL) in the days' arithmetic.
                     "Sun, 06 Nov 99999999999999999 08:49:37 GMT", "Sun Nov  6 08:49:37 300000000000", "Sun, 06 Nov 10000 08:49:37 GMT",
                     // Signs, and fewer digits than the grammar's (found by the hunt: kept, and sent back as If-Modified-Since).
                     "Sun, +6 Nov 1994 08:49:+7 GMT", "Sun,6 Nov +1994 8:+9:37 GMT", "Sun, 006 Nov 1994 08:49:37 GMT",
                     "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 994 08:49:37 GMT", "Sun Nov +6 08:49:37 1994", "Sun Nov  6 08:49:37 +994"] {
            XCTAssertNil(HTTPDate.parse(text), text)
        }
    }

    func test_format_ofTheFarthestSeconds_doesNotTrap() {
        XCTAssertFalse(HTTPDate.format(.min).isEmpty)
        XCTAssertFalse(HTTPDate.format(.max).isEmpty)
    }

    func test_formatThenParse_isTheSameInstant() {
        for seconds in [0, 1, example, 1_700_000_000, 4_102_444_799] {
            XCTAssertEqual(HTTPDate.parse(HTTPDate.format(seconds)), seconds)
        }
    }
}

final class HTTPDateFixedPlacesTests: XCTestCase {
    /// The reading from fixed places gives what the reading as words gives,
    /// for dates in that layout and for every one-byte change of them.
    func test_parse_ofAnIMFFixdateFromItsPlaces_isWhatTheWordsGive() {
        var generator = SystemRandomNumberGenerator()
        var texts = ["Sun, 06 Nov 1994 08:49:37 GMT", "Tue, 29 Feb 2000 23:59:60 GMT", "Wed, 29 Feb 2001 00:00:00 GMT",
                     "xyz, 31 Apr 2024 12:00:00 GMT", "Sun, 06 nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 gmt"]
        for _ in 0..<300 { texts.append(HTTPDate.format(Int.random(in: -2_000_000_000...4_000_000_000, using: &generator))) }
        let alphabet = Array("0123456789 ,:-+ABCGMTabcz\u{7F}".utf8)
        for text in texts {
            var variants = [text]
            for _ in 0..<20 {
                var bytes = Array(text.utf8)
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = alphabet.randomElement(using: &generator)!
                variants.append(String(decoding: bytes, as: UTF8.self))
            }
            for variant in variants {
                XCTAssertEqual(HTTPDate.parse(variant), HTTPDate.parseWords(variant), variant)
            }
        }
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), 784_111_777)
    }
}
