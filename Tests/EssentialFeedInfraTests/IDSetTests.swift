import Foundation
import XCTest
@testable import EssentialFeedInfra

/// The set of ids a SQLite save uses to find repeated ones.
final class IDSetTests: XCTestCase {
    func test_insert_findsEveryRepeatedIDAcrossGrowth() {
        var sut = IDSet()
        let ids = (0..<50_000).map { _ in UUID() }

        XCTAssertTrue(ids.allSatisfy { sut.insert($0) }, "Expected each new id inserted")
        XCTAssertEqual(sut.count, ids.count)
        XCTAssertTrue(ids.allSatisfy { !sut.insert($0) }, "Expected each id found again")
        XCTAssertEqual(sut.count, ids.count)
    }

    func test_insert_keepsIDsThatDifferInOneHalfOnly_andTheAllZeroID() {
        var sut = IDSet(minimumCapacity: 4)
        let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        let sequential = (0..<1_000).map { UUID(uuidString: String(format: "%08X-0000-4000-8000-000000000000", $0))! }
            + (0..<1_000).map { UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", $0))! }

        XCTAssertTrue(sut.insert(zero))
        XCTAssertFalse(sut.insert(zero))
        XCTAssertEqual(sequential.filter { sut.insert($0) }.count, 1_999, "00000000-0000-4000-8000-000000000000 is in both halves")
        XCTAssertEqual(sut.count, 2_000)
    }
}
