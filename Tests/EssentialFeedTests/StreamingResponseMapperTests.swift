import EssentialFeed
import XCTest

/// The streaming mappers give exactly what the document mappers give, for
/// every input, whatever the chunk boundaries.
final class StreamingResponseMapperTests: XCTestCase {
    final class Sink: MappedRecordSink {
        var pending: [String] = []
        var lines: [String] = []
        var errors: [ErrorRecord] = []
        var passed: [(String, ErrorKind)] = []

        func item(_ record: [UInt8]) { pending.append(String(decoding: record, as: UTF8.self)) }
        func commit() { lines += pending; pending = [] }
        func discard() { pending = [] }
        func passThrough(_ line: ArraySlice<UInt8>, kind: ErrorKind) {
            passed.append((String(decoding: line, as: UTF8.self), kind))
            lines.append(String(decoding: line, as: UTF8.self))
        }
        func fail(_ error: ErrorRecord) { errors.append(error); lines.append("ERROR " + error.message) }
    }

    private func stream(_ input: String, _ kind: StreamingResponseMapper.Kind, chunk: Int = 65_536, raw: Bool = false) -> Sink {
        var reader = JSONStreamReader(source: ArrayByteSource(Array(input.utf8), chunkSize: chunk), chunkSize: max(chunk, 16))
        let sink = Sink()
        var mapper = StreamingResponseMapper(kind: kind)
        do {
            if raw { try mapper.mapDocument(&reader, into: sink) } else { try mapper.mapLines(&reader, into: sink) }
        } catch {
            XCTFail("unexpected throw: \(error)")
        }
        return sink
    }

    /// What the document mappers give for one response record line.
    private func reference(_ line: String, _ kind: StreamingResponseMapper.Kind) -> [String] {
        do {
            let document = try JSONParser.parse(line)
            guard document.kind(document.root) == .object else { return ["ERROR"] }
            if RecordKind.errorKind(of: document) != nil { return [line] }
            let response = try Response(record: document)
            var writer = JSONWriter()
            switch kind {
            case .feed:
                return try FeedItemsMapper.map(response).map { writer.reset(); $0.write(to: &writer); return String(decoding: writer.bytes, as: UTF8.self) }
            case .comments:
                return try ImageCommentsMapper.map(response).map { writer.reset(); $0.write(to: &writer); return String(decoding: writer.bytes, as: UTF8.self) }
            }
        } catch {
            return ["ERROR"]
        }
    }

    let feedCorpus = [
        #"{"url":"http://h/f","status":200,"body":{"items":[{"id":"2ab2ae66-a4b7-4a16-b374-51bbac8db086","description":"d \"q\" \u00e9 \ud83d\ude00 tab\t","location":null,"image":"http://h/0"},{"image":"http://h/1","id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","extra":[1,{"x":null}]}]}}"#,
        #"{"status":200,"body":{"items":[]}}"#,
        #"{"status":200,"body":{"other":1,"items":[{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","image":"x:y"}],"more":{"a":[true,false]}}}"#,
        #"{"status":201,"body":{"items":[]}}"#,
        #"{"status":200,"body":{"items":[{"id":"nope","image":"http://h/0"}]}}"#,
        #"{"status":200,"body":{"items":[{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A"}]}}"#,
        #"{"status":200,"body":{"items":[{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","image":"relative/path"}]}}"#,
        #"{"status":200,"body":{"items":[{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","image":"http://h","description":5}]}}"#,
        #"{"status":200,"body":{"items":[1]}}"#,
        #"{"status":200,"body":{"items":{}}}"#,
        #"{"status":200,"body":[]}"#,
        #"{"status":200,"body":{}}"#,
        #"{"body":{"items":[{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","image":"http://h/late"}]},"status":200}"#,
        #"{"status":200,"body_base64":"eyJpdGVtcyI6W119"}"#,
        #"{"status":200,"body_base64":"!!"}"#,
        #"{"status":"200","body":{"items":[]}}"#,
        #"{"status":2000,"body":{"items":[]}}"#,
        #"{"url":"http://h"}"#,
        #"{"status":200}"#,
        #"{"error":"connectivity","message":"refused","url":"http://h"}"#,
        #"{"status":200,"body":{"items":[{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","image":"http://h/a","id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086"}]}}"#,
        #"{"status":200,"body":{"items":[{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","image":"http://h/a"}],"items":[]}}"#,
    ]

