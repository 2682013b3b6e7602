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
            bytes[start..<end].withUnsafeBytes { compactor.compact($0) { out.append(contentsOf: $0) } }
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

    func test_compact_copiesACompactDocumentInOneRun() {
        let text = Array(#"{"a":[1,2,"x y"],"b":"\"q\""}"#.utf8)
        var runs = 0
        var compactor = JSONCompactor()
        text.withUnsafeBytes { compactor.compact($0) { _ in runs += 1 } }
        XCTAssertEqual(runs, 1)
    }
}
