import Foundation
import EssentialFeed
import FeedCLI
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The one line reader: lines across reads, blank lines counted and
/// skipped, one trailing carriage return removed, a last line without a
/// newline given as truncated.
final class InputLinesTests: XCTestCase {
    /// Every line of `text` read through a pipe in reads of `readSize` bytes.
    private func lines(_ text: String, readSize: Int = 3) throws -> [String] {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let bytes = Array(text.utf8)
        XCTAssertEqual(bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }, bytes.count)
        close(fds[1])
        var reader = InputLines(fd: fds[0], readSize: readSize, flushing: nil)
        var seen: [String] = []
        while let (line, number, truncated) = try reader.next() {
            seen.append("\(number)\(truncated ? "!" : ":") \(String(decoding: line, as: UTF8.self))")
        }
        return seen
    }

    func test_splitsLinesWhateverTheReadSize() throws {
        for size in [1, 2, 3, 7, 64] {
            XCTAssertEqual(try lines("{\"a\":1}\n{\"b\":2}\n", readSize: size), ["1: {\"a\":1}", "2: {\"b\":2}"], "read size \(size)")
        }
        XCTAssertEqual(try lines(""), [])
    }

    func test_countsBlankLinesAndSkipsThem() throws {
        XCTAssertEqual(try lines("a\n\n  \n\r\n\tb\n"), ["1: a", "5: \tb"])
        XCTAssertEqual(try lines("\n \n"), [])
    }

    func test_removesOneTrailingCarriageReturn() throws {
        XCTAssertEqual(try lines("a\r\nb\r\n", readSize: 1), ["1: a", "2: b"])
        XCTAssertEqual(try lines("a\r\r\n"), ["1: a\r"], "only one is removed")
        XCTAssertEqual(try lines("a\rb\n"), ["1: a\rb"], "one inside a line stays")
    }

    func test_givesALastLineWithoutNewlineAsTruncated() throws {
        XCTAssertEqual(try lines("{\"a\":1}\n{\"b\":"), ["1: {\"a\":1}", "2! {\"b\":"])
        XCTAssertEqual(try lines("{}"), ["1! {}"])
        XCTAssertEqual(try lines("\n\nx"), ["3! x"])
        XCTAssertEqual(try lines("x\n  "), ["1: x"], "a blank rest is no line")
    }

    func test_aLongLineGrowsTheBuffer() throws {
        let long = String(repeating: "x", count: 10_000)
        XCTAssertEqual(try lines(long + "\nend\n", readSize: 64), ["1: " + long, "2: end"])
    }

    func test_aReadErrorIsAStoreError() {
        var reader = InputLines(fd: -1, flushing: nil)
        XCTAssertThrowsError(try reader.next()) { error in
            XCTAssertEqual((error as? ErrorRecord)?.kind, .store)
        }
    }

    /// Every line of `bytes` read from a file, or the error that ended the reading.
    private func linesOfFile(_ bytes: [UInt8], readSize: Int = 65_536, maxLine: Int = InputLines.defaultMaxLine) throws -> (lines: [[UInt8]], error: ErrorRecord?) {
        let path = NSTemporaryDirectory() + "input-lines-\(UUID().uuidString)"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var reader = InputLines(fd: fd, readSize: readSize, maxLine: maxLine, flushing: nil)
        var seen: [[UInt8]] = []
        do {
            while let (line, _, _) = try reader.next() { seen.append(Array(line)) }
        } catch {
            return (seen, error)
        }
        return (seen, nil)
    }

    func test_aLineLongerThanTheLimit_isInvalidData_namingItsLine_andEndsTheReading() throws {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 5_000)
        let input = Array("a\n\n".utf8) + long + Array("\nb\n".utf8)
        let read = try linesOfFile(input, readSize: 64, maxLine: 4_096)
        XCTAssertEqual(read.lines, [Array("a".utf8)])
        XCTAssertEqual(read.error, ErrorRecord(.invalidData, "line longer than 4096 bytes (FEED_MAX_LINE)", line: 3))
        XCTAssertNil(try linesOfFile(input, readSize: 64, maxLine: 5_000).error, "a line of the limit is read")
        // A carriage return ending a line of the limit, read before its newline, does not count.
        let crlf = Array(String(repeating: "y", count: 10).utf8) + Array("\r\nz\n".utf8)
        XCTAssertNil(try linesOfFile(crlf, readSize: 11, maxLine: 10).error)
        XCTAssertEqual(try linesOfFile(crlf, readSize: 11, maxLine: 10).lines.map(\.count), [10, 1])
        // Over the limit by a byte, the newline in the same read.
        XCTAssertEqual(try linesOfFile(input, maxLine: 4_999).error, ErrorRecord(.invalidData, "line longer than 4999 bytes (FEED_MAX_LINE)", line: 3))
    }

    func test_linesOfAMegabyteOrMore_areHandedOverWhole_andTheLinesAfterThemFollow() throws {
        var input: [UInt8] = []
        var expected: [[UInt8]] = []
        for (i, size) in [10, 3 << 20, 1 << 20, 5, (1 << 20) + 7, 0, 2 << 20].enumerated() {
            let line = (0..<size).map { UInt8(ascii: "a") + UInt8(($0 + i) % 26) }
            input += line + [UInt8(ascii: "\n")]
            if size > 0 { expected.append(line) }
        }
        input += Array("\r\n".utf8) + [UInt8](repeating: 0x20, count: 1 << 20) + Array("\nlast\r\n".utf8)
        expected.append(Array("last".utf8))
        let read = try linesOfFile(input)
        XCTAssertNil(read.error)
        XCTAssertEqual(read.lines.map(\.count), expected.map(\.count))
        XCTAssertEqual(read.lines, expected, "a blank line of a megabyte is skipped too")
    }
}
