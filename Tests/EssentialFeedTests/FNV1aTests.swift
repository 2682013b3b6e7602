import EssentialFeed
import XCTest

final class FNV1aTests: XCTestCase {
    /// The published 64-bit FNV-1a values, and the Atom view's entry ids,
    /// which are made of it and must stay the same from run to run and
    /// release to release (a reader keeps an entry by its id).
    func test_hash_isFNV1a64() {
        func hash(_ text: String) -> String {
            var hash = FNV1a()
            hash.add(text.utf8)
            return hash.hex
        }
        XCTAssertEqual(hash(""), "cbf29ce484222325")
        XCTAssertEqual(hash("a"), "af63dc4c8601ec8c")
        XCTAssertEqual(hash("foobar"), "85944171f73967e8")
    }
}
