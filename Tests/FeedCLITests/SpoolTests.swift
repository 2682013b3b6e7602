import EssentialFeed
@testable import FeedCLI
import Foundation
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

    /// What a reader of a pipe gets while `body` writes to the pipe's other end.
    private func drained(_ body: (Int32) throws -> Void) throws -> [UInt8] {
        var ends: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&ends), 0)
        final class Box: @unchecked Sendable { var bytes: [UInt8] = [] }
        let box = Box()
        let readEnd = ends[0]
        let done = DispatchSemaphore(value: 0)
        Thread {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                guard n > 0 else { break }
                box.bytes += chunk[0..<n]
            }
            done.signal()
        }.start()
        defer { close(readEnd) }
        do {
            try body(ends[1])
        } catch {
            close(ends[1])
            done.wait()
            throw error
        }
        close(ends[1])
        done.wait()
        return box.bytes
    }

    /// Records of every size up to one far longer than a send, and their text.
    private func manyRecords() -> (lines: [[UInt8]], text: [UInt8]) {
        var lines: [[UInt8]] = []
        for n in 0..<20_000 { lines.append(Array(#"{"n":\#(n),"pad":"\#(String(repeating: "x", count: n % 300))"}"#.utf8)) }
        lines.insert(Array((#"{"long":""# + String(repeating: "y", count: 3 * Spool.sendSize) + #""}"#).utf8), at: 7_000)
        return (lines, Array(lines.joined(separator: [0x0A])) + [0x0A])
    }

    func test_write_ofRecordsPastMemory_toAPipe_sendsThemFromTheFileWholeAndInOrder() throws {
        let (lines, text) = manyRecords()
        let spool = Spool(name: "spool-test", environment: [:], memoryLimit: 1 << 16)
        for line in lines { try spool.append(line: line) }
        var sent = 0
        let got = try drained { fd in
            let output = Output(fd: fd, diagnostics: Diagnostics(tool: "t", environment: nil))
            try spool.write(to: output)
            output.flush()
            sent = output.bytesSentFromFiles
        }
        XCTAssertEqual(got.count, text.count)
        XCTAssertTrue(got == text, "the records, byte for byte")
        XCTAssertGreaterThan(sent, text.count - (1 << 16) - 4096, "all but the part in memory sent by the system")
        XCTAssertTrue(spool.isEmpty)
    }

    func test_write_toAFileOpenedToAppend_writesTheRecordsAfterWhatItHeld() throws {
        let (lines, text) = manyRecords()
        let path = NSTemporaryDirectory() + "spool-append-\(getpid()).ndjson"
        defer { unlink(path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("before\n".utf8)))
        let fd = open(path, O_WRONLY | O_APPEND)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let spool = Spool(name: "spool-test", environment: [:], memoryLimit: 1 << 16)
        for line in lines { try spool.append(line: line) }
        let output = Output(fd: fd, diagnostics: Diagnostics(tool: "t", environment: nil))
        try spool.write(to: output)
        output.flush()
        close(fd)
        XCTAssertEqual(output.bytesSentFromFiles, 0, "sendfile takes no output opened to append: the bytes are written")
        let file = try XCTUnwrap(FileManager.default.contents(atPath: path))
        XCTAssertTrue(Array(file) == Array("before\n".utf8) + text)
    }

    func test_recordsEnd_isTheLastNewlineBeforeTheTarget_elseTheNextOne() throws {
        let spool = Spool(name: "spool-test", environment: [:], memoryLimit: 1)
        // Records of 10 bytes (with their newline), then one of 20 000.
        for _ in 0..<1000 { try spool.append(line: Array("{\"n\":123}".utf8)) }
        try spool.append(line: Array((#"{"s":""# + String(repeating: "z", count: 19_991) + #""}"#).utf8))
        for _ in 0..<10 { try spool.append(line: Array("{\"n\":123}".utf8)) }
        XCTAssertEqual(spool.count, 10_000 + 20_000 + 100)
        _ = try spool.bytes()  // everything in the file
        XCTAssertEqual(try spool.recordsEnd(from: 0, near: 25), 20)
        XCTAssertEqual(try spool.recordsEnd(from: 0, near: 30), 30)
        XCTAssertEqual(try spool.recordsEnd(from: 20, near: 25), 30, "no newline before the target: the record's own end")
        XCTAssertEqual(try spool.recordsEnd(from: 0, near: 9_000 + 4_096 * 3 + 5), 10_000, "found across windows")
        XCTAssertEqual(try spool.recordsEnd(from: 10_000, near: 15_000), 30_000, "a record longer than the step")
        XCTAssertEqual(try spool.recordsEnd(from: 30_000, near: 1 << 20), 30_100, "the file's end")
    }

    func test_copy_ofMoreThanTheFileHolds_isAReadingFailure() throws {
        let path = NSTemporaryDirectory() + "copy-short-\(getpid())"
        defer { unlink(path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("0123456789".utf8)))
        let source = open(path, O_RDONLY)
        defer { close(source) }
        let target = open("/dev/null", O_WRONLY)
        defer { close(target) }
        XCTAssertEqual(try Descriptor.copy(from: source, offset: 2, count: 8, to: target), 8)
        XCTAssertThrowsError(try Descriptor.copy(from: source, offset: 2, count: 9, to: target)) { error in
            XCTAssertEqual(error as? Descriptor.CopyFailure, .reading(EIO))
        }
    }
}
