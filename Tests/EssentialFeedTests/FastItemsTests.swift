@testable import EssentialFeed
import XCTest

/// The fast path's tuned recognizer of item names agrees with `MemberName`,
/// the one matcher of names, on every name it knows and their near misses.
final class FastItemsTests: XCTestCase {
    private func name(_ key: String) -> MemberName {
        // In a buffer with room for whole words after the name, and without.
        let padded = Array((key + "\"" + String(repeating: "x", count: 16)).utf8)
        let wide = padded.withUnsafeBufferPointer { FastItems.name(JSONName($0.baseAddress!, 0, key.utf8.count, $0.count)) }
        let tight = Array(key.utf8).withUnsafeBufferPointer { p in
            p.baseAddress.map { FastItems.name(JSONName($0, 0, p.count, p.count)) } ?? .other
        }
        XCTAssertEqual(wide, tight, key)
        return wide
    }

    func test_name_recognizesEachItemNameAsMemberNameDoes() {
        for key in ["id", "url", "image", "description", "location", "message", "created_at", "author", "username"] {
            XCTAssertEqual(name(key), MemberName(Array(key.utf8)), key)
            XCTAssertNotEqual(name(key), .other, key)
        }
    }

    func test_name_leavesOtherNamesAsOther() {
        for key in ["", "i", "ids", "Id", "imag", "images", "imagE", "descriptions", "descriptioN", "locatio", "locatioN",
                    "messages", "created_on", "created_aT", "authors", "user", "usernames", "ur", "urls", "uRl", "URL", "x"] {
            XCTAssertEqual(name(key), .other, key)
        }
    }
}
