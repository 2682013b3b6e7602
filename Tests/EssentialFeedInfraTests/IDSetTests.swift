import Foundation
import XCTest
@testable import EssentialFeedInfra

/// The set of ids both file stores' saves use to find repeated ones.
final class IDSetTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "idset-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func makeSUT(minimumMerge: Int = 1 << 15) -> IDSet {
        IDSet(directory: directory, path: directory + "/feed.sqlite", minimumMerge: minimumMerge)
    }

    func test_insert_findsEveryRepeatedIDAcrossMerges_andLeavesNoFileBehind() throws {
        var sut = makeSUT()
        let ids = (0..<150_000).map { _ in UUID() }

        XCTAssertTrue(try ids.allSatisfy { try sut.insert($0) }, "Expected each new id inserted")
        XCTAssertEqual(sut.count, ids.count)
        XCTAssertTrue(try ids.allSatisfy { try !sut.insert($0) }, "Expected each id found again")
        XCTAssertEqual(sut.count, ids.count)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [], "the log's file is unlinked from the start")
    }

    func test_insert_findsRepeatsInTheSortedRunAndAmongTheRecentOnes_inAnyOrder() throws {
        // Merges every 7 keys at first: repeats meet the run and the recent keys.
        var sut = makeSUT(minimumMerge: 7)
        var reference = Set<UUID>()
        let pool = (0..<3_000).map { _ in UUID() }

        for _ in 0..<20_000 {
            let id = pool.randomElement()!
            XCTAssertEqual(try sut.insert(id), reference.insert(id).inserted, "\(id)")
        }
        XCTAssertEqual(sut.count, reference.count)
    }

    func test_insert_keepsIDsThatDifferInOneHalfOnly_andTheAllZeroID() throws {
        var sut = makeSUT(minimumMerge: 100)
        let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        let sequential = (0..<1_000).map { UUID(uuidString: String(format: "%08X-0000-4000-8000-000000000000", $0))! }
            + (0..<1_000).map { UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", $0))! }

        XCTAssertTrue(try sut.insert(zero))
        XCTAssertFalse(try sut.insert(zero))
        XCTAssertEqual(try sequential.filter { try sut.insert($0) }.count, 1_999, "00000000-0000-4000-8000-000000000000 is in both halves")
        XCTAssertEqual(sut.count, 2_000)
        XCTAssertFalse(try sut.insert(zero))
        XCTAssertEqual(try sequential.filter { try sut.insert($0) }.count, 0)
    }

    /// Generated ids share long prefixes: the key's bijection spreads them
    /// (a set of 200,000 such ids, merged many times, loses none).
    func test_insert_ofIDsThatShareAPrefix_keepsThemApart() throws {
        var sut = makeSUT(minimumMerge: 1_000)
        let ids = (0..<200_000).map { UUID(uuidString: String(format: "73A7F70C-75DA-4C2E-B5A3-%012X", $0))! }

        XCTAssertTrue(try ids.allSatisfy { try sut.insert($0) })
        XCTAssertTrue(try ids.reversed().allSatisfy { try !sut.insert($0) })
        XCTAssertEqual(sut.count, 200_000)
    }
}

