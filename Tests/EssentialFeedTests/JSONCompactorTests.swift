import EssentialFeed
import XCTest

/// The compactor writes what `JSONWriter` writes for a parsed document's
/// value (source escapes and number text kept, blanks dropped), whatever
/// the pieces the text arrives in.
final class JSONCompactorTests: XCTestCase {
    private let documents = [
        "{\n  \"items\" : [ {\"id\" : \"a b\",\t\"n\": -1.5e+3 }, null, true , false, [ ], { } ],\r\n \"s\": \"\\\" \\\\ \\u00e9 \\n {\\\"not\\\": [1, 2]}\"\n}\n",
        "  [1 ,2, \"  spaced  \" ]  ",
        "\"just a string \\\\\"",
        "{\"compact\":[1,2,{\"k\":\"v\"}]}",
        "[\"é ✓ 🍣\" , \"\\ud83c\\udf63\"]",
    ]

    private func compacted(_ text: String, piece: Int) -> String {
        let bytes = Array(text.utf8)
        var compactor = JSONCompactor()
        var out: [UInt8] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + piece)
            var room = [UInt8](repeating: 0, count: JSONCompactor.room(for: end - start))
            let written = bytes[start..<end].withUnsafeBytes { piece in room.withUnsafeMutableBytes { compactor.compact(piece, into: $0) } }
            out += room[..<written]
            start = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    func test_compact_writesWhatJSONWriterWritesForTheDocument_inPiecesOfAnySize() throws {
        for text in documents {
            let document = try JSONParser.parse(text)
            var writer = JSONWriter()
            writer.value(document, document.root)
            let expected = String(decoding: writer.bytes, as: UTF8.self)
            for piece in [1, 2, 3, 7, 8, 9, 16, 1 << 16] {
                XCTAssertEqual(compacted(text, piece: piece), expected, "\(text) in pieces of \(piece)")
            }
        }
    }

    /// Strings of every length up to 40 with an escaped quote, an escaped
    /// backslash, a \u escape or none at every place: around the
    /// eight-byte steps within a string.
    func test_compact_keepsStringsWhole_whereverTheirEscapesFall() throws {
        for length in 0...40 {
            for place in 0...length {
                for escape in [#"\""#, #"\\"#, #"\u0041"#, ""] {
                    var inner = String(repeating: "a", count: length)
                    inner.insert(contentsOf: escape, at: inner.index(inner.startIndex, offsetBy: place))
                    let text = "[ \"\(inner)\" , \"x y\" ]"
                    let document = try JSONParser.parse(text)
                    var writer = JSONWriter()
                    writer.value(document, document.root)
                    let expected = String(decoding: writer.bytes, as: UTF8.self)
                    for piece in [1, 5, 8, 13, 1 << 16] {
                        XCTAssertEqual(compacted(text, piece: piece), expected, "\(text) in pieces of \(piece)")
                    }
                }
            }
        }
    }
}
