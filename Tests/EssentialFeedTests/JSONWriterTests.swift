import Foundation
import XCTest
import EssentialFeed

final class JSONWriterTests: XCTestCase {

    // MARK: Strings

    func test_string_escapesQuoteBackslashAndControlCharacters() {
        let text = written { $0.string("a\"b\\c\n\r\t\u{08}\u{0C}\u{1F}\u{00}\u{01}d") }
        XCTAssertEqual(text, #""a\"b\\c\n\r\t\b\f\u001f\u0000\u0001d""#)
    }

    func test_string_writesEveryControlCharacterEscaped() throws {
        let controls = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init(_:))))
        let text = written { $0.string(controls) }
        XCTAssertFalse(text.utf8.contains { $0 < 0x20 }, "no raw control character is written")
        XCTAssertTrue(text.contains(#"\u001f"#))
        XCTAssertTrue(text.contains(#"\u000b"#))
        XCTAssertEqual(try parseJSON(text).string(0), controls, "the escapes decode back to the same text")
    }

    func test_string_writesEverythingElseAsUTF8() {
        XCTAssertEqual(written { $0.string("é/€😀\u{7F}\u{2028}") }, "\"é/€😀\u{7F}\u{2028}\"")
        XCTAssertEqual(written { $0.string("") }, #""""#)
    }

    // MARK: Structure

    func test_writer_separatesMembersAndElementsWithCommas() {
        let text = written { w in
            w.beginObject()
            w.member("s", "x")
            w.member("i", -12)
            w.key("b"); w.bool(true)
            w.key("f"); w.bool(false)
            w.key("n"); w.null()
            w.key("a")
            w.beginArray(); w.int(1); w.string("two"); w.null(); w.endArray()
            w.endObject()
        }
        XCTAssertEqual(text, #"{"s":"x","i":-12,"b":true,"f":false,"n":null,"a":[1,"two",null]}"#)
    }

    func test_writer_writesNestedEmptyContainers() {
        let text = written { w in
            w.beginObject()
            w.key("a")
            w.beginArray()
            w.beginArray(); w.endArray()
            w.beginObject(); w.endObject()
            w.beginArray(); w.beginArray(); w.endArray(); w.endArray()
            w.endArray()
            w.key("o"); w.beginObject(); w.endObject()
            w.endObject()
        }
        XCTAssertEqual(text, #"{"a":[[],{},[[]]],"o":{}}"#)
    }

    func test_member_omitsAbsentOptionalString() {
        let absent: String? = nil
        let text = written { w in
            w.beginObject()
            w.member("a", absent)
            w.member("b", Optional("x"))
            w.member("c", absent)
            w.endObject()
        }
        XCTAssertEqual(text, #"{"b":"x"}"#)
    }

    func test_key_escapesLikeAString() {
        XCTAssertEqual(written { w in w.beginObject(); w.member("a\"\n", 1); w.endObject() }, #"{"a\"\n":1}"#)
    }

    func test_int_writesExtremes() {
        XCTAssertEqual(written { w in w.beginArray(); w.int(Int.min); w.int(0); w.int(Int.max); w.endArray() },
                       "[-9223372036854775808,0,9223372036854775807]")
    }

    func test_rawValue_writesBytesAsOneValue() {
        let text = written { w in
            w.beginArray(); w.int(1); w.rawValue(Array(#"{"x":[]}"#.utf8)); w.rawValue("2".utf8); w.endArray()
        }
        XCTAssertEqual(text, #"[1,{"x":[]},2]"#)
    }

    func test_reset_emptiesTheBufferAndTheContainerState() {
        var writer = JSONWriter()
        writer.beginArray(); writer.int(1)
        writer.reset()
        XCTAssertTrue(writer.bytes.isEmpty)
        writer.beginObject(); writer.member("a", 1); writer.endObject()
        XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self), #"{"a":1}"#)
    }

    func test_writer_writesRecordsBackToBackAfterReset() {
        var writer = JSONWriter()
        var lines: [String] = []
        for k in 0..<3 {
            writer.reset()
            writer.beginObject(); writer.member("k", k); writer.endObject()
            lines.append(String(decoding: writer.bytes, as: UTF8.self))
        }
        XCTAssertEqual(lines, [#"{"k":0}"#, #"{"k":1}"#, #"{"k":2}"#])
    }

    // MARK: Copying from a document

    func test_value_reEmitsADocumentCompactly() throws {
        let document = try parseJSON(#"""
         { "a" : "x\u00e9\n\/" ,
           "n" : 1.50E+02 , "big" : 1234567890123456789012345,
           "b" : [ true , false , null , { } , [ ] , -0 ] }
        """#)
        XCTAssertEqual(compact(document),
                       #"{"a":"x\u00e9\n\/","n":1.50E+02,"big":1234567890123456789012345,"b":[true,false,null,{},[],-0]}"#)
    }

    func test_value_keepsRawUTF8AndEscapesAsWritten() throws {
        let document = try parseJSON("[\"é😀\",\"\\ud83d\\ude00\"]")
        XCTAssertEqual(compact(document), "[\"é😀\",\"\\ud83d\\ude00\"]")
    }

    func test_value_reEmitsNestedEmptyContainers() throws {
        let text = #"[[],[[]],{},{"a":{}},[{}],{"b":[[],{}]},[[[]]]]"#
        XCTAssertEqual(compact(try parseJSON(text)), text)
        XCTAssertEqual(compact(try parseJSON("[ [ ] , { } ]")), "[[],{}]")
    }

    func test_value_copiesASubtree() throws {
        let document = try parseJSON(#"{"a":1,"b":{"c":[1, {"d" : null}],"e":"f"},"g":2}"#)
        let b = try XCTUnwrap(document.member(0, "b"))
        XCTAssertEqual(compact(document, b), #"{"c":[1,{"d":null}],"e":"f"}"#)
        let c = try XCTUnwrap(document.member(b, "c"))
        XCTAssertEqual(compact(document, c), #"[1,{"d":null}]"#)
        XCTAssertEqual(compact(document, try XCTUnwrap(document.member(0, "g"))), "2")
    }

    func test_value_copiesScalarsAtTheRoot() throws {
        for text in ["1", "-0.5e-3", "\"a\\tb\"", "true", "false", "null"] {
            XCTAssertEqual(compact(try parseJSON(" \(text) ")), text)
        }
    }

    func test_member_copiesAValueFromADocument() throws {
        let document = try parseJSON(#"{"items" : [ 1 ]}"#)
        let text = written { w in
            w.beginObject()
            w.member("status", 200)
            w.member("body", document, 0)
            w.member("after", "x")
            w.endObject()
        }
        XCTAssertEqual(text, #"{"status":200,"body":{"items":[1]},"after":"x"}"#)
    }

    func test_membersOf_copiesEveryMemberExceptExcluded() throws {
        let document = try parseJSON(#"{"a":1, "b" : [ 2 ], "\u0063":{"d":3}, "e":"f"}"#)
        let all = written { w in w.beginObject(); w.members(of: document, 0); w.endObject() }
        XCTAssertEqual(all, #"{"a":1,"b":[2],"\u0063":{"d":3},"e":"f"}"#)

        let some = written { w in w.beginObject(); w.members(of: document, 0, excluding: ["a", "c"]); w.endObject() }
        XCTAssertEqual(some, #"{"b":[2],"e":"f"}"#, "an escaped key is excluded by its decoded name")

        let none = written { w in w.beginObject(); w.members(of: document, 0, excluding: ["a", "b", "c", "e"]); w.endObject() }
        XCTAssertEqual(none, "{}")
    }

    func test_membersOf_mixesWithOtherMembers() throws {
        let document = try parseJSON(#"{"id":"X","created_at":"T","extra":true}"#)
        let text = written { w in
            w.beginObject()
            w.member("first", 1)
            w.members(of: document, 0, excluding: ["created_at"])
            w.member("relative_date", "1 day ago")
            w.endObject()
        }
        XCTAssertEqual(text, #"{"first":1,"id":"X","extra":true,"relative_date":"1 day ago"}"#)

        let leading = written { w in
            w.beginObject()
            w.members(of: document, 0, excluding: ["id", "created_at", "extra"])
            w.member("only", 1)
            w.endObject()
        }
        XCTAssertEqual(leading, #"{"only":1}"#)
    }

    func test_membersOf_keepsDuplicateKeys() throws {
        let document = try parseJSON(#"{"a":1,"a":2}"#)
        XCTAssertEqual(written { w in w.beginObject(); w.members(of: document, 0); w.endObject() }, #"{"a":1,"a":2}"#)
    }

    func test_membersOf_copiesMembersOfANestedObject() throws {
        let document = try parseJSON(#"{"outer":{"x":[1,2],"y":{}},"z":0}"#)
        let outer = try XCTUnwrap(document.member(0, "outer"))
        XCTAssertEqual(written { w in w.beginObject(); w.members(of: document, outer); w.endObject() },
                       #"{"x":[1,2],"y":{}}"#)
    }

    // MARK: Round trip

    static let corpus = [
        "null", "true", "false", "0", "-0", "3.14", "1e999", "-1E-7", "12345678901234567890123456789",
        #""""#, #""plain""#, #""\" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00""#, "\"é€😀\u{7F}\"",
        "[]", "{}", "[[]]", "{\"\":{}}", "[null,true,false,0,\"\",[],{}]",
        #"{"items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","description":"a\nb","location":null,"image":"https://x.com/1"}]}"#,
        #"{"a":{"b":{"c":{"d":[1,[2,[3,[4]]]]}}},"e":[{"f":"g"},{"h":["i",{"j":-1.0e+10}]}]}"#,
        " \n [ 1 , { \"k\" : [ ] } , \"v\" ] \r\n",
        #"{"dup":1,"dup":2,"\u0064up":3}"#,
        String(repeating: "[", count: 100) + "{}" + String(repeating: "]", count: 100),
    ]

    func test_roundTrip_parseWriteParsePreservesTheValue() throws {
        for text in Self.corpus {
            let first = try parseJSON(text)
            let once = compact(first)
            let second = try parseJSON(once)
            XCTAssertTrue(jsonEqual(first, first.root, second, second.root), text)
            XCTAssertEqual(compact(second), once, "writing is idempotent: \(text)")
            XCTAssertFalse(hasWhitespaceOutsideStrings(once), "no whitespace outside strings: \(once)")
        }
    }

    func test_roundTrip_writerStringsParseBackToTheSameText() throws {
        let texts = ["", "a", "\"", "\\", "\\\"", "\u{0}\u{1F}\u{7F}", "line\nbreak\r\n", "é€😀", "\u{10FFFF}", "/"]
        for text in texts {
            let document = try parseJSON(written { $0.string(text) })
            XCTAssertEqual(document.string(0), text)
        }
    }

    func test_roundTrip_compactOutputIsFreeOfWhitespace() throws {
        let document = try parseJSON(" { \"a b\" : [ 1 , 2 ] ,\n\"c\" : \" d \" } ")
        XCTAssertEqual(compact(document), #"{"a b":[1,2],"c":" d "}"#)
    }

    private func hasWhitespaceOutsideStrings(_ text: String) -> Bool {
        var inString = false
        var escaped = false
        for c in text.utf8 {
            if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                return true
            }
        }
        return false
    }
}