    let commentsCorpus = [
        #"{"status":201,"body":{"items":[{"id":"7019d8a7-0b35-4057-b7f9-8c5471961ed0","message":"a \"message\"","created_at":"2020-05-20T11:24:59+0000","author":{"username":"a username","x":1}}]}}"#,
        #"{"status":299,"body":{"items":[{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"m","created_at":"2020-05-20T11:24:59.250+02:00","author":{"username":"u"}}]}}"#,
        #"{"status":300,"body":{"items":[]}}"#,
        #"{"status":200,"body":{"items":[{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"m","created_at":"yesterday","author":{"username":"u"}}]}}"#,
        #"{"status":200,"body":{"items":[{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"m","created_at":"2020-05-20T11:24:59Z","author":"u"}]}}"#,
        #"{"status":200,"body":{"items":[{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"m","created_at":"2020-05-20T11:24:59Z","author":{}}]}}"#,
        #"{"status":200,"body":{"items":[{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","created_at":"2020-05-20T11:24:59Z","author":{"username":"u"}}]}}"#,
    ]

    func test_streaming_equalsTheDocumentMappersOnEveryRecordAtEveryChunkSize() {
        for (kind, corpus) in [(StreamingResponseMapper.Kind.feed, feedCorpus), (.comments, commentsCorpus)] {
            for line in corpus {
                let expected = reference(line, kind)
                for chunk in [1, 2, 3, 7, 64, 65_536] {
                    let got = stream(line + "\n", kind, chunk: chunk).lines.map { $0.hasPrefix("ERROR") ? "ERROR" : $0 }
                    XCTAssertEqual(got, expected, "\(line) at chunk \(chunk)")
                }
            }
        }
    }

    func test_streaming_namesTheLineAndItemOfAnInvalidResponse() {
        let sink = stream("\n" + feedCorpus[0] + "\n" + feedCorpus[4] + "\n", .feed)
        XCTAssertEqual(sink.errors.map(\.message), ["stdin:3: feed item 1: id is not a UUID"])
        XCTAssertEqual(sink.errors.first?.kind, .invalidData)
        XCTAssertEqual(sink.lines.count, 3)
    }

    func test_streaming_reportsSyntaxErrorsWithTheirLineAndByteAndGoesOn() {
        let sink = stream("{\"status\":200,,}\n" + feedCorpus[1] + "\n", .feed)
        XCTAssertEqual(sink.errors.map(\.message), ["stdin:1: invalid JSON at byte 15: expected a string key"])
        let document = try? JSONParser.parse("{\"status\":200,,}")
        XCTAssertNil(document, "the document parser rejects it too")
    }

    func test_streaming_goesOnWithTheNextLineAfterARejectedResponse() {
        for rejected in [feedCorpus[3], feedCorpus[4], feedCorpus[17], feedCorpus[18]] {
            let sink = stream(rejected + "\n" + feedCorpus[0] + "\n" + feedCorpus[1] + "\n", .feed)
            XCTAssertEqual(sink.errors.count, 1, rejected)
            XCTAssertEqual(sink.lines.count, 3, "the valid response after \(rejected) is lost")
        }
        let afterSyntaxError = stream("{\"status\":200,,}\n" + feedCorpus[0] + "\n", .feed)
        XCTAssertEqual(afterSyntaxError.lines.count, 3)
    }

    func test_streaming_reportsATruncatedLastLine() {
        let sink = stream(feedCorpus[1], .feed)
        XCTAssertEqual(sink.errors.map(\.message), ["stdin:1: truncated line (no newline at end of input)"])
        XCTAssertEqual(sink.lines.count, 1)
    }