extension IDSetTests {
    /// Two ids whose keys share their top 32 bits (the entry's fingerprint)
    /// are both kept, and each is found again: the log tells them apart.
    func test_insert_ofTwoIDsOfOneFingerprint_keepsBoth_beforeAndAfterAMerge() throws {
        var seen: [UInt64: UUID] = [:]
        var pair: (UUID, UUID)?
        for n in 0..<400_000 where pair == nil {
            let id = UUID(uuidString: String(format: "73A7F70C-75DA-4C2E-B5A3-%012X", n))!
            let fingerprint = IDSet.key(id).0 >> 32
            if let other = seen[fingerprint] { pair = (other, id) } else { seen[fingerprint] = id }
        }
        let (first, second) = try XCTUnwrap(pair, "a birthday collision of 32 bits among 400,000 ids")

        var recent = makeSUT(minimumMerge: 1_000)
        XCTAssertTrue(try recent.insert(first))
        XCTAssertTrue(try recent.insert(second), "among the recent entries")
        XCTAssertFalse(try recent.insert(first))
        XCTAssertFalse(try recent.insert(second))

        var merged = makeSUT(minimumMerge: 16)
        XCTAssertTrue(try merged.insert(first))
        for n in 0..<5_000 { _ = try merged.insert(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", n))!) }
        XCTAssertTrue(try merged.insert(second), "in the sorted run, its log entry in the file")
        for n in 0..<5_000 { _ = try merged.insert(UUID(uuidString: String(format: "00000001-0000-4000-8000-%012X", n))!) }
        XCTAssertFalse(try merged.insert(first))
        XCTAssertFalse(try merged.insert(second))
        XCTAssertEqual(merged.count, 10_002)
    }

    func test_sortByFingerprint_ofEntriesWhosePlacesRise_isTheirWholeSort() {
        var generator = SystemRandomNumberGenerator()
        for count in [0, 1, 2, 3, 100, 65_536] {
            // Fingerprints at random, some shared, the extremes among them; places rising from some start.
            let start = UInt64.random(in: 0...1_000_000, using: &generator)
            var entries = (0..<count).map { i -> UInt64 in
                let fingerprint: UInt64
                switch i % 5 {
                case 0: fingerprint = UInt64(UInt32.random(in: 0...7, using: &generator))
                case 1: fingerprint = UInt64(UInt32.max - UInt32.random(in: 0...7, using: &generator))
                default: fingerprint = UInt64(UInt32.random(in: 0...UInt32.max, using: &generator))
                }
                return fingerprint << 32 | (start + UInt64(i))
            }
            let expected = entries.sorted()
            var sorted = [UInt64](repeating: 0, count: count)
            entries.withUnsafeMutableBufferPointer { e in
                sorted.withUnsafeMutableBufferPointer { s in IDSet.sortByFingerprint(e, into: s) }
            }
            XCTAssertEqual(sorted, expected, "\(count) entries")
        }
    }

    func test_insert_ofNewIDs_searchesTheSortedRunForFewOfThem_andFindsEveryRepeat() throws {
        var sut = makeSUT()
        let ids = (0..<300_000).map { _ in UUID() }
        XCTAssertTrue(try ids.allSatisfy { try sut.insert($0) })
        // The run is searched only when its filter holds the fingerprint:
        // new ids are let through by the filter alone, all but a few percent.
        XCTAssertLessThan(sut.sortedSearches, ids.count / 20, "searches of the run for \(ids.count) new ids")
        let before = sut.sortedSearches
        XCTAssertTrue(try ids.allSatisfy { try !sut.insert($0) }, "every id found again")
        XCTAssertGreaterThan(sut.sortedSearches - before, ids.count * 3 / 4, "repeats in the run are searched for")
    }

    /// Ids crafted to share one fingerprint and one slot, against the
    /// former fixed scramble and against a key an attacker might guess:
    /// each compared with about one entry, not with every earlier id.
    func test_insert_ofIDsCraftedAgainstAFixedScramble_comparesAboutOneEntryEach() throws {
        for secret in [IDSet.formerSecret, (UInt64(0), UInt64(0), UInt64(0))] {
            var sut = makeSUT(minimumMerge: 1 << 12)
            let crafted = (0..<20_000).map { i in IDSet.id(ofKey: (0xDEAD_BEEF << 32 | UInt64(i), 0x42 << 40), secret: secret) }
            XCTAssertEqual(Set(crafted).count, crafted.count)
            XCTAssertEqual(Set(crafted.map { IDSet.key($0, secret: secret).0 >> 32 }).count, 1, "crafted to share one fingerprint under that scramble")
            XCTAssertTrue(try crafted.allSatisfy { try sut.insert($0) })
            XCTAssertLessThan(sut.probes, crafted.count * 2, "entries compared for \(crafted.count) crafted ids")
            XCTAssertTrue(try crafted.allSatisfy { try !sut.insert($0) }, "every crafted id found again")
        }
    }

    func test_secret_isDrawnPerProcess_notTheFormerFixedOne() {
        XCTAssertFalse(IDSet.secret == IDSet.formerSecret)
        XCTAssertFalse(IDSet.secret == (0, 0, 0))
        let id = UUID()
        XCTAssertEqual(IDSet.id(ofKey: IDSet.key(id), secret: IDSet.secret), id, "a bijection")
    }
}
