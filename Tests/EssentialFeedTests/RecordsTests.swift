import Foundation
import XCTest
import EssentialFeed

final class RecordsTests: XCTestCase {

    // MARK: ErrorKind and ExitStatus

    func test_errorKind_exitStatusesFollowSysexits() {
        XCTAssertEqual(ErrorKind.allCases.map(\.exitStatus), [64, 65, 66, 69, 70, 71, 74, 75])
        XCTAssertEqual(ErrorKind.usage.exitStatus, 64)
        XCTAssertEqual(ErrorKind.invalidData.exitStatus, 65)
        XCTAssertEqual(ErrorKind.notFound.exitStatus, 66)
        XCTAssertEqual(ErrorKind.connectivity.exitStatus, 69)
        XCTAssertEqual(ErrorKind.internal.exitStatus, 70)
        XCTAssertEqual(ErrorKind.resource.exitStatus, 71)
        XCTAssertEqual(ErrorKind.store.exitStatus, 74)
        XCTAssertEqual(ErrorKind.busy.exitStatus, 75)
    }

    func test_errorKind_namesMatchTheContract() {
        XCTAssertEqual(ErrorKind.allCases.map(\.rawValue),
                       ["usage", "invalid_data", "not_found", "connectivity", "internal", "resource", "store", "busy"])
        XCTAssertEqual(ErrorKind(rawValue: "invalid_data"), .invalidData)
        XCTAssertNil(ErrorKind(rawValue: "invalidData"))
    }

    func test_exitStatus_isZeroWithoutFailures() {
        let status = ExitStatus()
        XCTAssertEqual(status.code, 0)
        XCTAssertNil(status.firstFailure)
    }

    func test_exitStatus_firstKindWins() {
        var status = ExitStatus()
        status.record(.notFound)
        status.record(.store)
        status.record(.invalidData)
        XCTAssertEqual(status.firstFailure, .notFound)
        XCTAssertEqual(status.code, 66)
    }

    func test_exitStatus_laterSuccessDoesNotClearIt() {
        var status = ExitStatus()
        status.record(.connectivity)
        // Handling more records successfully records nothing; the status stays.
        for _ in 0..<3 { _ = status.code }
        XCTAssertEqual(status.code, 69)
        status.record(.connectivity)
        XCTAssertEqual(status.code, 69)
    }

    // MARK: ErrorRecord

