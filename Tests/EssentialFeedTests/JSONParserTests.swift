import Foundation
import XCTest
import EssentialFeed

final class JSONParserTests: XCTestCase {

    // MARK: Scalars

    func test_parse_readsEveryScalarKindAtTopLevel() throws {
        XCTAssertEqual(try parseJSON("null").kind(0), .null)
        XCTAssertEqual(try parseJSON("true").kind(0), .true)
        XCTAssertEqual(try parseJSON("false").kind(0), .false)
        XCTAssertEqual(try parseJSON("42").kind(0), .number)
        XCTAssertEqual(try parseJSON("\"hi\"").kind(0), .string)
        XCTAssertEqual(try parseJSON("\"hi\"").string(0), "hi")
        XCTAssertEqual(try parseJSON("-1.5e3").numberText(0), "-1.5e3")
    }

    func test_parse_scalarsHaveNoChildrenAndOccupyOneNode() throws {
        let document = try parseJSON("\"abc\"")
        XCTAssertEqual(document.count(0), 0)
        XCTAssertEqual(document.next(0), 1)
        XCTAssertEqual(document.range(0), 1..<4, "a string's range excludes its quotes")
        XCTAssertEqual(document.root, 0)
    }

    func test_accessors_returnNilForOtherKinds() throws {
        let document = try parseJSON("[1,\"1\",null]")
        let nodes = Array(document.elements(0))
        XCTAssertNil(document.string(nodes[0]))
        XCTAssertNil(document.numberText(nodes[1]))
        XCTAssertNil(document.int(nodes[1]))
        XCTAssertNil(document.string(nodes[2]))
        XCTAssertNil(document.member(nodes[0], "a"), "member of a non-object is nil")
        XCTAssertNil(document.member(0, "a"), "member of an array is nil")
    }

    // MARK: Containers

