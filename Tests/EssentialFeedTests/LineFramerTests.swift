import Foundation
import XCTest
import EssentialFeed

final class LineFramerTests: XCTestCase {

    func test_nextLine_returnsNilBeforeAnyInput() {
        var framer = LineFramer()
        XCTAssertNil(framer.nextLine())
        XCTAssertNil(framer.finish())
        XCTAssertEqual(framer.lineNumber, 0)
        XCTAssertEqual(framer.pendingCount, 0)
    }

    func test_nextLine_splitsOneChunkIntoLines() {
        var framer = LineFramer()
        framer.append(Array("{\"a\":1}\n{\"b\":2}\n".utf8))
        XCTAssertEqual(text(framer.nextLine()), "{\"a\":1}")
        XCTAssertEqual(framer.lineNumber, 1)
        XCTAssertEqual(text(framer.nextLine()), "{\"b\":2}")
        XCTAssertEqual(framer.lineNumber, 2)
        XCTAssertNil(framer.nextLine())
        XCTAssertNil(framer.finish(), "a stream ending in a newline has no truncated line")
        XCTAssertEqual(framer.lineNumber, 2)
    }

    func test_nextLine_joinsALineSplitAcrossChunks() {
        var framer = LineFramer()
        framer.append(Array("{\"a\":".utf8))
        XCTAssertNil(framer.nextLine())
        XCTAssertEqual(framer.pendingCount, 5)
        framer.append(Array("1".utf8))
        XCTAssertNil(framer.nextLine())
        framer.append(Array("}\n{\"b\"".utf8))
        XCTAssertEqual(text(framer.nextLine()), "{\"a\":1}")
        XCTAssertNil(framer.nextLine())
        framer.append(Array(":2}\n".utf8))
        XCTAssertEqual(text(framer.nextLine()), "{\"b\":2}")
        XCTAssertEqual(framer.lineNumber, 2)
        XCTAssertEqual(framer.pendingCount, 0)
    }

    func test_nextLine_removesTrailingCarriageReturn() {
        XCTAssertEqual(lines(of: ["a\r\nb\r\n"]), ["a", "b"])
        XCTAssertEqual(lines(of: ["\r\n"]), [""])
        XCTAssertEqual(lines(of: ["a\r\r\n"]), ["a\r"], "only one trailing carriage return is removed")
        XCTAssertEqual(lines(of: ["a\rb\n"]), ["a\rb"], "a carriage return inside a line stays")
    }

    func test_nextLine_removesCarriageReturnSplitFromItsNewline() {
        XCTAssertEqual(lines(of: ["a\r", "\nb", "\r", "\n"]), ["a", "b"])
    }

    func test_nextLine_countsBlankLines() {
        var framer = LineFramer()
        framer.append(Array("a\n\n  \n\r\nb\n".utf8))
        var seen: [(Int, String, Bool)] = []
        while let line = framer.nextLine() { seen.append((framer.lineNumber, text(line) ?? "", line.isBlank)) }
        XCTAssertEqual(seen.map(\.0), [1, 2, 3, 4, 5])
        XCTAssertEqual(seen.map(\.1), ["a", "", "  ", "", "b"])
        XCTAssertEqual(seen.map(\.2), [false, true, true, true, false])
    }

    func test_isBlank_acceptsOnlyJSONWhitespace() {
        XCTAssertTrue(ArraySlice<UInt8>([]).isBlank)
        XCTAssertTrue(ArraySlice(Array(" \t\r".utf8)).isBlank)
        XCTAssertFalse(ArraySlice(Array(" x ".utf8)).isBlank)
        XCTAssertFalse(ArraySlice(Array("\u{0C}".utf8)).isBlank)
    }

    func test_finish_returnsALastLineWithoutNewlineAsTruncated() {
        var framer = LineFramer()
        framer.append(Array("{\"a\":1}\n{\"b\":".utf8))
        XCTAssertEqual(text(framer.nextLine()), "{\"a\":1}")
        XCTAssertNil(framer.nextLine())
        XCTAssertEqual(text(framer.finish()), "{\"b\":")
        XCTAssertEqual(framer.lineNumber, 2, "the truncated line has the next number")
        XCTAssertNil(framer.finish(), "the rest is returned once")
        XCTAssertEqual(framer.lineNumber, 2)
    }

    func test_finish_returnsAWholeStreamWithoutNewline() {
        var framer = LineFramer()
        framer.append(Array("{}".utf8))
        XCTAssertNil(framer.nextLine())
        XCTAssertEqual(text(framer.finish()), "{}")
        XCTAssertEqual(framer.lineNumber, 1)
    }

