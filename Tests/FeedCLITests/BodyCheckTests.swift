@testable import FeedCLI
import EssentialFeed
import Foundation
import XCTest

/// feed-fetch's check of a spooled body, run on a thread of its own while
/// the body arrives: the same verdict as reading the whole body afterwards,
/// known early for a body that is not JSON, and never holding up the
/// receiving thread for good.
final class BodyCheckTests: XCTestCase {
    func test_verdict_asTheBodyComesInPieces_isTheVerdictOfTheWholeBody() throws {
        let bodies: [(String, BodyCheck.Verdict)] = [
            (#"{"items":[{"id":"A","n":[1,2.5e3,-0,true,null]}],"s":"é\u00e9\\"}"#, .init(isJSON: true, compactValue: 0..<66)),
            (" \n[1,2]\t\r\n", .init(isJSON: true, compactValue: 2..<7)),
            (#"{"a": 1}"#, .init(isJSON: true, compactValue: nil)),
            ("\"text\"", .init(isJSON: true, compactValue: 0..<6)),
            ("", .init(isJSON: false, compactValue: nil)),
            ("  \n", .init(isJSON: false, compactValue: nil)),
            ("<html>", .init(isJSON: false, compactValue: nil)),
            ("{} {}", .init(isJSON: false, compactValue: nil)),
            (#"{"a":"#, .init(isJSON: false, compactValue: nil)),
            ("[1,]", .init(isJSON: false, compactValue: nil)),
            ("\"\u{1}\"", .init(isJSON: false, compactValue: nil)),
        ]
        for (text, expected) in bodies {
            let bytes = Array(text.utf8)
            var whole = JSONStreamReader(source: ArrayByteSource(bytes), chunkSize: 16)
            XCTAssertEqual(try BodyCheck.verdict(of: &whole), expected, "read whole: \(text.debugDescription)")
            for pieceSize in [1, 2, 3, 7, 64] {
                let check = try XCTUnwrap(BodyCheck.start())
                var offset = 0
                while offset < bytes.count {
                    let end = min(offset + pieceSize, bytes.count)
                    bytes[offset..<end].withUnsafeBytes { check.append($0) }
                    offset = end
                }
                XCTAssertEqual(check.finish(), expected, "pieces of \(pieceSize): \(text.debugDescription)")
            }
        }
    }

    func test_aBodyThatIsNotJSON_isKnownBeforeItEnds_andItsLaterPiecesAreNotKept() throws {
        let check = try XCTUnwrap(BodyCheck.start())
        Array("<!doctype html>".utf8).withUnsafeBytes { check.append($0) }
        XCTAssertTrue(eventually { check.hasVerdict }, "checked as it came, not when it ended")
        let more = [UInt8](repeating: 0x20, count: BodyCheck.queueLimit)
        for _ in 0..<4 { more.withUnsafeBytes { check.append($0) } }
        XCTAssertEqual(check.finish(), .init(isJSON: false, compactValue: nil))
    }

    func test_aBodyLargerThanTheQueue_goesThroughWhileItIsChecked() throws {
        let check = try XCTUnwrap(BodyCheck.start())
        let done = expectation(description: "every piece handed over")
        let element = Array("{\"id\":\"0F5B1C2D-0000-4000-8000-000000000000\",\"n\":12345},".utf8)
        let pieces = 4 * BodyCheck.queueLimit / (element.count * 1_000) + 1
        Thread.detachNewThread {
            Array("[".utf8).withUnsafeBytes { check.append($0) }
            let piece = Array(repeating: element, count: 1_000).flatMap { $0 }
            for _ in 0..<pieces { piece.withUnsafeBytes { check.append($0) } }
            Array("0]".utf8).withUnsafeBytes { check.append($0) }
            done.fulfill()
        }
        wait(for: [done], timeout: 60)
        let count = 1 + pieces * element.count * 1_000 + 2
        XCTAssertEqual(check.finish(), .init(isJSON: true, compactValue: 0..<count))
    }

    func test_cancel_endsTheCheck_andLaterPiecesReturnAtOnce() throws {
        let check = try XCTUnwrap(BodyCheck.start())
        Array("[1,".utf8).withUnsafeBytes { check.append($0) }
        check.cancel()
        let big = [UInt8](repeating: 0x31, count: 2 * BodyCheck.queueLimit)
        big.withUnsafeBytes { check.append($0) }
        XCTAssertTrue(eventually { check.hasVerdict }, "the thread ends")
    }

    private func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if condition() { return true }
            usleep(1_000)
        }
        return condition()
    }
}
