import EssentialFeed
import XCTest

/// Each rule and its message is written once: every mapping path (the
/// document mappers, the streaming mapper over NDJSON and over a bare
/// document, a `body_base64` body, and the fast path, which hands rejected
/// items to the general path) reports the message `ItemRejection` and
/// `MappingRejection` give, so changing one changes it everywhere.
final class ItemRulesTests: XCTestCase {
    private let good = #"{"id":"2ab2ae66-a4b7-4a16-b374-51bbac8db086","image":"http://h/0"}"#
    private let goodComment = #"{"id":"2ab2ae66-a4b7-4a16-b374-51bbac8db086","message":"m","created_at":"2020-05-20T11:24:59+0000","author":{"username":"u"}}"#

    /// An item that breaks exactly `rejection`, and the kind it is an item of.
    private func item(breaking rejection: ItemRejection) -> (String, ResponseKind) {
        let id = #""id":"2ab2ae66-a4b7-4a16-b374-51bbac8db086""#
        let comment = #""message":"m","created_at":"2020-05-20T11:24:59Z""#
        switch rejection {
        case .noID: return (#"{"image":"http://h/1"}"#, .feed)
        case .idNotUUID: return (#"{"id":"2ab2ae66-a4b7-4a16-b374-51bbac8db08g","image":"http://h/1"}"#, .feed)
        case .noImage: return ("{\(id)}", .feed)
        case .imageNotURL: return ("{\(id),\"image\":\"no scheme\"}", .feed)
        case .descriptionNotString: return ("{\(id),\"image\":\"http://h/1\",\"description\":1}", .feed)
        case .locationNotString: return ("{\(id),\"image\":\"http://h/1\",\"location\":true}", .feed)
        case .messageNotString: return ("{\(id),\"message\":2,\"created_at\":\"2020-05-20T11:24:59Z\",\"author\":{\"username\":\"u\"}}", .comments)
        case .createdAtNotString: return ("{\(id),\"message\":\"m\",\"author\":{\"username\":\"u\"}}", .comments)
        case .createdAtNotDate: return ("{\(id),\"message\":\"m\",\"created_at\":\"2020-02-30T00:00:00Z\",\"author\":{\"username\":\"u\"}}", .comments)
        case .authorNotObject: return ("{\(id),\(comment),\"author\":\"u\"}", .comments)
        case .usernameNotString: return ("{\(id),\(comment),\"author\":{\"username\":null}}", .comments)
        }
    }

    func test_everyItemRejection_givesItsOneMessageOnEveryPath() {
        for rejection in ItemRejection.allCases {
            let (bad, kind) = item(breaking: rejection)
            let first = kind == .feed ? good : goodComment
            // Alone, then after a good item (taken by the fast path, which
            // leaves the bad one to the general path).
            for (items, position) in [(bad, 1), ("\(first),\(bad)", 2)] {
                let expected = MappingRejection.item(position: position, rejection).message(kind)
                assertEveryPath(#"{"items":[\#(items)]}"#, kind, gives: expected, "\(rejection)")
            }
        }
    }

    func test_everyEnvelopeRejection_givesItsOneMessageOnEveryPath() {
        for kind in [ResponseKind.feed, .comments] {
            assertEveryPath("[]", kind, gives: MappingRejection.bodyNotObject.message(kind), "not an object")
            assertEveryPath(#"{"items":{}}"#, kind, gives: MappingRejection.noItemsArray.message(kind), "no items")
            assertEveryPath(#"{"items":[1]}"#, kind, gives: MappingRejection.itemNotObject(position: 1).message(kind), "item")
            let status = kind == .feed ? 201 : 404
            assertEveryPath(#"{"items":[]}"#, kind, status: status, gives: MappingRejection.status(status).message(kind), "status")
        }
    }

    func test_messages_nameTheKindAndPosition() {
        XCTAssertEqual(MappingRejection.item(position: 3, .noImage).message(.feed), "feed item 3: no image")
        XCTAssertEqual(MappingRejection.item(position: 2, .authorNotObject).message(.comments), "comment 2: author is missing or not an object")
        XCTAssertEqual(MappingRejection.status(201).message(.feed), "feed response status 201 is not 200")
        XCTAssertEqual(MappingRejection.status(404).message(.comments), "comments response status 404 is not 2xx")
    }

    // MARK: The paths

    private func assertEveryPath(_ body: String, _ kind: ResponseKind, status: Int = 200, gives expected: String, _ what: String,
                                 file: StaticString = #filePath, line: UInt = #line) {
        let response = bytesResponse(status: status, body)
        let document: String
        do {
            switch kind {
            case .feed: _ = try FeedItemsMapper.map(response)
            case .comments: _ = try ImageCommentsMapper.map(response)
            }
            document = "mapped"
        } catch {
            document = error.message
        }
        XCTAssertEqual(document, expected, "document mapper, \(what)", file: file, line: line)
        let base64 = Base64.encode(Array(body.utf8))
        // NDJSON with the body as JSON and as base64: messages after the line number.
        for record in [#"{"status":\#(status),"body":\#(body)}"#, #"{"status":\#(status),"body_base64":"\#(base64)"}"#] {
            XCTAssertEqual(streamed(record + "\n", kind, raw: false), "stdin:1: " + expected, "stream, \(what): \(record)", file: file, line: line)
        }
        if status == 200 {
            XCTAssertEqual(streamed(body, kind, raw: true), "stdin: " + expected, "raw document, \(what)", file: file, line: line)
        }
    }

    private final class Sink: MappedRecordSink {
        var failure: String?
        func items(_ lines: UnsafeRawBufferPointer) {}
        func commit() {}
        func discard() {}
        func passThrough(_ line: ArraySlice<UInt8>, kind: ErrorKind) {}
        func fail(_ error: ErrorRecord) { failure = error.located }
    }

    private func streamed(_ input: String, _ kind: ResponseKind, raw: Bool) -> String {
        var reader = JSONStreamReader(source: ArrayByteSource(Array(input.utf8), chunkSize: 1 << 16), chunkSize: 1 << 16)
        var mapper = StreamingResponseMapper(kind: kind)
        let sink = Sink()
        do {
            if raw { try mapper.mapDocument(&reader, into: sink) } else { try mapper.mapLines(&reader, into: sink) }
        } catch {
            return "thrown: \(error)"
        }
        return sink.failure ?? "mapped"
    }
}
