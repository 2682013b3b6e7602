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
}
