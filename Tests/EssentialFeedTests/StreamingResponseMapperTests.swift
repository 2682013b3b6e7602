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

        func items(_ lines: UnsafeRawBufferPointer) {
            XCTAssertEqual(lines.last, 0x0A, "records come whole, each with its newline")
            pending += lines.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        }
        func commit() { lines += pending; pending = [] }
        func discard() { pending = [] }
        func passThrough(_ line: ArraySlice<UInt8>, kind: ErrorKind) {
            passed.append((String(decoding: line, as: UTF8.self), kind))
            lines.append(String(decoding: line, as: UTF8.self))
        }
        func fail(_ error: ErrorRecord) { errors.append(error); lines.append("ERROR " + error.located) }
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

    func test_streaming_endsAFeedPageWithValidatorsWithAPageRecord_andA304IsThePageRecordAlone() {
        let item = #"{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":"http://x/i"}"#
        let input = [
            #"{"url":"http://x/1","status":200,"etag":"\"a\"","last_modified":"Tue, 24 Nov 2026 10:00:00 GMT","body":{"items":["# + item + "]}}",
            #"{"url":"http://x/2","status":304,"etag":"\"a\"","body_base64":""}"#,
            #"{"url":"http://x/3","status":200,"body":{"items":["# + item + "]}}",
            #"{"etag":"\"b\"","url":"http://x/4","status":200,"body_base64":"eyJpdGVtcyI6W119"}"#,
        ].joined(separator: "\n") + "\n"
        for chunk in [7, 65_536] {
            XCTAssertEqual(stream(input, .feed, chunk: chunk).lines, [
                #"{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","url":"http://x/i"}"#,
                #"{"page":"http://x/1","status":200,"etag":"\"a\"","last_modified":"Tue, 24 Nov 2026 10:00:00 GMT"}"#,
                #"{"page":"http://x/2","status":304,"etag":"\"a\""}"#,
                #"{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","url":"http://x/i"}"#,
                #"{"page":"http://x/4","status":200,"etag":"\"b\""}"#,
            ], "chunk \(chunk)")
        }
    }

    func test_streaming_commentsTakeNo304() {
        let sink = stream(#"{"url":"http://x/c","status":304,"etag":"\"a\"","body_base64":""}"# + "\n", .comments)
        XCTAssertEqual(sink.errors.first?.message, "comments response status 304 is not 2xx")
    }

    func test_streaming_namesTheLineAndItemOfAnInvalidResponse() {
        let sink = stream("\n" + feedCorpus[0] + "\n" + feedCorpus[4] + "\n", .feed)
        XCTAssertEqual(sink.errors.map(\.located), ["stdin:3: feed item 1: id is not a UUID"])
        XCTAssertEqual(sink.errors.first?.kind, .invalidData)
        XCTAssertEqual(sink.lines.count, 3)
    }

    func test_streaming_reportsSyntaxErrorsWithTheirLineAndByteAndGoesOn() {
        let sink = stream("{\"status\":200,,}\n" + feedCorpus[1] + "\n", .feed)
        XCTAssertEqual(sink.errors.map(\.located), ["stdin:1: invalid JSON at byte 15: expected a string key"])
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
        XCTAssertEqual(sink.errors.map(\.located), ["stdin:1: truncated line (no newline at end of input)"])
        XCTAssertEqual(sink.lines.count, 1)
    }

    /// Cut inside its value (a string, a number, between members), the
    /// last line is truncated too, not only invalid JSON.
    func test_streaming_reportsALastLineCutInsideItsValueAsTruncated() {
        let cuts = [5, 12, 25].map { String(feedCorpus[1].utf8.prefix($0))! }
            + [#"{"status":200,"x":tru"#, #"{"status":200,"x":nu"#,
               #"{"status":200,"x":"\ud83d"#, #"{"status":200,"x":"\ud83d\"#, #"{"status":200,"x":"\ud83d\ude"#, #"{"status":200,"x":"\ud83d\uD"#]
        for line in cuts {
            let sink = stream(feedCorpus[0] + "\n" + line, .feed)
            XCTAssertEqual(sink.errors.map(\.located), ["stdin:2: truncated line (no newline at end of input)"], line)
            XCTAssertEqual(sink.lines.count, 3, line)
        }
    }

    /// Cut inside a character of several bytes: truncated too; a wrong
    /// byte in its place is still invalid UTF-8.
    func test_streaming_reportsALastLineCutInsideACharacterAsTruncated() {
        let truncated = "stdin:2: truncated line (no newline at end of input)"
        for (tail, expected): ([UInt8], String) in [([0xE2, 0x82], truncated), ([0xF0, 0x9F, 0x98], truncated), ([0xF0], truncated),
                                 ([0xE2, 0x41], "stdin:2: invalid JSON at byte 20: invalid UTF-8 sequence starting with byte 0xE2 in string"),
                                 // An overlong start, a surrogate's, one past U+10FFFF: invalid, cut or not (review).
                                 ([0xE0, 0x80], "stdin:2: invalid JSON at byte 20: invalid UTF-8 sequence starting with byte 0xE0 in string"),
                                 ([0xED, 0xA0], "stdin:2: invalid JSON at byte 20: invalid UTF-8 sequence starting with byte 0xED in string"),
                                 ([0xF4, 0x90], "stdin:2: invalid JSON at byte 20: invalid UTF-8 sequence starting with byte 0xF4 in string")] {
            let bytes = Array((feedCorpus[0] + "\n").utf8) + Array(#"{"status":200,"x":""#.utf8) + tail
            for chunk in [3, 64] {
                var reader = JSONStreamReader(source: ArrayByteSource(bytes, chunkSize: chunk))
                let sink = Sink()
                var mapper = StreamingResponseMapper(kind: .feed)
                try? mapper.mapLines(&reader, into: sink)
                XCTAssertEqual(sink.errors.map(\.located), [expected], "chunks of \(chunk)")
            }
        }
    }

    /// Cut inside what cannot be a low half: no low half, as uncut; a
    /// digit that is none, said at it, as uncut (second review).
    func test_streaming_reportsACutThatCannotEndWellAsInvalid() {
        let sink = stream(feedCorpus[0] + "\n" + #"{"status":200,"x":"\ud83d\u0"#, .feed)
        XCTAssertEqual(sink.errors.count, 1)
        XCTAssertFalse(sink.errors.first?.located.contains("truncated") ?? true, sink.errors.first?.located ?? "")
        let cut = stream(feedCorpus[0] + "\n" + #"{"status":200,"x":"\ud83d\uDCx"#, .feed).errors.map(\.located)
        let whole = stream(feedCorpus[0] + "\n" + #"{"status":200,"x":"\ud83d\uDCx0"}"# + "\n", .feed).errors.map(\.located)
        XCTAssertEqual(cut, whole)
        XCTAssertTrue(cut.first?.contains("invalid hex digit") ?? false, "\(cut)")
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

    /// Keys, strings and numbers past 64 KiB are read in bounded memory and
    /// still give what the document mappers give: a key whose last part is
    /// a name the mapper looks for ("items", "image") is not that name.
    func test_streaming_longKeysStringsAndNumbers_mapAsTheDocumentMappersMapThem() {
        let long = String(repeating: "x", count: 70_000)
        let item = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","image":"http://h/0"}"#
        let lines = [
            #"{"status":200,"body":{"\#(long)items":[\#(item)]}}"#,
            #"{"status":200,"body":{"items":[\#(item)],"\#(long)":1}}"#,
            #"{"status":200,"body":{"items":[{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","\#(long)image":"http://h/0"}]}}"#,
            #"{"status":200,"body":{"items":[\#(item)],"n":-\#(String(repeating: "1", count: 70_000)).5e+3}}"#,
            #"{"status":200,"body":{"items":[\#(item)],"n":0\#(String(repeating: "1", count: 70_000))}}"#,
            #"{"status":200,"body":{"items":[\#(item)],"s":"\#(long)\u00e9\n"}}"#,
            #"{"status":200,"body":{"items":[\#(item)],"s":"\#(long)\q"}}"#,
            #"{"status":200,"\#(long)":[1],"body":{"items":[\#(item)]}}"#,
        ]
        for line in lines {
            let expected = reference(line, .feed)
            for chunk in [7, 4096, 65_536] {
                let got = stream(line + "\n", .feed, chunk: chunk).lines.map { $0.hasPrefix("ERROR") ? "ERROR" : $0 }
                XCTAssertEqual(got, expected, "\(line.prefix(60))… at chunk \(chunk)")
            }
        }
        XCTAssertEqual(reference(lines[1], .feed).count, 1)
        XCTAssertEqual(reference(lines[0], .feed), ["ERROR"])
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
            XCTAssertEqual(raw.errors.map(\.located), ["stdin: invalid JSON at byte 18: unexpected end: unterminated object"], "chunk \(chunk)")
            let lines = stream("{\"status\":200,\"body\":{\"items\":[]}}\n{\"status\":200,\"x\":12", .feed, chunk: chunk)
            XCTAssertEqual(lines.errors.count, 1, "chunk \(chunk)")
            XCTAssertTrue(lines.errors.first?.located.hasPrefix("stdin:2: ") ?? false, lines.errors.first?.located ?? "")
        }
    }
}

/// Thousands of generated items of tricky content (escapes of every kind,
/// raw and escaped non-ASCII, U+2028, control characters, absent and null
/// optional fields, duplicate keys, blanks, extra members of every type,
/// nested values), mapped by the streaming mapper at several chunk sizes:
/// byte for byte what the document mappers write.
final class StreamingResponseMapperGeneratedTests: XCTestCase {
    private static let pieces: [String] = [
        "plain words", "x", "", #"\""#, #"\\"#, #"\/"#, #"\n"#, #"\t"#, #"\r"#, #"\b"#, #"\f"#,
        #"\u0000"#, #"\u001f"#, #"\u001F"#, #"\u007f"#, #"\u0022"#, #"\u005C"#, #"\u002f"#, #"\u00e9"#, #"\u00C9"#,
        #"\u2028"#, #"\u2029"#, "\u{2028}", "é", "naïve café", "日本語", "😀", #"\ud83d\ude00"#, #"\uD83D\uDE00"#,
        #"\uffff"#, "\u{7F}", "a quite long run of plain ASCII text, longer than eight bytes",
        "12345678", "1234567", "123456789", #"<tag attr="#, "%20&x=1",
    ]

    private static func text(_ rng: inout SplitMix64) -> String {
        var s = ""
        for _ in 0..<Int.random(in: 0...4, using: &rng) { s += rng.pick(pieces) }
        return s
    }

    private static func uuid(_ rng: inout SplitMix64) -> String {
        let hex = Array("0123456789abcdefABCDEF")
        var s = ""
        for k in 0..<36 {
            s.append([8, 13, 18, 23].contains(k) ? "-" : rng.pick(hex))
        }
        if rng.chance(0.05) { s = #"\u00"# + String(format: "%02x", s.utf8.first!) + s.dropFirst() }  // an escaped first digit
        return s
    }

    private static func blank(_ rng: inout SplitMix64) -> String {
        rng.chance(0.9) ? "" : rng.pick([" ", "  ", "\t", " \r "])
    }

    private static func extra(_ rng: inout SplitMix64) -> String {
        rng.pick([#""n":-0.5e+3"#, #""t":true"#, #""f":false"#, #""z":null"#, #""s":"s""#, #""i":12345678901234567890"#,
                  #""a":[1,{"b":[]}]"#, #""o":{"p":"q"}"#, #""\u0069d2":"x""#, #""ü":1"#, #""":0"#])
    }

    private static func object(_ members: [String], _ rng: inout SplitMix64) -> String {
        var members = members
        members.shuffle(using: &rng)
        let b = blank(&rng)
        return "{" + b + members.map { $0.replacingOccurrences(of: "\":", with: "\"" + blank(&rng) + ":" + blank(&rng)) }
            .joined(separator: b + "," + blank(&rng)) + blank(&rng) + "}"
    }

    private static func optional(_ key: String, _ rng: inout SplitMix64) -> [String] {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0, 1: return []
        case 2: return [#""\#(key)":null"#]
        case 3: return [#""\#(key)":5"#, #""\#(key)":"\#(text(&rng))""#]  // duplicates: the last wins (kept in order below)
        default: return [#""\#(key)":"\#(text(&rng))""#]
        }
    }

    private static func feedItem(_ rng: inout SplitMix64) -> String {
        var members = [#""id":"\#(uuid(&rng))""#, #""image":"\#(rng.pick(["https://h/", #"https:\/\/h\/"#, "http://h/x?y=1&z=%20"]))\#(rng.pick(["", "x", #"\/path\/to"#, "é", #"\u00e9"#, "%20&x=1", "12345678", "😀", #"\""#]))""#]
        for _ in 0..<Int.random(in: 0...2, using: &rng) { members.append(extra(&rng)) }
        var item = object(members, &rng)
        // Optional members go last, in order, so that a duplicate's last value is the string.
        for member in optional("description", &rng) + optional("location", &rng) {
            item = String(item.dropLast()) + "," + member + "}"
        }
        return item
    }

    private static func commentItem(_ rng: inout SplitMix64) -> String {
        let date = rng.pick(["2020-05-20T11:24:59+0000", "2020-05-20T11:24:59Z", "2020-05-20t11:24:59z", "2020-05-20T11:24:59.250+02:00",
                             "2020-05-20T11:24:59.123456789123-0130", "2020-02-29T23:59:59+00", #"2020-05-20T11:24:59\u002B0000"#])
        var author = [#""username":"\#(text(&rng))""#]
        if rng.chance(0.3) { author.append(extra(&rng)) }
        var members = [#""id":"\#(uuid(&rng))""#, #""message":"\#(text(&rng))""#, #""created_at":"\#(date)""#, #""author":\#(object(author, &rng))"#]
        if rng.chance(0.1) { members.append(#""username":"not this one""#) }
        if rng.chance(0.2) { members.append(extra(&rng)) }
        var item = object(members, &rng)
        if rng.chance(0.05) { item = String(item.dropLast()) + #","author":{"username":"the last author"}}"# }
        return item
    }

    private func check(_ kind: StreamingResponseMapper.Kind, seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var input = ""
        var items = 0
        for response in 0..<12 {
            var list: [String] = []
            for _ in 0..<Int.random(in: 0...400, using: &rng) {
                list.append(kind == .feed ? Self.feedItem(&rng) : Self.commentItem(&rng))
            }
            items += list.count
            if response == 11 { list.insert(#"{"id":"nope","image":"http://h"}"#, at: list.count / 2) }  // one rejected response
            let body = #"{"items":["# + list.joined(separator: rng.chance(0.5) ? "," : " , ") + "]}"
            input += response % 3 == 1 ? #"{"body":\#(body),"status":200,"url":"http://h/\#(response)"}"# : #"{"url":"http://h/\#(response)","status":\#(kind == .feed ? 200 : 201),"body":\#(body)}"#
            input += "\n"
        }
        XCTAssertGreaterThan(items, 1000)
        let bytes = Array(input.utf8)
        let expected = FuzzMapping.reference(stream: bytes, kind: kind).map(\.description)
        XCTAssertGreaterThan(expected.count, 1000)
        for (source, reader) in [(65_536, 65_536), (4096, 4096), (1000, 16), (7, 64), (1 << 20, 1 << 20)] {
            let got = FuzzMapping.streaming(bytes, kind: kind, raw: false, sourceChunk: source, readerChunk: reader)
            XCTAssertNil(got.thrown)
            XCTAssertEqual(got.outcomes.count, expected.count, "chunks \(source), \(reader)")
            for (k, (want, have)) in zip(expected, got.outcomes.map(\.description)).enumerated() where want != have {
                XCTFail("chunks \(source), \(reader): outcome \(k) differs\n  document:  \(want)\n  streaming: \(have)")
                break
            }
        }
    }

    /// Dates near every rule of the quick path (a zero offset, no fraction)
    /// and past them, each in a response of its own.
    func test_dates_streamExactlyAsTheDocumentMapperMapsThem() {
        var dates: [String] = []
        for stem in ["2020-05-20T11:24:59", "2020-02-29T23:59:59", "2021-02-29T00:00:00", "2020-02-30T00:00:00", "2020-04-31T12:00:00",
                     "2020-13-01T00:00:00", "2020-00-10T00:00:00", "2020-01-00T00:00:00", "2020-12-31T24:00:00", "2020-12-31T23:60:00",
                     "2020-12-31T23:59:60", "0000-01-01T00:00:00", "9999-12-31T23:59:59", "1900-02-29T00:00:00", "2000-02-29T00:00:00",
                     "2020-05-20t11:24:59", "2020-05-20 11:24:59", "2020/05/20T11:24:59", "20-05-20T11:24:59", "2020-5-20T11:24:59",
                     "２020-05-20T11:24:59", "2020-05-20T11:24:5a"] {
            for zone in ["Z", "z", "+0000", "-0000", "+00:00", "-00:00", "+00", "-00", "+0100", "+00:30", "-0001", "+0000 ", "", "+000", "+00:0", "Z0"] {
                dates.append(stem + zone)
                dates.append(stem + ".5" + zone)
            }
        }
        dates += ["", "Z", "2020-05-20T11:24:59+2400", "9999-12-31T23:59:59-01:00", "0000-01-01T00:00:00+01:00"]
        var input = ""
        for date in dates {
            let item = #"{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"m","created_at":"\#(date)","author":{"username":"u"}}"#
            input += #"{"status":200,"body":{"items":[\#(item),\#(item)]}}"# + "\n"
        }
        let bytes = Array(input.utf8)
        let expected = FuzzMapping.reference(stream: bytes, kind: .comments).map(\.description)
        let got = FuzzMapping.streaming(bytes, kind: .comments, raw: false, sourceChunk: 65_536, readerChunk: 65_536).outcomes.map(\.description)
        XCTAssertEqual(got.count, expected.count)
        for (k, (want, have)) in zip(expected, got).enumerated() where want != have {
            XCTFail("outcome \(k) differs\n  document:  \(want)\n  streaming: \(have)")
        }
    }

    func test_generatedFeedItems_streamExactlyAsTheDocumentMapperMapsThem() {
        for seed: UInt64 in [1, 2, 3] { check(.feed, seed: seed) }
    }

    func test_generatedComments_streamExactlyAsTheDocumentMapperMapsThem() {
        for seed: UInt64 in [1, 2, 3] { check(.comments, seed: seed) }
    }
}
