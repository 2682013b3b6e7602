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
