import Foundation
import XCTest
@testable import EssentialFeedInfra

/// The external sort the JSON-file store's image data goes through.
final class SortedEntrySpoolTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "sorted-spool-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func makeSUT(memoryLimit: Int) -> SortedEntrySpool {
        SortedEntrySpool(directory: directory, path: directory + "/feed.json", memoryLimit: memoryLimit)
    }

    private func all(_ sut: SortedEntrySpool) throws -> [(key: [UInt8], value: [UInt8])] {
        var merge = try sut.sorted()
        var out: [(key: [UInt8], value: [UInt8])] = []
        while let entry = try merge.next() { out.append(entry) }
        return out
    }

    func test_sorted_givesEachKeyOnceInByteOrderWithItsLastValue_acrossManyRuns() throws {
        // Keys from a small alphabet (repeats, prefixes of each other, the
        // empty key, bytes above 0x7F); values from empty to past a run
        // reader's 64 KiB piece.
        var generator = SystemRandomNumberGenerator()
        let sut = makeSUT(memoryLimit: 16 << 10)
        var model: [[UInt8]: [UInt8]] = [:]
        for i in 0..<6_000 {
            let key = (0..<Int.random(in: 0...4, using: &generator)).map { _ in ([0x61, 0x62, 0x7A, 0xC3, 0x00] as [UInt8]).randomElement(using: &generator)! }
            let size = i % 997 == 0 ? 70_000 : Int.random(in: 0...40, using: &generator)
            let value = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try sut.put(key, value)
            model[key] = value
        }

        XCTAssertGreaterThan(sut.runCount, 10, "Expected the entries written out in many runs")
        let expected = model.sorted { SortedEntrySpool.less($0.key, $1.key) }
        let got = try all(sut)
        XCTAssertEqual(got.map(\.key), expected.map(\.key))
        XCTAssertTrue(zip(got, expected).allSatisfy { $0.value == $1.value }, "Expected each key's last value")
        for (key, value) in model.prefix(30) {
            XCTAssertEqual(try sut.value(for: key), value)
        }
        XCTAssertNil(try sut.value(for: [0x62, 0x62, 0x62, 0x62, 0x62, 0x62]))
        var keys: [[UInt8]] = []
        try sut.forEachKey { keys.append($0) }
        XCTAssertEqual(keys, expected.map(\.key))
    }

    func test_sorted_ofEntriesHeldInMemoryOnly_andOfNone() throws {
        let sut = makeSUT(memoryLimit: 1 << 20)
        XCTAssertTrue(try all(sut).isEmpty)
        XCTAssertTrue(sut.isEmpty)

        try sut.put(Array("b".utf8), [2])
        try sut.put(Array("a".utf8), [1])
        try sut.put(Array("b".utf8), [3])

        XCTAssertEqual(sut.runCount, 0)
        let got = try all(sut)
        XCTAssertEqual(got.map(\.key), [Array("a".utf8), Array("b".utf8)])
        XCTAssertEqual(got.map(\.value), [[1], [3]])
        XCTAssertEqual(try sut.value(for: Array("b".utf8)), [3])
    }

    func test_aBigEntry_goesOutAsARunOfItsOwn_andStillWinsOrLosesByWhenItWasPut() throws {
        let sut = makeSUT(memoryLimit: 1024)
        let big = [UInt8](repeating: 7, count: 4000)
        try sut.put(Array("a".utf8), [1])
        try sut.put(Array("a".utf8), big)
        try sut.put(Array("b".utf8), big)
        try sut.put(Array("b".utf8), [2])

        XCTAssertEqual(sut.runCount, 3, "the small entry before, then each big one alone")
        XCTAssertLessThan(sut.heldBytes, 1024)
        let got = try all(sut)
        XCTAssertEqual(got.map(\.key), [Array("a".utf8), Array("b".utf8)])
        XCTAssertEqual(got.map(\.value), [big, [2]])
        XCTAssertEqual(try sut.value(for: Array("a".utf8)), big)
    }

    func test_memory_holdsNoMoreThanItsLimit_andLeavesNoFileBehind() throws {
        // 60k entries of ~60 bytes (3.6 MB) through a 64 KiB limit.
        let sut = makeSUT(memoryLimit: 64 << 10)
        for i in 0..<60_000 {
            try sut.put(Array("https://images.example.com/feed/\((i &* 7919) % 60_000).jpg".utf8), Array(repeating: UInt8(i & 0xFF), count: 20))
            XCTAssertLessThan(sut.heldBytes, 64 << 10)
        }

        XCTAssertGreaterThan(sut.runCount, 40)
        var merge = try sut.sorted()
        var count = 0
        var last: [UInt8]?
        while let (key, _) = try merge.next() {
            if let last { XCTAssertTrue(SortedEntrySpool.less(last, key)) }
            last = key
            count += 1
        }
        XCTAssertEqual(count, 60_000)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [], "the runs' file is unlinked from the start")
        sut.discard()
        XCTAssertTrue(sut.isEmpty)
    }
}