    func test_finish_afterBlankLinesNumbersTheTruncatedLine() {
        var framer = LineFramer()
        framer.append(Array("\n\nx".utf8))
        XCTAssertEqual(text(framer.nextLine()), "")
        XCTAssertEqual(text(framer.nextLine()), "")
        XCTAssertNil(framer.nextLine())
        XCTAssertEqual(text(framer.finish()), "x")
        XCTAssertEqual(framer.lineNumber, 3)
    }

    func test_nextLine_handlesOneByteAtATime() {
        var stream: [UInt8] = []
        var expected: [String] = []
        for k in 0..<200 {
            let line = k % 7 == 0 ? "" : "{\"k\":\(k),\"s\":\"\(String(repeating: "é", count: k % 13))\"}"
            expected.append(line)
            stream += Array(line.utf8) + (k % 3 == 0 ? [0x0D, 0x0A] : [0x0A])
        }
        var framer = LineFramer()
        var got: [String] = []
        var numbers: [Int] = []
        for byte in stream {
            framer.append(CollectionOfOne(byte))
            while let line = framer.nextLine() {
                got.append(text(line) ?? "")
                numbers.append(framer.lineNumber)
            }
        }
        XCTAssertNil(framer.finish())
        XCTAssertEqual(got, expected)
        XCTAssertEqual(numbers, Array(1...200))
    }

    func test_nextLine_handlesAVeryLongLine() {
        let long = String(repeating: "abcdefghij", count: 300_000)
        let stream = Array((long + "\n{}\n" + long).utf8)
        var framer = LineFramer()
        var got: [String] = []
        var offset = 0
        while offset < stream.count {
            let end = min(offset + 4096, stream.count)
            framer.append(stream[offset..<end])
            offset = end
            while let line = framer.nextLine() { got.append(text(line) ?? "") }
        }
        let rest = framer.finish()
        XCTAssertEqual(got.count, 2)
        XCTAssertEqual(got.first?.utf8.count, long.utf8.count)
        XCTAssertTrue(got.first == long)
        XCTAssertEqual(got.last, "{}")
        XCTAssertEqual(rest?.count, long.utf8.count)
        XCTAssertEqual(framer.lineNumber, 3)
    }

    func test_nextLine_keepsLinesIntactAcrossBufferCompaction() {
        // Chunks that always end mid-line keep bytes pending, so the framer
        // has to move its unread bytes down rather than start afresh.
        var stream: [UInt8] = []
        var expected: [String] = []
        for k in 0..<20_000 {
            let line = "{\"n\":\(k),\"pad\":\"\(String(repeating: "x", count: k % 50))\"}"
            expected.append(line)
            stream += Array(line.utf8) + [0x0A]
        }
        var framer = LineFramer()
        var got: [String] = []
        var offset = 0
        let sizes = [70_001, 1, 131_071, 5, 65_537, 999]
        var s = 0
        while offset < stream.count {
            let end = min(offset + sizes[s % sizes.count], stream.count)
            s += 1
            framer.append(stream[offset..<end])
            offset = end
            while let line = framer.nextLine() { got.append(text(line) ?? "") }
        }
        XCTAssertNil(framer.finish())
        XCTAssertEqual(got.count, expected.count)
        XCTAssertTrue(got == expected)
        XCTAssertEqual(framer.lineNumber, expected.count)
    }

    func test_nextLine_returnsLinesThatSurviveLaterAppends() {
        var framer = LineFramer()
        framer.append(Array("first\nsec".utf8))
        let first = framer.nextLine()
        framer.append(Array("ond\n".utf8))
        let second = framer.nextLine()
        framer.append(Array("third\n".utf8))
        XCTAssertEqual(text(first), "first")
        XCTAssertEqual(text(second), "second")
        XCTAssertEqual(text(framer.nextLine()), "third")
    }

    func test_pendingCount_countsBytesOfTheIncompleteLine() {
        var framer = LineFramer()
        framer.append(Array("ab\ncd".utf8))
        _ = framer.nextLine()
        XCTAssertEqual(framer.pendingCount, 2)
        _ = framer.finish()
        XCTAssertEqual(framer.pendingCount, 0)
    }

    // MARK: Helpers

    private func text(_ line: ArraySlice<UInt8>?) -> String? {
        line.map { String(decoding: $0, as: UTF8.self) }
    }

    private func lines(of chunks: [String], file: StaticString = #filePath, line: UInt = #line) -> [String] {
        var framer = LineFramer()
        var result: [String] = []
        for chunk in chunks {
            framer.append(Array(chunk.utf8))
            while let next = framer.nextLine() { result.append(text(next) ?? "") }
        }
        XCTAssertNil(framer.finish(), "unexpected truncated line", file: file, line: line)
        return result
    }
}