    func test_streaming_passesErrorRecordsThroughByteForByte() {
        let error = #"{"error":"not_found","message":"nothing","extra":{"a":[1,2]}}"#
        let sink = stream(error + "\r\n", .feed, chunk: 5)
        XCTAssertEqual(sink.passed.map(\.0), [error])
        XCTAssertEqual(sink.passed.map(\.1), [.notFound])
    }

    func test_streaming_rejectsInvalidUTF8AndLoneSurrogatesLikeTheDocumentParser() {
        for bad in ["{\"status\":200,\"body\":{\"items\":[],\"x\":\"\\udc00\"}}", "{\"status\":200,\"body\":{\"items\":[],\"x\":\"\u{FFFD}\"}}"] {
            let sink = stream(bad + "\n", .feed)
            let documentAccepts = (try? JSONParser.parse(bad)) != nil
            XCTAssertEqual(sink.errors.isEmpty, documentAccepts, bad)
        }
        var bytes = Array(#"{"status":200,"body":{"items":[],"x":""#.utf8) + [0xC0, 0x80] + Array(#""}}"#.utf8) + [0x0A]
        var reader = JSONStreamReader(source: ArrayByteSource(bytes, chunkSize: 3))
        let sink = Sink()
        var mapper = StreamingResponseMapper(kind: .feed)
        try? mapper.mapLines(&reader, into: sink)
        XCTAssertEqual(sink.errors.count, 1)
        bytes.removeAll()
    }

    func test_streaming_rawReadsAPrettyPrintedPayload() {
        let payload = """
        {
          "items": [
            {"id": "2AB2AE66-A4B7-4A16-B374-51BBAC8DB086", "image": "http://h/0"}
          ]
        }

        """
        let sink = stream(payload, .feed, chunk: 4, raw: true)
        XCTAssertEqual(sink.lines, [#"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://h/0"}"#])
        XCTAssertEqual(stream("{\"items\":[]} x", .feed, raw: true).errors.count, 1)
        XCTAssertEqual(stream("", .feed, raw: true).errors.count, 1)
    }

    func test_streaming_deepNestingIsAnErrorNotACrash() {
        let deep = "{\"status\":200,\"body\":{\"items\":[],\"x\":" + String(repeating: "[", count: 100_000) + "}}\n"
        let sink = stream(deep, .feed)
        XCTAssertEqual(sink.errors.count, 1)
        XCTAssertTrue(sink.errors.first?.message.contains("nesting deeper than") ?? false)
    }

    func test_streaming_keepsNumbersAndLiteralsInSkippedValuesValid() {
        for bad in ["01", "1.", "-", "tru", "nul", "1e"] {
            let line = "{\"status\":200,\"body\":{\"items\":[],\"x\":\(bad)}}\n"
            XCTAssertEqual(stream(line, .feed).errors.count, 1, bad)
        }
        let good = "{\"status\":200,\"body\":{\"items\":[],\"x\":[-0.5e+3,1E999,true,false,null,12345678901234567890123]}}\n"
        XCTAssertEqual(stream(good, .feed).errors.count, 0)
    }
}

extension StreamingResponseMapperTests {
    /// Refilling at the very end of the stream moves the kept bytes: a number
    /// read there must still be reported at the end, not past it.
    func test_streaming_aNumberAtTheEndOfTheStreamIsReportedAtTheEnd() {
        for chunk in [1, 3, 16, 65_536] {
            let raw = stream(#"{"items":[],"x":0"#, .feed, chunk: chunk, raw: true)
            XCTAssertEqual(raw.errors.map(\.message), ["stdin: invalid JSON at byte 18: unexpected end: unterminated object"], "chunk \(chunk)")
            let lines = stream("{\"status\":200,\"body\":{\"items\":[]}}\n{\"status\":200,\"x\":12", .feed, chunk: chunk)
            XCTAssertEqual(lines.errors.count, 1, "chunk \(chunk)")
            XCTAssertTrue(lines.errors.first?.message.hasPrefix("stdin:2: ") ?? false, lines.errors.first?.message ?? "")
        }
    }
}
