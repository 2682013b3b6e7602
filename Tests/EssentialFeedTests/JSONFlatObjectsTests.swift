@testable import EssentialFeed
import XCTest

/// The stream reader's quick way through an array of flat objects: it
/// validates by its own rules, moves its own cursor, and stops before
/// anything it does not take, so the general methods go on from there and
/// report what is wrong exactly.
final class JSONFlatObjectsTests: XCTestCase {
    /// Writes down what it is told; takes every object unless told not to.
    private struct Recorder: JSONFlatObjectVisitor {
        var events: [String] = []
        var refuse: Set<String> = []
        var isFull = false
        private var current = ""

        init(refuse: Set<String> = [], isFull: Bool = false) {
            self.refuse = refuse
            self.isFull = isFull
        }

        mutating func begin() { current = "" }

        mutating func member(_ name: JSONName, _ value: JSONScalar, nested: Bool) {
            let text = value.kind == .string ? "\"" + String(decoding: value.bytes, as: UTF8.self) + "\"" : "\(value.kind)"
            current += (nested ? "." : " ") + String(decoding: name.bytes, as: UTF8.self) + "=" + text + (value.escaped ? "(escaped)" : "")
        }

        mutating func enterObject(_ name: JSONName) -> Bool {
            current += " " + String(decoding: name.bytes, as: UTF8.self) + ":{}"
            return true
        }

        mutating func end() -> Bool {
            guard !refuse.contains(current) else { return false }
            events.append(current)
            return true
        }
    }

    /// Opens the array of the one-line document `json`, reads flat objects,
    /// then every element left the general way; returns what was read
    /// quickly, how many elements were read the general way, and any error.
    private func read(_ json: String, chunk: Int = 1 << 16, maxDepth: Int = 64, multiline: Bool = false,
                      _ recorder: inout Recorder) -> (quick: Int, general: Int, error: String?) {
        var reader = JSONStreamReader(source: ArrayByteSource(Array((json + "\n").utf8), chunkSize: chunk), chunkSize: chunk, maxDepth: maxDepth)
        reader.multiline = multiline
        var quick = 0, general = 0
        do throws(ErrorRecord) {
            _ = try reader.startLine()
            try reader.beginArray()
            while true {
                quick += try reader.readFlatObjects(minimum: 1 << 14, &recorder)
                guard try reader.nextElement() else { break }
                general += 1
                try reader.skipValue()
            }
            try reader.finishLine()
            return (quick, general, nil)
        } catch {
            return (quick, general, error.message)
        }
    }