    func test_errorRecord_writesKindMessageThenContextInOrder() {
        let record = ErrorRecord(.invalidData, "feed item 1: \"id\" is not a UUID",
                                 context: [ErrorRecord.Field("url", "https://x.com/v1/feed"), ErrorRecord.Field("z", "a")])
        XCTAssertEqual(written { record.write(to: &$0) },
                       #"{"error":"invalid_data","message":"feed item 1: \"id\" is not a UUID","url":"https://x.com/v1/feed","z":"a"}"#)
        XCTAssertEqual(written { ErrorRecord(.busy, "locked").write(to: &$0) }, #"{"error":"busy","message":"locked"}"#)
    }

    func test_recordKind_recognizesErrorRecords() throws {
        XCTAssertEqual(RecordKind.errorKind(of: try parseJSON(#"{"error":"store","message":"m"}"#)), .store)
        XCTAssertEqual(RecordKind.errorKind(of: try parseJSON(#"{"message":"m","error":"not_found"}"#)), .notFound)
        XCTAssertNil(RecordKind.errorKind(of: try parseJSON(#"{"id":"x","url":"y"}"#)))
        XCTAssertNil(RecordKind.errorKind(of: try parseJSON(#"{"nested":{"error":"store"}}"#)))
    }

    func test_recordKind_countsUnknownErrorKindsAsInternal() throws {
        XCTAssertEqual(RecordKind.errorKind(of: try parseJSON(#"{"error":"boom","message":"m"}"#)), .internal)
        XCTAssertEqual(RecordKind.errorKind(of: try parseJSON(#"{"error":1}"#)), .internal)
    }

    func test_errorRecord_roundTripsThroughRecordKind() throws {
        for kind in ErrorKind.allCases {
            let text = written { ErrorRecord(kind, "m").write(to: &$0) }
            XCTAssertEqual(RecordKind.errorKind(of: try parseJSON(text)), kind)
        }
    }

    // MARK: RecordLine

    func test_recordLine_parsesAnObject() throws {
        let document = try noRecord { try RecordLine.parse(ArraySlice(#"{"a":1}"#.utf8), lineNumber: 1) }
        XCTAssertEqual(document.member(0, "a").flatMap(document.int), 1)
    }

    func test_recordLine_parsesASliceOfALargerBuffer() throws {
        let bytes = Array("{\"a\":1}\n{\"b\":2}\n".utf8)
        let line = bytes[8..<15]
        let document = try noRecord { try RecordLine.parse(line, lineNumber: 2) }
        XCTAssertEqual(document.member(0, "b").flatMap(document.int), 2)
    }

    func test_recordLine_rejectsNonObjectsNamingTheLine() {
        for text in ["[1]", "1", "\"x\"", "null"] {
            let error = thrownRecord { try RecordLine.parse(ArraySlice(text.utf8), lineNumber: 3) }
            XCTAssertEqual(error?.kind, .invalidData)
            XCTAssertEqual(error?.message, "not a JSON object", text)
            XCTAssertEqual(error?.line, 3, text)
        }
    }

    func test_recordLine_rejectsInvalidJSONNamingLineAndByte() {
        let error = thrownRecord { try RecordLine.parse(ArraySlice(#"{"a":x}"#.utf8), lineNumber: 2) }
        XCTAssertEqual(error?.kind, .invalidData)
        XCTAssertEqual(error?.message, "invalid JSON at byte 6: unexpected character 'x'")
        XCTAssertEqual(error?.line, 2)
    }

    func test_recordLine_truncatedMessageNamesTheLine() {
        let error = RecordLine.truncated(lineNumber: 4)
        XCTAssertEqual(error.kind, .invalidData)
        XCTAssertEqual(error.message, "truncated line (no newline at end of input)")
        XCTAssertEqual(error.line, 4)
    }

    // MARK: Response records

    func test_response_readsAJSONBody() throws {
        let document = try parseJSON(#"{"url":"https://x.com/v1/feed","status":200,"body":{"items" : [ ]}}"#)
        let response = try noRecord { try Response(record: document) }
        XCTAssertEqual(response.url, "https://x.com/v1/feed")
        XCTAssertEqual(response.status, 200)
        guard case let .json(bodyDocument, node) = response.body else { return XCTFail("expected a JSON body") }
        XCTAssertEqual(compact(bodyDocument, node), #"{"items":[]}"#)
        let (parsed, root) = try noRecord { try response.jsonBody() }
        XCTAssertEqual(compact(parsed, root), #"{"items":[]}"#)
        XCTAssertEqual(response.errorContext, [ErrorRecord.Field("url", "https://x.com/v1/feed")])
    }

    func test_response_readsAJSONBodyOfAnyKind() throws {
        for body in ["null", "\"text\"", "[1,2]", "0"] {
            let document = try parseJSON(#"{"status":200,"body":\#(body)}"#)
            let response = try noRecord { try Response(record: document) }
            guard case let .json(d, n) = response.body else { XCTFail(body); continue }
            XCTAssertEqual(compact(d, n), body)
        }
    }

    func test_response_decodesBase64BodyAndParsesIt() throws {
        let payload = #"{"items":[]}"#
        let encoded = Data(payload.utf8).base64EncodedString()
        let document = try parseJSON(#"{"url":"u:x","status":201,"body_base64":"\#(encoded)"}"#)
        let response = try noRecord { try Response(record: document) }
        XCTAssertEqual(response.status, 201)
        guard case let .bytes(bytes) = response.body else { return XCTFail("expected bytes") }
        XCTAssertEqual(bytes, Array(payload.utf8))
        let (parsed, root) = try noRecord { try response.jsonBody() }
        XCTAssertEqual(compact(parsed, root), payload)
    }

    func test_response_readsEmptyBase64Body() throws {
        let response = try noRecord { try Response(record: try parseJSON(#"{"status":204,"body_base64":""}"#)) }
        guard case let .bytes(bytes) = response.body else { return XCTFail("expected bytes") }
        XCTAssertEqual(bytes, [])
    }

    func test_response_jsonBodyOfNonJSONBytesIsInvalidData() {
        let response = Response(url: "https://x.com/img", status: 200, body: .bytes([0x89, 0x50, 0x4E, 0x47]))
        let error = thrownRecord { try response.jsonBody() }
        XCTAssertEqual(error?.kind, .invalidData)
        XCTAssertEqual(error?.message, "body is not JSON: invalid JSON at byte 1: unexpected byte 0x89")
        XCTAssertEqual(error?.context, [ErrorRecord.Field("url", "https://x.com/img")])
    }

    func test_response_rejectsInvalidBase64() throws {
        for value in [#""not base64!""#, #""aGk""#, "1", "null"] {
            let document = try parseJSON(#"{"url":"https://x.com","status":200,"body_base64":\#(value)}"#)
            let error = thrownRecord { try Response(record: document) }
            XCTAssertEqual(error?.kind, .invalidData, value)
            XCTAssertEqual(error?.message, "body_base64 is not base64", value)
            XCTAssertEqual(error?.context, [ErrorRecord.Field("url", "https://x.com")])
        }
    }

    func test_response_rejectsMissingStatus() throws {
        let error = thrownRecord { try Response(record: try parseJSON(#"{"url":"https://x.com","body":{}}"#)) }
        XCTAssertEqual(error?.kind, .invalidData)
        XCTAssertEqual(error?.message, "not a response record: no status")
        XCTAssertEqual(error?.context, [ErrorRecord.Field("url", "https://x.com")])
    }

    func test_response_rejectsNonIntegerStatus() throws {
        for status in [#""200""#, "200.0", "2e2", "-1", "1000", "null", "true", "[200]", "99999999999999999999"] {
            let error = thrownRecord { try Response(record: try parseJSON(#"{"status":\#(status),"body":{}}"#)) }
            XCTAssertEqual(error?.kind, .invalidData, status)
            XCTAssertEqual(error?.message, "status is not an HTTP status code", status)
        }
    }

    func test_response_rejectsMissingBody() throws {
        let error = thrownRecord { try Response(record: try parseJSON(#"{"status":200}"#)) }
        XCTAssertEqual(error?.message, "not a response record: no body or body_base64")
        XCTAssertEqual(error?.context, [])
    }

    func test_response_readsARecordWithoutURL() throws {
        let response = try noRecord { try Response(record: try parseJSON(#"{"status":500,"body":{}}"#)) }
        XCTAssertNil(response.url)
        XCTAssertEqual(response.errorContext, [])
    }

    func test_write_embedsAJSONBody() throws {
        let body = try parseJSON(#" { "items" : [ { "id" : "x" } ] , "n" : 1.0e1 } "#)
        let response = Response(url: "https://x.com/v1/feed?limit=10", status: 200, body: .json(body, node: body.root))
        XCTAssertEqual(written { response.write(to: &$0) },
                       #"{"url":"https://x.com/v1/feed?limit=10","status":200,"body":{"items":[{"id":"x"}],"n":1.0e1}}"#)
    }

    func test_write_encodesOtherBodiesAsBase64() {
        let response = Response(url: "https://x.com/a.png", status: 404, body: .bytes(Array("hi".utf8)))
        XCTAssertEqual(written { response.write(to: &$0) }, #"{"url":"https://x.com/a.png","status":404,"body_base64":"aGk="}"#)
        let empty = Response(url: nil, status: 204, body: .bytes([]))
        XCTAssertEqual(written { empty.write(to: &$0) }, #"{"status":204,"body_base64":""}"#, "no url: the field is omitted")
    }

    func test_write_roundTripsThroughRecordReading() throws {
        let bodies: [[UInt8]] = [Array(#"{"items":[1,"two",{"x":null}]}"#.utf8), [0, 1, 2, 0xFF, 0xFE], Array("plain text".utf8), []]
        for bytes in bodies {
            let original = Response.fromBody(url: "https://x.com/p", status: 200, bytes: bytes)
            let line = written { original.write(to: &$0) }
            let read = try noRecord { try Response(record: try parseJSON(line)) }
            XCTAssertEqual(read.url, "https://x.com/p")
            XCTAssertEqual(read.status, 200)
            XCTAssertEqual(written { read.write(to: &$0) }, line)
            switch (original.body, read.body) {
            case let (.bytes(a), .bytes(b)): XCTAssertEqual(a, b)
            case let (.json(d1, n1), .json(d2, n2)): XCTAssertTrue(jsonEqual(d1, n1, d2, n2))
            default: XCTFail("body form changed for \(bytes)")
            }
        }
    }

    func test_fromBody_picksJSONForJSONBytes() {
        for text in [#"{"items":[]}"#, " [1, 2]\n", "\"s\"", "42", "null"] {
            let response = Response.fromBody(url: "https://x.com", status: 200, bytes: Array(text.utf8))
            guard case .json = response.body else { XCTFail("expected JSON for \(text.debugDescription)"); continue }
        }
    }

    /// The first byte tells a body that cannot be JSON before the parser is
    /// asked: whatever that byte, the body is JSON exactly when it parses.
    func test_fromBody_isJSONExactlyWhenTheBodyParses_whateverItsFirstByte() {
        let rests = ["", "1", "{}", "[]", "\"x\"", "rue", "alse", "ull", " 1", "\n{}", "\u{FEFF}{}", "\r\n[1]"]
        for first in 0...255 {
            for rest in rests {
                let bytes = [UInt8(first)] + Array(rest.utf8)
                let parses = (try? JSONParser.parse(bytes)) != nil
                let response = Response.fromBody(url: nil, status: 200, bytes: bytes)
                if case .json = response.body { XCTAssertTrue(parses, "\(bytes)") } else { XCTAssertFalse(parses, "\(bytes)") }
            }
        }
    }

    func test_fromBody_picksBytesForAnythingElse() {
        for bytes: [UInt8] in [Array("<html></html>".utf8), Array("{\"a\":".utf8), [], [0x89, 0x50, 0x4E, 0x47], Array("{} x".utf8)] {
            let response = Response.fromBody(url: nil, status: 200, bytes: bytes)
            guard case let .bytes(kept) = response.body else { XCTFail("expected bytes for \(bytes)"); continue }
            XCTAssertEqual(kept, bytes)
        }
    }
}
