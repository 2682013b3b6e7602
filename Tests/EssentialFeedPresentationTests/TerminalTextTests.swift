import EssentialFeedPresentation
import XCTest

final class TerminalTextTests: XCTestCase {
    func test_visible_keepsTextWithoutControlsAsItIs() {
        let text = "Ünïcödé, emoji 👍🏽, Ελληνικά, עברית and a plain line"
        XCTAssertEqual(TerminalText.visible(text, multiline: false), text)
        XCTAssertEqual(TerminalText.visible(text, multiline: true), text)
    }

    func test_visible_replacesC0ExceptLineBreaksAndTab_DEL_AndC1() {
        for value in Array(0x00...0x1F) + Array(0x7F...0x9F) where ![0x09, 0x0A, 0x0D, 0x85].contains(value) {
            let scalar = Unicode.Scalar(UInt32(value))!
            XCTAssertEqual(TerminalText.visible("a\(scalar)b", multiline: true), "a\u{FFFD}b", "U+\(String(value, radix: 16))")
        }
    }

    func test_visible_replacesBidirectionalEmbeddingsOverridesAndIsolates() {
        for value in Array(0x202A...0x202E) + Array(0x2066...0x2069) {
            let scalar = Unicode.Scalar(UInt32(value))!
            XCTAssertEqual(TerminalText.visible("a\(scalar)b", multiline: false), "a\u{FFFD}b")
        }
    }

    func test_visible_keepsLineBreaksOnlyWhenMultiline() {
        let text = "1\n2\r\n3\r4\u{85}5\u{2028}6\u{2029}7\t8"
        XCTAssertEqual(TerminalText.visible(text, multiline: true), "1\n2\n3\n4\n5\n6\n7 8")
        XCTAssertEqual(TerminalText.visible(text, multiline: false), "1 2 3 4 5 6 7 8")
    }

    func test_visible_replacesAWholeEscapeSequenceIntroducerButKeepsItsPrintableRest() {
        XCTAssertEqual(TerminalText.visible("\u{1B}]0;title\u{07}", multiline: false), "\u{FFFD}]0;title\u{FFFD}")
    }

    /// The columns a terminal gives a character, as glibc's wcwidth and
    /// terminals count them (East Asian Width W and F, emoji presentation;
    /// a cluster's scalars added up, found by the hunt on Hindi and Tamil).
    func test_columns_countsWideCharactersTwiceAndMarksNever() {
        let expected: [(Character, Int)] = [
            ("a", 1), ("é", 1), ("e\u{301}", 1), ("ß", 1), ("Ж", 1), ("א", 1), ("\u{AD}", 1),
            ("日", 2), ("の", 2), ("ア", 2), ("한", 2), ("\u{3000}", 2), ("ｗ", 2), ("￥", 2), ("𠀋", 2),
            ("👍", 2), ("👍🏽", 2), ("🇫🇷", 2), ("\u{1F1EB}", 1), ("👨‍👩‍👧", 2), ("❤\u{FE0F}", 2), ("1\u{FE0F}\u{20E3}", 2),
            ("❤", 1), ("ｱ", 1), ("\u{301}", 0), ("\u{200B}", 0), ("\u{200D}", 0),
            // A vowel sign that spaces takes its column; a conjunct, each letter's.
            ("कि", 2), ("か\u{3099}", 2), ("䷀", 2), ("\u{600}", 1), ("கொ", 2), ("ท่", 1), ("\u{1112}\u{1161}\u{11AB}", 2),
        ]
        for (character, columns) in expected {
            XCTAssertEqual(TerminalText.columns(character), columns, "\(character.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        XCTAssertEqual(TerminalText.columns("日本 ok"), 7)
        XCTAssertEqual(TerminalText.columns("क्ष"), 2)
    }
}