    func test_parse_readsNestedContainers() throws {
        let document = try parseJSON(#"{"a":[1,{"b":null},[true,false]],"c":{"d":"e"},"f":2}"#)
        XCTAssertEqual(document.kind(0), .object)
        XCTAssertEqual(document.count(0), 3)

        let a = try XCTUnwrap(document.member(0, "a"))
        XCTAssertEqual(document.kind(a), .array)
        XCTAssertEqual(document.count(a), 3)
        let elements = Array(document.elements(a))
        XCTAssertEqual(elements.map(document.kind), [.number, .object, .array])
        XCTAssertEqual(document.int(elements[0]), 1)
        XCTAssertEqual(document.member(elements[1], "b").map(document.kind), .null)
        XCTAssertEqual(Array(document.elements(elements[2])).map(document.kind), [.true, .false])

        let c = try XCTUnwrap(document.member(0, "c"))
        XCTAssertEqual(document.member(c, "d").flatMap(document.string), "e")
        XCTAssertEqual(document.member(0, "f").flatMap(document.int), 2)
        XCTAssertNil(document.member(0, "d"), "member looks only at the object's own keys")
        XCTAssertNil(document.member(0, "b"))

        XCTAssertEqual(Array(document.keys(0)).compactMap(document.string), ["a", "c", "f"])
        XCTAssertEqual(document.next(0), 16, "the root's subtree holds every node")
    }

    func test_next_skipsAWholeSubtree() throws {
        let document = try parseJSON(#"[[1,[2,3]],4]"#)
        let first = 1
        XCTAssertEqual(document.kind(first), .array)
        let second = document.next(first)
        XCTAssertEqual(document.int(second), 4)
        XCTAssertEqual(document.next(0), second + 1)
    }

    func test_parse_readsEmptyObjectAndArray() throws {
        for text in ["{}", "[]", "{ }", "[\n]"] {
            let document = try parseJSON(text)
            XCTAssertEqual(document.count(0), 0, text)
            XCTAssertEqual(document.next(0), 1, text)
        }
        XCTAssertTrue(Array(try parseJSON("[]").elements(0)).isEmpty)
        XCTAssertTrue(Array(try parseJSON("{}").keys(0)).isEmpty)
        XCTAssertNil(try parseJSON("{}").member(0, ""))
    }

    func test_parse_readsNestedEmptyContainers() throws {
        let document = try parseJSON(#"[[],{},[[]],{"a":{}}]"#)
        let elements = Array(document.elements(0))
        XCTAssertEqual(elements.count, 4)
        XCTAssertEqual(elements.map(document.count), [0, 0, 1, 1])
    }

    func test_parse_acceptsWhitespaceEverywhere() throws {
        let document = try parseJSON(" \t\r\n{ \"a\" \n: \t[ 1 ,\r\n2 , { } ] , \"b\"\t:\"c\" } \n\t ")
        XCTAssertEqual(compact(document), #"{"a":[1,2,{}],"b":"c"}"#)
    }

    func test_parse_rejectsNonJSONWhitespace() {
        for text in ["\u{0C}1", "1\u{0B}", "[\u{A0}1]", "\u{FEFF}{}"] {
            syntaxError(text)
        }
    }

    func test_parse_rejectsBrokenStructure() {
        let cases = [
            "[1,]", "[,1]", "[1 2]", "[", "]", "[1", "[1,", "{", "}", "{,}",
            #"{"a":1,}"#, #"{"a" 1}"#, #"{"a":}"#, #"{"a"}"#, #"{1:2}"#, #"{a:1}"#, #"{'a':1}"#,
            #"{"a":1 "b":2}"#, #"{"a":1"#, #"{"a""#, "[}", "{]", #"["a":1]"#,
        ]
        for text in cases { syntaxError(text) }
    }

    // MARK: Strings and escapes

    func test_parse_decodesEveryEscape() throws {
        let document = try parseJSON(#""\" \\ \/ \b \f \n \r \t \u00e9""#)
        XCTAssertEqual(document.string(0), "\" \\ / \u{08} \u{0C} \n \r \t é")
        XCTAssertTrue(document.isEscaped(0))
    }

    func test_parse_decodesUnicodeEscapesInEitherCase() throws {
        XCTAssertEqual(try parseJSON(#""\u00E9\u00e9\u0041\u20AC""#).string(0), "ééA€")
        XCTAssertEqual(try parseJSON(#""\u0000""#).string(0), "\u{0}")
        XCTAssertEqual(try parseJSON(#""\uFFFF""#).string(0)?.unicodeScalars.first?.value, 0xFFFF)
    }

    func test_parse_marksOnlyStringsWithEscapesAsEscaped() throws {
        XCTAssertFalse(try parseJSON(#""plain é""#).isEscaped(0))
        XCTAssertTrue(try parseJSON(#""a\nb""#).isEscaped(0))
    }

    func test_parse_decodesSurrogatePairToOneScalar() throws {
        XCTAssertEqual(try parseJSON(#""\ud83d\ude00""#).string(0), "😀")
        XCTAssertEqual(try parseJSON(#""\uD83D\uDE00""#).string(0), "😀")
        XCTAssertEqual(try parseJSON(#""a\ud83d\ude00b\uDBFF\uDFFF""#).string(0), "a😀b\u{10FFFF}")
        XCTAssertEqual(try parseJSON(#""\ud800\udc00""#).string(0), "\u{10000}")
    }

    func test_parse_rejectsLoneHighSurrogate() {
        XCTAssertEqual(syntaxError(#""\ud83d""#)?.offset, 1)
        XCTAssertEqual(syntaxError(#""\ud83dx""#)?.offset, 1)
        XCTAssertEqual(syntaxError(#""\ud83d\n""#)?.offset, 1)
        XCTAssertTrue(syntaxError(#""\uD800""#)?.reason.contains("lone high surrogate") ?? false)
    }

    func test_parse_rejectsHighSurrogateFollowedByNonLowSurrogate() {
        XCTAssertEqual(syntaxError(#""\ud83d\u0041""#)?.offset, 1)
        XCTAssertEqual(syntaxError(#""\ud83d\ud83d""#)?.offset, 1)
        XCTAssertEqual(syntaxError(#""ab\ud83d\uE000""#)?.offset, 3)
    }

    func test_parse_rejectsLoneLowSurrogate() {
        XCTAssertEqual(syntaxError(#""\ude00""#)?.offset, 1)
        XCTAssertEqual(syntaxError(#""x\uDFFF\ud83d""#)?.offset, 2)
        XCTAssertTrue(syntaxError(#""\udc00""#)?.reason.contains("lone low surrogate") ?? false)
    }

    func test_parse_rejectsInvalidEscape() {
        XCTAssertEqual(syntaxError(#""\x""#)?.offset, 2)
        for text in [#""\U0041""#, #""\a""#, #""\'""#, #""\0""#, #""\""#, #""\"#] { syntaxError(text) }
    }

    func test_parse_rejectsInvalidUnicodeEscape() {
        XCTAssertEqual(syntaxError(#""\u00g0""#)?.offset, 5)
        XCTAssertEqual(syntaxError(#""\u00""#)?.offset, 5)
        syntaxError(#""\u"#)
        syntaxError(#""\u12""#)
    }

    func test_parse_invalidEscapeMessageIsOneLine() {
        for bytes: [UInt8] in [[0x22, 0x5C, 0x0A, 0x22], [0x22, 0x5C, 0xC3, 0xA9, 0x22], [0x22, 0x5C, 0x00, 0x22]] {
            let error = syntaxError(bytes: bytes)
            XCTAssertEqual(error?.offset, 2)
            XCTAssertFalse(error?.description.contains { $0.isNewline || $0 == "\u{0}" } ?? true,
                           "a diagnostic must stay on one line: \(error?.description.debugDescription ?? "")")
        }
    }

    func test_parse_rejectsRawControlCharacterInString() {
        for c: UInt8 in [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F] {
            XCTAssertEqual(syntaxError(bytes: [0x22, 0x61, c, 0x62, 0x22])?.offset, 2, "byte \(c)")
        }
        XCTAssertTrue(syntaxError(bytes: [0x22, 0x0A, 0x22])?.reason.contains("control character") ?? false)
    }

    func test_parse_acceptsDeleteCharacterInString() throws {
        XCTAssertEqual(try parseJSON(bytes: [0x22, 0x7F, 0x22]).string(0), "\u{7F}")
    }

    func test_parse_rejectsUnterminatedString() {
        let error = syntaxError(#""abc"#)
        XCTAssertEqual(error?.offset, 4)
        XCTAssertTrue(error?.reason.contains("unterminated string") ?? false)
        XCTAssertEqual(syntaxError(#"{"a":"b}"#)?.offset, 8)
    }

    // MARK: UTF-8

    func test_parse_acceptsValidMultibyteUTF8() throws {
        let cases: [([UInt8], String)] = [
            ([0xC3, 0xA9], "é"),
            ([0xC2, 0x80], "\u{80}"),
            ([0xDF, 0xBF], "\u{7FF}"),
            ([0xE0, 0xA0, 0x80], "\u{800}"),
            ([0xE2, 0x82, 0xAC], "€"),
            ([0xED, 0x9F, 0xBF], "\u{D7FF}"),
            ([0xEE, 0x80, 0x80], "\u{E000}"),
            ([0xEF, 0xBF, 0xBF], "\u{FFFF}"),
            ([0xF0, 0x90, 0x80, 0x80], "\u{10000}"),
            ([0xF0, 0x9F, 0x98, 0x80], "😀"),
            ([0xF4, 0x8F, 0xBF, 0xBF], "\u{10FFFF}"),
        ]
        for (sequence, expected) in cases {
            let document = try parseJSON(bytes: [0x22, 0x61] + sequence + [0x62, 0x22])
            XCTAssertEqual(document.string(0), "a\(expected)b", "\(sequence)")
            XCTAssertFalse(document.isEscaped(0))
        }
    }

    func test_parse_rejectsOverlongUTF8() {
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xC0, 0x80, 0x22])?.offset, 1)
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xC1, 0xBF, 0x22])?.offset, 1)
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xE0, 0x80, 0x80, 0x22])?.offset, 1)
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xE0, 0x9F, 0xBF, 0x22])?.offset, 1)
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xF0, 0x80, 0x80, 0x80, 0x22])?.offset, 1)
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xF0, 0x8F, 0xBF, 0xBF, 0x22])?.offset, 1)
    }

    func test_parse_rejectsUTF8EncodedSurrogates() {
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22])?.offset, 1)
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xED, 0xBF, 0xBF, 0x22])?.offset, 1)
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80, 0x22])?.offset, 1,
                       "CESU-8 surrogate pairs are not UTF-8")
    }

    func test_parse_rejectsUTF8BeyondU10FFFF() {
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22])?.offset, 1)
        for lead: UInt8 in [0xF5, 0xF7, 0xF8, 0xFB, 0xFC, 0xFE, 0xFF] {
            XCTAssertEqual(syntaxError(bytes: [0x22, 0x61, lead, 0x80, 0x80, 0x80, 0x22])?.offset, 2, "lead \(lead)")
        }
    }

    func test_parse_rejectsTruncatedUTF8Sequence() {
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xC3, 0x22])?.offset, 1)
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xE2, 0x82, 0x22])?.offset, 1)
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xF0, 0x9F, 0x98, 0x22])?.offset, 1)
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xE2, 0x82])?.offset, 1)
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xC3, 0x41, 0x22])?.offset, 1)
    }

    func test_parse_rejectsStrayContinuationByte() {
        XCTAssertEqual(syntaxError(bytes: [0x22, 0x80, 0x22])?.offset, 1)
        XCTAssertEqual(syntaxError(bytes: [0x22, 0x61, 0xBF, 0x22])?.offset, 2)
        XCTAssertEqual(syntaxError(bytes: [0x22, 0xC3, 0xA9, 0xA9, 0x22])?.offset, 3)
    }

    func test_parse_rejectsNonASCIIOutsideStrings() {
        let error = syntaxError(bytes: [0xC3, 0xA9])
        XCTAssertEqual(error?.offset, 0)
        XCTAssertEqual(error?.reason, "unexpected byte 0xC3")
    }

    // MARK: Numbers

    func test_parse_acceptsNumbersOfTheGrammar() throws {
        let cases = ["0", "-0", "7", "-7", "0.5", "-0.5", "10.25", "1e2", "1E2", "1e+2", "1E+2", "1e-2",
                     "1.5e10", "-0.0e-0", "0e0", "123456789", "1e999", "-1e-999"]
        for text in cases {
            let document = try parseJSON(text)
            XCTAssertEqual(document.kind(0), .number, text)
            XCTAssertEqual(document.numberText(0), text, "number text is kept exactly")
        }
    }

    func test_parse_keepsHugeNumbersAsText() throws {
        let document = try parseJSON("[1e999,1234567890123456789012345,-0.10000000000000000000001]")
        XCTAssertEqual(Array(document.elements(0)).compactMap(document.numberText),
                       ["1e999", "1234567890123456789012345", "-0.10000000000000000000001"])
        XCTAssertEqual(compact(document), "[1e999,1234567890123456789012345,-0.10000000000000000000001]")
    }

    func test_parse_rejectsNumbersOutsideTheGrammar() {
        let cases: [(String, Int)] = [
            ("01", 1), ("-01", 2), ("00", 1), ("1.", 2), (".5", 0), ("-", 1), ("+1", 0), ("1e", 2),
            ("1e+", 3), ("1E-", 3), ("1.e2", 2), ("-a", 1), ("--1", 1), ("0x10", 1), ("1_000", 1),
            ("Infinity", 0), ("-Infinity", 1), ("NaN", 0), ("[1.]", 3), ("[-]", 2), ("1.5.", 3),
        ]
        for (text, offset) in cases {
            XCTAssertEqual(syntaxError(text)?.offset, offset, text)
        }
    }

    func test_int_readsIntegersThatFit() throws {
        let cases: [(String, Int)] = [
            ("0", 0), ("-0", 0), ("42", 42), ("-42", -42),
            ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min),
        ]
        for (text, value) in cases {
            XCTAssertEqual(try parseJSON(text).int(0), value, text)
        }
    }

    func test_int_returnsNilOnOverflow() throws {
        for text in ["9223372036854775808", "-9223372036854775809", "99999999999999999999",
                     "1234567890123456789012345"] {
            XCTAssertNil(try parseJSON(text).int(0), text)
        }
    }

    func test_int_returnsNilForFractionsAndExponents() throws {
        for text in ["1.0", "1e2", "1E0", "-0.0", "200.5"] {
            XCTAssertNil(try parseJSON(text).int(0), text)
        }
    }

    // MARK: Literals

    func test_parse_readsLiteralsInContainers() throws {
        let document = try parseJSON("[true,false,null]")
        XCTAssertEqual(Array(document.elements(0)).map(document.kind), [.true, .false, .null])
    }

    func test_parse_rejectsBadLiterals() {
        let cases: [(String, Int)] = [
            ("tru", 0), ("nul", 0), ("fals", 0), ("True", 0), ("NULL", 0), ("nil", 0), ("undefined", 0),
            ("[trUe]", 1), ("nulll", 4), ("falsey", 5), ("true1", 4), (#"{"a":tru}"#, 5),
        ]
        for (text, offset) in cases {
            XCTAssertEqual(syntaxError(text)?.offset, offset, text)
        }
    }

    // MARK: Whole text

    func test_parse_rejectsTrailingGarbage() {
        let cases: [(String, Int)] = [
            ("{} x", 3), ("[]]", 2), ("1 2", 2), ("{}{}", 2), (#""a""b""#, 3), ("null,", 4), ("{}\n{}", 3),
        ]
        for (text, offset) in cases {
            let error = syntaxError(text)
            XCTAssertEqual(error?.offset, offset, text)
            XCTAssertEqual(error?.reason, "unexpected data after the value", text)
        }
    }

    func test_parse_acceptsTrailingWhitespace() throws {
        XCTAssertEqual(try parseJSON("{} \n\r\t").kind(0), .object)
    }

    func test_parse_rejectsEmptyInput() {
        let empty = syntaxError("")
        XCTAssertEqual(empty?.offset, 0)
        XCTAssertEqual(empty?.reason, "unexpected end: expected a value")
        XCTAssertEqual(syntaxError(" \n\t ")?.offset, 4)
        XCTAssertEqual(syntaxError(bytes: [])?.offset, 0)
    }

    func test_parse_reportsUnexpectedEndInsideContainers() {
        XCTAssertEqual(syntaxError("[1,2")?.reason, "unexpected end: unterminated array")
        XCTAssertEqual(syntaxError(#"{"a":1"#)?.reason, "unexpected end: unterminated object")
        XCTAssertEqual(syntaxError("[1,2")?.offset, 4)
    }

    func test_parse_reportsExactErrorOffsets() {
        XCTAssertEqual(syntaxError("[1,2,x]")?.offset, 5)
        XCTAssertEqual(syntaxError("[1,2,x]")?.reason, "unexpected character 'x'")
        XCTAssertEqual(syntaxError(#"{"a" 1}"#)?.offset, 5)
        XCTAssertEqual(syntaxError(#"{"a" 1}"#)?.reason, "expected ':' after key")
        XCTAssertEqual(syntaxError(#"{"a":1 "b":2}"#)?.offset, 7)
        XCTAssertEqual(syntaxError(#"{"a":1,2}"#)?.offset, 7)
        XCTAssertEqual(syntaxError(#"{"a":1,2}"#)?.reason, "expected a string key")
        XCTAssertEqual(syntaxError("[1 2]")?.reason, "expected ',' or ']' in array")
        XCTAssertEqual(syntaxError("\n\n  @")?.offset, 4)
        XCTAssertEqual(syntaxError(bytes: [0x5B, 0x01, 0x5D])?.reason, "unexpected byte 0x01")
    }

    func test_syntaxError_describesOneBasedByte() {
        XCTAssertEqual(syntaxError("[1,2,x]")?.description, "invalid JSON at byte 6: unexpected character 'x'")
        XCTAssertEqual(JSONSyntaxError(offset: 0, reason: "r"), JSONSyntaxError(offset: 0, reason: "r"))
    }

    // MARK: Depth

    func test_parse_acceptsNestingAtTheDepthLimit() throws {
        let depth = JSONParser.defaultMaxDepth
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let document = try parseJSON(arrays)
        XCTAssertEqual(document.next(0), depth)
        XCTAssertEqual(compact(document), arrays)

        var objects = ""
        for _ in 0..<depth { objects += #"{"a":"# }
        objects += "1" + String(repeating: "}", count: depth)
        XCTAssertEqual(compact(try parseJSON(objects)), objects)
    }

    func test_parse_rejectsNestingOnePastTheDepthLimit() {
        let depth = JSONParser.defaultMaxDepth + 1
        let error = syntaxError(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        XCTAssertEqual(error?.offset, depth - 1, "the bracket that goes one level too deep")
        XCTAssertEqual(error?.reason, "nesting deeper than 512 levels")

        var mixed = ""
        for k in 0..<depth { mixed += k % 2 == 0 ? "[" : #"{"k":"# }
        syntaxError(mixed + "0" + String(String(mixed.reversed()).compactMap { $0 == "[" ? "]" : ($0 == "{" ? "}" : nil) }))
    }

    func test_parse_honoursACustomDepthLimit() throws {
        XCTAssertNoThrow(try JSONParser.parse("[[[1]]]", maxDepth: 3))
        XCTAssertEqual(syntaxError("[[[[1]]]]", maxDepth: 3)?.offset, 3)
        XCTAssertNoThrow(try JSONParser.parse("1", maxDepth: 0))
        XCTAssertEqual(syntaxError("[]", maxDepth: 0)?.offset, 0)
    }

    func test_parse_doesNotCrashOnAHundredThousandLevels() {
        let depth = 100_000
        XCTAssertNotNil(syntaxError(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)))
        XCTAssertNotNil(syntaxError(String(repeating: "[", count: depth)))
        XCTAssertNotNil(syntaxError(String(repeating: #"{"a":"#, count: depth)))
        let deep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        XCTAssertNoThrow(try JSONParser.parse(deep, maxDepth: depth), "the parser is iterative")
    }

    // MARK: Keys

    func test_member_lastDuplicateKeyWins() throws {
        let document = try parseJSON(#"{"a":1,"b":2,"a":3}"#)
        XCTAssertEqual(document.member(0, "a").flatMap(document.int), 3)
        XCTAssertEqual(document.count(0), 3)
        XCTAssertEqual(Array(document.keys(0)).compactMap(document.string), ["a", "b", "a"])
    }

    func test_member_matchesEscapedKeysByTheirDecodedText() throws {
        let document = try parseJSON(#"{"\u0061":1,"b\"c":2,"é":3,"\u00e9x":4}"#)
        XCTAssertEqual(document.member(0, "a").flatMap(document.int), 1)
        XCTAssertEqual(document.member(0, "b\"c").flatMap(document.int), 2)
        XCTAssertEqual(document.member(0, "é").flatMap(document.int), 3)
        XCTAssertEqual(document.member(0, "éx").flatMap(document.int), 4)
        XCTAssertNil(document.member(0, "\\u0061"))
        XCTAssertNil(document.member(0, "A"), "keys are case-sensitive")
    }

    func test_member_doesNotMatchValuesOrNestedKeys() throws {
        let document = try parseJSON(#"{"x":"a","y":{"a":1}}"#)
        XCTAssertNil(document.member(0, "a"))
    }

    func test_keys_valuesFollowTheirKeys() throws {
        let document = try parseJSON(#"{"a":[1,2],"b":{"c":3},"d":4}"#)
        let pairs = Array(document.keys(0)).map { (document.string($0) ?? "?", document.kind($0 + 1)) }
        XCTAssertEqual(pairs.map(\.0), ["a", "b", "d"])
        XCTAssertEqual(pairs.map(\.1), [.array, .object, .number])
    }
}