    func test_readsFlatObjectsWithTheirMembersLocated() {
        var r = Recorder()
        let result = read(#"[{"a":"x","b":1,"c":null,"d":true}, {} ,{"e":"\n\u00e9","f":-1.5e3,"g":false}]"#, &r)
        XCTAssertEqual(result.quick, 3)
        XCTAssertEqual(result.general, 0)
        XCTAssertNil(result.error)
        XCTAssertEqual(r.events, [#" a="x" b=number c=null d=bool"#, "", #" e="\n\u00e9"(escaped) f=number g=bool"#])
    }

    func test_stopsBeforeWhatItDoesNotTake_andTheGeneralMethodsGoOn() {
        for (json, general) in [
            (#"[{"a":1},{"b":[1]},{"c":2}]"#, 1),       // an array value
            (#"[{"a":1},{"\u0062":1},{"c":2}]"#, 1),    // an escaped name
            (#"[{"a":1},2,{"c":2}]"#, 1),               // not an object
            (#"[{"a":{"b":{"c":1}}},{"c":2}]"#, 1),     // two levels down
        ] {
            var r = Recorder()
            let result = read(json, &r)
            XCTAssertNil(result.error, json)
            XCTAssertEqual(result.general, general, json)
            XCTAssertEqual(r.events.last, " c=number", json)
        }
    }

    func test_invalidJSONIsLeftToTheGeneralMethods_whichReportItExactly() {
        for json in [
            #"[{"a":1},{"b":01}]"#,
            #"[{"a":1},{"b":"\x"}]"#,
            #"[{"a":1},{"b":tru}]"#,
            #"[{"a":1},{"b":1,}]"#,
            #"[{"a":1} {"b":1}]"#,
            "[{\"a\":1},{\"b\":\"\u{1}\"}]",
        ] {
            var r = Recorder()
            let result = read(json, &r)
            var never = Recorder(isFull: true)
            let general = read(json, &never)
            XCTAssertEqual(result.quick, 1, json)
            XCTAssertEqual(r.events, [" a=number"], json)
            XCTAssertNotNil(general.error, json)
            XCTAssertEqual(result.error, general.error, json)
        }
    }

    func test_anObjectTheVisitorRefusesEndsTheRead() {
        var r = Recorder(refuse: [" a=number"])
        let result = read(#"[{"b":1},{"a":2},{"b":3}]"#, &r)
        XCTAssertEqual(result.quick, 2)
        XCTAssertEqual(result.general, 1)
        XCTAssertEqual(r.events, [" b=number", " b=number"])
    }

    func test_aFullVisitorReadsNothing() {
        var r = Recorder(isFull: true)
        XCTAssertEqual(read(#"[{"b":1}]"#, &r).quick, 0)
    }

    func test_nestedObjectsOnlyWithinTheNestingLimit() {
        var r = Recorder()
        XCTAssertEqual(read(#"[{"a":{"b":"c"}}]"#, maxDepth: 3, &r).quick, 1)
        XCTAssertEqual(r.events, [#" a:{}.b="c""#])

        var limited = Recorder()
        let result = read(#"[{"x":1},{"a":{"b":"c"}}]"#, maxDepth: 2, &limited)
        XCTAssertEqual(result.quick, 1)
        XCTAssertTrue(result.error?.contains("nest") == true, result.error ?? "no error")
    }

    func test_newlinesAreBlanksOnlyInAWholeDocument() {
        var line = Recorder()
        XCTAssertEqual(read("[{\"a\":1},{\n\"b\":1}]", multiline: false, &line).quick, 1)
        var document = Recorder()
        XCTAssertEqual(read("[{\"a\":1},{\n\"b\":1}]", multiline: true, &document).quick, 2)
    }

    func test_objectsAcrossTheBufferEndAreReadTheGeneralWay_andEveryElementOnce() {
        let items = (0..<200).map { #"{"id":"\#($0)","text":"\#(String(repeating: "é", count: $0 % 13))"}"# }
        let json = "[" + items.joined(separator: ",") + "]"
        for chunk in [16, 61, 256, 1 << 16] {
            var r = Recorder()
            let result = read(json, chunk: chunk, &r)
            XCTAssertNil(result.error, "chunk \(chunk)")
            XCTAssertEqual(result.quick + result.general, 200, "chunk \(chunk)")
            XCTAssertGreaterThan(result.quick, 0, "chunk \(chunk)")
        }
    }

    /// skipValue takes an array's flat objects the quick way, and still
    /// says of an invalid document what the tape parser says.
    func test_skipValue_ofArraysOfFlatObjects_acceptsAndRejectsAsTheTapeParserDoes() {
        let item = #"{"id":"x","n":1,"o":{"k":null}}"#
        let valid = "{\"items\":[" + Array(repeating: item, count: 500).joined(separator: ",") + "],\"next\":[[],{}]}"
        let invalid = [
            valid.replacingOccurrences(of: "\"n\":1,", with: "\"n\":01,"),
            valid.replacingOccurrences(of: "null}}]", with: "nul}}]"),
            "[" + Array(repeating: item, count: 300).joined(separator: ",") + ",]",
            "[" + Array(repeating: item, count: 300).joined(separator: " ") + "]",
        ]
        for (text, chunk) in [(valid, 61), (valid, 1 << 16)] + invalid.map({ ($0, 97) }) {
            var reader = JSONStreamReader(source: ArrayByteSource(Array(text.utf8), chunkSize: chunk), chunkSize: chunk)
            reader.multiline = true
            var streamed: String?
            do throws(ErrorRecord) {
                _ = try reader.peek()
                try reader.skipValue()
                try reader.finishDocument()
            } catch {
                streamed = error.message
            }
            var parsed: String?
            do { _ = try JSONParser.parse(text) } catch { parsed = "\(error)" }
            XCTAssertEqual(streamed, parsed, String(text.prefix(60)))
        }
    }

    /// Whether the value skipped had blanks between its tokens, for a copy
    /// that needs no compacting.
    func test_sawBlank_tellsACompactValueFromOneWithBlanks_inTheQuickAndTheGeneralWay() {
        let item = #"{"id":"x y","n":[1,2]}"#
        let compact = #"{"items":["# + Array(repeating: item, count: 300).joined(separator: ",") + "]}"
        for (text, blank) in [(compact, false), (" " + compact + " \n", false),
                              (compact.replacingOccurrences(of: "[1,2]", with: "[1, 2]"), true),
                              (compact.replacingOccurrences(of: #""n":"#, with: #""n" :"#), true),
                              (compact.replacingOccurrences(of: "},{", with: "},\n{"), true)] {
            var reader = JSONStreamReader(source: ArrayByteSource(Array(text.utf8), chunkSize: 1000), chunkSize: 1000)
            reader.multiline = true
            do throws(ErrorRecord) {
                _ = try reader.peek()
                let start = reader.offset
                reader.sawBlank = false
                try reader.skipValue()
                XCTAssertEqual(reader.sawBlank, blank, String(text.prefix(40)))
                if !blank { XCTAssertEqual(start..<reader.offset, text.hasPrefix(" ") ? 1..<(compact.utf8.count + 1) : 0..<compact.utf8.count) }
            } catch {
                XCTFail("\(error)")
            }
        }
    }
}
