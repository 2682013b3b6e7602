import EssentialFeed
import FeedCLI
import XCTest

final class ArgumentsTests: XCTestCase {
    private let options: [OptionSpec] = [.value("--limit", "-n"), .flag("--raw"), .value("--timeout")]

    private func parse(_ arguments: [String]) throws -> Arguments {
        try Arguments(arguments, options: options)
    }

    private func usageMessage(_ arguments: [String]) -> String? {
        do {
            _ = try Arguments(arguments, options: options)
            return nil
        } catch {
            XCTAssertEqual(error.kind, .usage)
            return error.message
        }
    }

    func test_readsEveryFormOfAValue() throws {
        XCTAssertEqual(try parse(["--limit", "5"]).value("--limit"), "5")
        XCTAssertEqual(try parse(["--limit=5"]).value("--limit"), "5")
        XCTAssertEqual(try parse(["-n", "5"]).value("--limit"), "5", "an alias answers to the canonical name")
        XCTAssertEqual(try parse(["--limit=1", "--limit", "2"]).value("--limit"), "2", "the last wins")
        XCTAssertEqual(try parse(["--limit="]).value("--limit"), "", "an empty inline value is a value")
    }

    func test_separatesFlagsOperandsAndTheEndOfOptions() throws {
        let parsed = try parse(["a", "--raw", "-", "--", "--limit", "-n"])
        XCTAssertTrue(parsed.flag("--raw"))
        XCTAssertEqual(parsed.operands, ["a", "-", "--limit", "-n"])
        XCTAssertNil(parsed.value("--limit"))
        XCTAssertFalse(try parse([]).flag("--raw"))
    }

    func test_refusesWhatItDoesNotKnowWithAUsageError() {
        XCTAssertEqual(usageMessage(["--nope"]), "unknown option '--nope'")
        XCTAssertEqual(usageMessage(["--nope=1"]), "unknown option '--nope'")
        XCTAssertEqual(usageMessage(["--limit"]), "option '--limit' needs a value")
        XCTAssertEqual(usageMessage(["--raw=yes"]), "option '--raw' takes no value")
    }

    func test_integerAndSeconds_checkTheirRanges() throws {
        XCTAssertEqual(try parse(["--limit", "10"]).integer("--limit", in: 1...100), 10)
        XCTAssertNil(try parse([]).integer("--limit", in: 1...100))
        // Digits alone, as the scripts take them (+5 was taken here, refused there).
        for bad in ["0", "101", "x", "1.5", "", "+5", "-0", " 5"] {
            XCTAssertThrowsError(try parse(["--limit", bad]).integer("--limit", in: 1...100), bad)
        }
        XCTAssertEqual(try parse(["--timeout", "0.5"]).seconds("--timeout"), 0.5)
        XCTAssertEqual(try parse(["--timeout", "0"]).seconds("--timeout", allowZero: true), 0)
        for bad in ["0", "-1", "inf", "nan", "x"] {
            XCTAssertThrowsError(try parse(["--timeout", bad]).seconds("--timeout"), bad)
        }
        // Decimal only, and bounded: a deadline in nanoseconds must fit (a
        // timeout of 99999999999 s once overflowed it and trapped).
        XCTAssertEqual(try parse(["--timeout", "1000000"]).seconds("--timeout"), 1_000_000)
        for bad in ["1000000.5", "99999999999", "1e3", "0x10", "+5", ".5", "5.", "1..2", " 5"] {
            XCTAssertThrowsError(try parse(["--timeout", bad]).seconds("--timeout"), bad) { error in
                XCTAssertEqual((error as? ErrorRecord)?.message, "--timeout takes a positive number of seconds up to 1000000, not '\(bad)'")
            }
        }
    }
}
