@testable import EssentialFeed
import XCTest

/// The fast path's tuned recognizer of item names agrees with `MemberName`,
/// the one matcher of names, on every name it knows and their near misses.
final class FastItemsTests: XCTestCase {
    private func known(_ key: String) -> (MemberName, Int)? {
        let bytes = Array((key + "\"" + String(repeating: " ", count: 16)).utf8)
        return bytes.withUnsafeBufferPointer { FastItems.knownKey($0.baseAddress!, 0, $0.count) }
    }

    func test_knownKey_recognizesEachItemNameAsMemberNameDoes() {
        for name in ["id", "image", "description", "location", "message", "created_at", "author", "username"] {
            let found = known(name)
            XCTAssertEqual(found?.0, MemberName(Array(name.utf8)), name)
            XCTAssertNotEqual(found?.0, .other, name)
            XCTAssertEqual(found?.1, name.utf8.count, "\(name): the index of its closing quote")
        }
    }

    func test_knownKey_leavesOtherNamesToTheScan() {
        for name in ["i", "ids", "Id", "imag", "images", "descriptions", "locatio", "messages", "created_on", "authors", "user", "usernames", "url", "x"] {
            XCTAssertNil(known(name), name)
        }
    }
}
