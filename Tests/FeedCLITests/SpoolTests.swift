import EssentialFeed
import FeedCLI
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The one spool: records kept in memory, then in a temporary file, written
/// on whole and in order, or dropped.
final class SpoolTests: XCTestCase {
    private var fds: [Int32] = [-1, -1]
    private var output: Output!

    override func setUp() {
        XCTAssertEqual(pipe(&fds), 0)
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        output = Output(fd: fds[1], diagnostics: Diagnostics(tool: "t", environment: nil))
    }

    override func tearDown() {
        close(fds[0])
        close(fds[1])
    }

    private func written() -> String {
        output.flush()
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func records(_ range: ClosedRange<Int>) -> [String] {
        range.map { #"{"n":\#($0)}"# }
    }

    func test_writesWhatItKeepsInOrder_inMemoryAndPastItsLimit() throws {
        for limit in [1 << 20, 16] {
            let spool = Spool(name: "spool-test", environment: [:], memoryLimit: limit)
            XCTAssertTrue(spool.isEmpty)
            for record in records(1...50) { try spool.append(line: Array(record.utf8)) }
            let block = Array(records(51...60).joined(separator: "\n").utf8) + [0x0A]
            try block.withUnsafeBytes { try spool.append($0) }
            XCTAssertFalse(spool.isEmpty)
            XCTAssertEqual(written(), "", "nothing before it is written, limit \(limit)")
            try spool.write(to: output)
            XCTAssertEqual(written(), records(1...60).joined(separator: "\n") + "\n", "limit \(limit)")
            XCTAssertTrue(spool.isEmpty, "written records are gone")
            try spool.append(line: Array("{}".utf8))
            try spool.write(to: output)
            XCTAssertEqual(written(), "{}\n", "and the spool is used again, limit \(limit)")
        }
    }

    func test_forEachLine_givesEveryRecordInOrderWithoutItsNewline_inMemoryAndPastItsLimit() throws {
        for limit in [1 << 20, 16] {
            let spool = Spool(name: "spool-test", environment: [:], memoryLimit: limit)
            for record in records(1...50) { try spool.append(line: Array(record.utf8)) }
            var lines: [String] = []
            try spool.forEachLine { lines.append(String(decoding: $0, as: UTF8.self)) }
            XCTAssertEqual(lines, records(1...50), "limit \(limit)")
            XCTAssertTrue(spool.isEmpty, "and then holds nothing")
        }
    }

    func test_discardDropsEverything() throws {
        let spool = Spool(name: "spool-test", environment: [:], memoryLimit: 16)
        for record in records(1...20) { try spool.append(line: Array(record.utf8)) }
        try spool.discard()
        XCTAssertTrue(spool.isEmpty)
        try spool.append(line: Array("{}".utf8))
        try spool.write(to: output)
        XCTAssertEqual(written(), "{}\n")
    }

    func test_aTemporaryFileThatCannotBeMadeIsAStoreErrorNamingTheDirectory() {
        let spool = Spool(name: "spool-test", environment: ["TMPDIR": "/nonexistent-dir"], memoryLimit: 4)
        XCTAssertThrowsError(try spool.append(line: Array("{\"n\":1}".utf8))) { error in
            XCTAssertEqual((error as? ErrorRecord)?.kind, .store)
            XCTAssertTrue((error as? ErrorRecord)?.message.contains("/nonexistent-dir") ?? false)
        }
    }

    func test_bytes_readsWhatWasKept_spilledAndInMemory_inOrder() throws {
        let spool = Spool(name: "feed-fetch-test", environment: [:], memoryLimit: 1000)
        var all: [UInt8] = []
        for i in 0..<300 {
            let piece = (0..<(i % 17 + 1)).map { UInt8(truncatingIfNeeded: i &+ $0) }
            all += piece
            let copy = piece
            try copy.withUnsafeBytes { p in try spool.append(p) }
        }
        XCTAssertEqual(spool.count, all.count)
        for size in [1, 7, 4096] {
            var source = try spool.bytes()
            var read: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: size)
            while true {
                let n = try buffer.withUnsafeMutableBytes { b in try source.read(into: b) }
                if n == 0 { break }
                read += buffer[..<n]
            }
            XCTAssertEqual(read, all, "read \(size) at a time")
        }
    }
}
