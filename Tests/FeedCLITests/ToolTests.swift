@testable import FeedCLI
import EssentialFeed
import XCTest

/// What every tool shares: the base URL rule and the interrupt cleanups.
/// (No `Tool` is made here: it blocks SIGINT and SIGTERM in the process,
/// which the processes other tests start would inherit.)
/// (The signals themselves, the exit statuses and --help/--version are
/// tested end to end against the executables, in ToolTests.)
final class SharedToolTests: XCTestCase {
    private func base(_ option: String?, _ environment: [String: String]) throws -> String? {
        try BaseURLOption.resolve(option: option, environment: environment)?.description
    }

    func test_baseURL_takesTheOptionBeforeTheEnvironment() throws {
        XCTAssertEqual(try base("http://a/x/", ["FEED_BASE_URL": "http://b"]), BaseURL("http://a/x")?.description)
        XCTAssertEqual(try base(nil, ["FEED_BASE_URL": "http://b"]), "http://b")
        XCTAssertEqual(try base("", ["FEED_BASE_URL": "http://b"]), "http://b", "an empty option counts as unset")
        XCTAssertNil(try base(nil, ["FEED_BASE_URL": ""]))
        XCTAssertNil(try base(nil, [:]))
    }

    func test_baseURL_refusesAnythingButHTTPWithoutQuery() {
        for bad in ["ftp://h", "http://h/?q=1", "h/x", "http://h/#f"] {
            XCTAssertThrowsError(try base(bad, [:]), bad) { error in
                XCTAssertEqual((error as? ErrorRecord)?.kind, .usage)
            }
        }
    }

    /// Each refusal says what to change: the scheme missing (with the URL
    /// meant, its password masked), another scheme, a query or fragment.
    func test_baseURL_refusalSaysWhatToChange() {
        let advice = "has a user name or password holding #, ?, /, @ or a blank: write them %23, %3F, %2F, %40 and %20"
        let said = { (text: String) -> String? in
            do { _ = try self.base(text, [:]); return nil } catch { return (error as? ErrorRecord)?.message }
        }
        XCTAssertEqual(said("localhost:8080"), "base URL 'localhost:8080' has no scheme: did you mean 'http://localhost:8080'?")
        XCTAssertEqual(said("u:secret@h/v1"), "base URL 'u:***@h/v1' has no scheme: did you mean 'http://u:***@h/v1'?")
        XCTAssertEqual(said("ftp://h"), "base URL 'ftp://h' is not an http or https URL")
        XCTAssertEqual(said("https://h/v1?x=1"), "base URL 'https://h/v1?x=1' has a query or fragment: give the API's base alone (as https://host/path)")
        XCTAssertEqual(said("http://"), "base URL 'http://' is not a valid http(s) URL")
        // Advice only of a URL that would be taken; a scheme told from a port and a user-info.
        XCTAssertEqual(said("//host"), "base URL '//host' has no scheme: did you mean 'http://host'?")
        XCTAssertEqual(said(":8080"), "base URL ':8080' has no scheme: give http:// or https:// and the API's host")
        XCTAssertEqual(said("host/x?y=1"), "base URL 'host/x?y=1' has no scheme: give http:// or https:// and the API's host")
        XCTAssertEqual(said("mailto:x"), "base URL 'mailto:x' is not an http or https URL")
        XCTAssertEqual(said("http:/h"), "base URL 'http:/h' is not an http(s) URL: did you mean 'http://h'?")
        // A password holding # ? or a blank: masked whole, and how to write it (review: shown as typed).
        XCTAssertEqual(said("https://alice:hunter#2@feed.example.com"), "base URL 'https://alice:***@feed.example.com' " + advice)
        XCTAssertEqual(said("http://u:pa/ss@host"), "base URL 'http://u:***@host' " + advice)
        XCTAssertEqual(said("ftp://alice:p ss@host/"), "base URL 'ftp://alice:***@host/' is not an http or https URL")
        // Masked wherever the user-info starts, and a scheme's colon or slashes astray (second review: shown as typed).
        XCTAssertEqual(said("//u:pw@host"), "base URL '//u:***@host' has no scheme: did you mean 'http://u:***@host'?")
        XCTAssertEqual(said("u:pw@host/?r=http://z"), "base URL 'u:***@host/?r=http://z' has no scheme: give http:// or https:// and the API's host")
        XCTAssertEqual(said("http:u:pw@host"), "base URL 'http:***@host' is not an http(s) URL: did you mean 'http://u:***@host'?")
        XCTAssertEqual(said("http//host"), "base URL 'http//host' is not an http(s) URL: did you mean 'http://host'?")
    }

    func test_interruptCleanups_areRegisteredAndRemoved() {
        let before = Signals.registeredCleanups
        let first = Signals.onInterrupt {}
        let second = Signals.onInterrupt {}
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(Signals.registeredCleanups, before + 2)
        Signals.remove(first)
        Signals.remove(first)
        XCTAssertEqual(Signals.registeredCleanups, before + 1)
        Signals.remove(second)
        XCTAssertEqual(Signals.registeredCleanups, before)
    }
}
