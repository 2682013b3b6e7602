import EssentialFeed
import XCTest

final class MessageTextTests: XCTestCase {
    func test_counted_takesThePluralForAnyCountButOne() {
        XCTAssertEqual(counted(1, "byte"), "1 byte")
        XCTAssertEqual(counted(0, "byte"), "0 bytes")
        XCTAssertEqual(counted(2, "entry", "entries"), "2 entries")
    }

    func test_secondsText_isDecimal_withoutAnExponent_orTrailingZeros() {
        XCTAssertEqual(secondsText(30), "30")
        XCTAssertEqual(secondsText(0.5), "0.5")
        XCTAssertEqual(secondsText(1.25), "1.25")
        XCTAssertEqual(secondsText(0.000000001), "0.000000001")
        XCTAssertEqual(secondsText(0.1 + 0.2), "0.3", "to the nanosecond")
        XCTAssertEqual(secondsText(1_000_000), "1000000")
        XCTAssertEqual(secondsText(1e12), "1000000000000")
        XCTAssertEqual(secondsText(-0.5), "-0.5")
        XCTAssertEqual(secondsText(0), "0")
        XCTAssertFalse(secondsText(1e300).isEmpty, "no trap past Int64")
        XCTAssertEqual(secondsText(.infinity), "inf")
    }
}
