import EssentialFeed
import XCTest

/// The quick reading of a feed image record line gives what the document
/// path (`FeedImage(record:)`) gives, or steps aside (nil) for the lines it
/// does not take, which the document path then reads and reports.
final class FeedImageRecordLineTests: XCTestCase {
    private var reader = FeedImageRecordLine()

    private func lent(_ line: [UInt8]) throws -> FeedImage? {
        var image: FeedImage?
        guard try reader.lend(line[...], to: { image = $0.image; return true }) == true else { return nil }
        return image
    }

    private func lent(_ line: String) throws -> FeedImage? {
        try lent(Array(line.utf8))
    }

    /// The document path's image, or nil when it rejects the line.
    private func documentImage(_ line: [UInt8]) -> FeedImage? {
        guard let document = try? RecordLine.parse(line[...], lineNumber: 1),
              RecordKind.errorKind(of: document) == nil, !RecordKind.isPage(document) else { return nil }
        return try? FeedImage(record: document)
    }

    func test_lend_takesRecordsAsToolsWriteThemAndReadsThemAsTheDocumentPathDoes() throws {
        for line in [
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://h/0"}"#,
            #"{"id":"2ab2ae66-a4b7-4a16-b374-51bbac8db086","description":"d","location":"l","url":"https://h/1"}"#,
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"a \"quoted\"\nline\\ \/ \t\u00e9\ud83d\ude00","url":"http://h/2"}"#,
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","location":"caf\u00e9 naïve 東京 😀","url":"http://h/\u00e9?a=\"b\""}"#,
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":null,"location":null,"url":"http://h/3"}"#,
            #"{"url":"http://h/4","location":"l","description":"","id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A"}"#,
            #"  { "id" : "A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A" ,"# + "\t" + #""url" : "http://h/5" }  "# + "\r",
            #"{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","description":"\u0000 nul","url":"http://h/6"}"#,
        ] {
            let image = try XCTUnwrap(try lent(line), line)
            XCTAssertEqual(image, documentImage(Array(line.utf8)), line)
        }
    }

    func test_lend_lendsTheCanonicalUpperCaseID() throws {
        var id = ""
        let line = Array(#"{"id":"2ab2ae66-a4b7-4a16-b374-51bbac8db086","url":"http://h/0"}"#.utf8)
        XCTAssertEqual(try reader.lend(line[...]) { id = String(decoding: $0.id, as: UTF8.self); return false }, false)
        XCTAssertEqual(id, "2AB2AE66-A4B7-4A16-B374-51BBAC8DB086")
    }

    func test_lend_stepsAsideForEveryOtherLine() throws {
        let id = "2AB2AE66-A4B7-4A16-B374-51BBAC8DB086"
        for line in [
            #"{"error":"connectivity","message":"down"}"#,
            #"{"page":{"etag":"x"}}"#,
            #"{"id":"\#(id)","url":"http://h/0","extra":1}"#,
            #"{"id":"\#(id)","url":"http://h/0","error":"invalid_data"}"#,
            #"{"id":"\#(id)","url":"http://h/0","url":"http://h/1"}"#,
            #"{"id":"\#(id)","id":"\#(id)","url":"http://h/0"}"#,
            #"{"id":"\#(id)","url":"http://h/0","location":{"city":"x"}}"#,
            #"{"id":"\#(id)","url":"http://h/0","location":["x"]}"#,
            #"{"id":"\#(id)","url":"http://h/0","location":7}"#,
            #"{"id":"\#(id)","url":"http://h/0","description":true}"#,
            #"{"id":"\#(id)","url":null}"#,
            #"{"id":null,"url":"http://h/0"}"#,
            #"{"id":"\#(id)"}"#,
            #"{"url":"http://h/0"}"#,
            #"{"id":"not a uuid","url":"http://h/0"}"#,
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB08\u0036","url":"http://h/0"}"#,
            #"{"i\u0064":"\#(id)","url":"http://h/0"}"#,
            #"{"id":"\#(id)","url":"no scheme"}"#,
            #"{"id":"\#(id)","url":"http://h/a b"}"#,
            #"{"id":"\#(id)","url":"http://h/\u0020"}"#,
            #"{"id":"\#(id)","url":"http://h/0"} x"#,
            #"{"id":"\#(id)","url":"http://h/0"}{"id":"\#(id)","url":"http://h/0"}"#,
            #"{"id":"\#(id)","url":"http://h/0""#,
            #"{"id":"\#(id)","url":"http://h/0",}"#,
            #"{"id":"\#(id)","description":"\x","url":"http://h/0"}"#,
            #"{"id":"\#(id)","description":"\ud83d","url":"http://h/0"}"#,
            #"{"id":"\#(id)","description":"\ude00","url":"http://h/0"}"#,
            #"{"id":"\#(id)","description":"tab"# + "\t" + #"inside","url":"http://h/0"}"#,
            #"[{"id":"\#(id)","url":"http://h/0"}]"#,
            "", "   ", "{}", "null",
        ] {
            XCTAssertNil(try lent(line), line)
        }
        // Invalid UTF-8 in a string: an overlong form, a lone continuation, a cut sequence.
        for bad: [UInt8] in [[0xC0, 0x80], [0x80], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF5, 0x80, 0x80, 0x80]] {
            let line = Array(#"{"id":"\#(id)","description":""#.utf8) + bad + Array(#"","url":"http://h/0"}"#.utf8)
            XCTAssertNil(try lent(line), "\(bad)")
            XCTAssertNil(documentImage(line), "\(bad)")
        }
    }

    func test_lend_passesOnWhatTheBodyThrows() {
        let line = Array(#"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://h/0"}"#.utf8)
        XCTAssertThrowsError(try reader.lend(line[...]) { (_) throws(ErrorRecord) -> Bool in throw ErrorRecord(.store, "full") }) {
            XCTAssertEqual(($0 as? ErrorRecord)?.kind, .store)
        }
    }

    /// Lines made by changing, adding or removing bytes of records: whatever
    /// the quick reading takes, the document path reads as the same image.
    func test_lend_neverDisagreesWithTheDocumentPathOnMutatedLines() throws {
        var generator = SystemRandomNumberGenerator()
        let seeds = [
            #"{"id":"2ab2ae66-a4b7-4a16-b374-51bbac8db086","description":"a \"q\" caf\u00e9 é\n","location":"x","url":"https://h/1?a=\"b\""}"#,
            #"{"url":"http://h/4","location":null,"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A"}"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]",:\ u0aAfF9-nul"#.utf8) + [0x00, 0x09, 0x0A, 0x7F, 0x80, 0xC3, 0xA9, 0xED, 0xF0]
        var taken = 0
        for _ in 0..<20_000 {
            var line = seeds.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let at = Int.random(in: 0..<line.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: line[at] = alphabet.randomElement(using: &generator)!
                case 1: line.insert(alphabet.randomElement(using: &generator)!, at: at)
                default: line.remove(at: at)
                }
            }
            guard let image = try lent(line) else { continue }
            taken += 1
            XCTAssertEqual(image, documentImage(line), String(decoding: line, as: UTF8.self))
        }
        XCTAssertGreaterThan(taken, 100)
    }
}
