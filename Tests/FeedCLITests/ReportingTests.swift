@testable import FeedCLI
import EssentialFeed
import XCTest

/// How failures and diagnostics are shown: the input line first, one line
/// each, control characters escaped, passwords hidden.
final class ReportingTests: XCTestCase {
    func test_reported_namesTheInputLineOnce() {
        let located = ErrorRecord(.invalidData, "not a JSON object", line: 3).reported
        XCTAssertEqual(located.message, "stdin:3: not a JSON object")
        XCTAssertNil(located.line)
        XCTAssertEqual(located.reported, located, "reporting twice adds nothing")
        XCTAssertEqual(ErrorRecord(.invalidData, "body is not JSON: empty input", line: 0).reported.message, "stdin: body is not JSON: empty input")
        XCTAssertEqual(ErrorRecord(.store, "disk full").reported.message, "disk full")
    }

    func test_on_keepsTheFirstLineGiven() {
        XCTAssertEqual(ErrorRecord(.invalidData, "x").on(line: 4).line, 4)
        XCTAssertEqual(ErrorRecord(.invalidData, "x", line: 2).on(line: 4).line, 2)
    }

    func test_diagnostics_levelsFromFEED_LOG() {
        XCTAssertEqual(Diagnostics(tool: "t", environment: nil).level, .error)
        XCTAssertEqual(Diagnostics(tool: "t", environment: "DEBUG").level, .debug)
        XCTAssertEqual(Diagnostics(tool: "t", environment: "info").level, .info)
        XCTAssertEqual(Diagnostics(tool: "t", environment: "trace").level, .trace)
        XCTAssertEqual(Diagnostics(tool: "t", environment: "loud").level, .error)
        XCTAssertTrue(Diagnostics(tool: "t", environment: "debug").enabled(.info))
        XCTAssertFalse(Diagnostics(tool: "t", environment: "info").enabled(.debug))
    }

    func test_diagnostics_escapeEveryControlCharacter() {
        var bytes: [UInt8] = []
        Diagnostics.appendEscaped("a\nb\r\tc\u{1B}[31m\u{7F}\u{85}\u{2028}é", to: &bytes)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), #"a\nb\r\tc\u001B[31m\u007F\u0085\u2028é"#)
        // Bidirectional controls, which show the rest of the line reversed (a URL from a server had them).
        bytes = []
        Diagnostics.appendEscaped("http://h/\u{202E}\u{2066}x\u{200F}\u{061C}y\u{2069}", to: &bytes)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), #"http://h/\u202E\u2066x\u200F\u061Cy\u2069"#)
    }
}
