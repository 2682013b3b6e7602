import EssentialFeedPresentation
import XCTest

/// Record text in HTML and XML: never markup, never a character XML forbids.
final class MarkupTextTests: XCTestCase {
    func test_keepsTextWithoutMarkupCharactersAsItIs() {
        let text = "Ünïcödé, emoji 👍🏽, Ελληνικά, עברית\nand a second line"
        XCTAssertEqual(MarkupText.html(text), text)
        XCTAssertEqual(MarkupText.xml(text), text)
    }

    func test_escapesEveryCharacterThatCouldEndTextOrAnAttribute() {
        let text = #"</p><script>alert("x")</script>' & &amp;"#
        let escaped = "&lt;/p&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; &amp; &amp;amp;"
        XCTAssertEqual(MarkupText.html(text), escaped)
        XCTAssertEqual(MarkupText.xml(text), escaped)
    }

    func test_controls_showAsReplacementInHTML_andAreDroppedFromXML() {
        for value in Array(0x00...0x1F) + Array(0x7F...0x9F) + [0xFFFE, 0xFFFF] where ![0x09, 0x0A, 0x0D].contains(value) {
            let scalar = Unicode.Scalar(UInt32(value))!
            XCTAssertEqual(MarkupText.html("a\(scalar)b"), "a\u{FFFD}b", "U+\(String(value, radix: 16))")
            XCTAssertEqual(MarkupText.xml("a\(scalar)b"), "ab", "U+\(String(value, radix: 16))")
        }
    }

    func test_lineBreaks_areOneLineFeedEach() {
        XCTAssertEqual(MarkupText.html("1\r\n2\r3\n4\t5"), "1\n2\n3\n4\t5")
        XCTAssertEqual(MarkupText.xml("1\r\n2\r3\n4"), "1\n2\n3\n4")
    }
}
