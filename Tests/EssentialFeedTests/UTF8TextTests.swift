import EssentialFeed
import XCTest

final class UTF8TextTests: XCTestCase {
    private func valid(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { UTF8Text.isValid($0) } }

    func test_isValid_acceptsUTF8Text_atEveryOffsetOfTheWordLoop() {
        for text in ["", "a", "plain ASCII past eight bytes", "Café", "日本語のテキスト", "😀 at the start", "end 😀", "\u{0}\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}"] {
            for pad in 0..<9 {
                XCTAssertTrue(valid(Array((String(repeating: "x", count: pad) + text).utf8)), "\(pad): \(text)")
            }
        }
        XCTAssertTrue(UTF8Text.isValid(nil))
    }

    func test_isValid_refusesWhatRFC3629Refuses_whereverItLies() {
        let invalid: [[UInt8]] = [[0x80], [0xBF], [0xC0, 0xAF], [0xC1, 0xBF], [0xC3], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80],
                                  [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xE2, 0x82], [0xC3, 0x41]]
        for bytes in invalid {
            for pad in 0..<9 {
                let prefix = Array(String(repeating: "x", count: pad).utf8)
                XCTAssertFalse(valid(prefix + bytes), "\(pad): \(bytes)")
                XCTAssertFalse(valid(prefix + bytes + Array("and some text after".utf8)), "\(pad): \(bytes)")
            }
        }
    }
}
