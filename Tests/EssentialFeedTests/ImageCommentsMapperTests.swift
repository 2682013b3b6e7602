import Foundation
import XCTest
import EssentialFeed

final class ImageCommentsMapperTests: XCTestCase {

    private let commentsURL = "https://api.example.com/v1/image/73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6/comments"

    private func map(_ response: Response) throws -> [ImageComment] {
        try noRecord { try ImageCommentsMapper.map(response) }
    }

    private func mapError(_ response: Response) -> ErrorRecord? {
        thrownRecord { try ImageCommentsMapper.map(response) }
    }

    private func item(id: String = #""7019D8A7-0B35-4057-B7F9-8C5471961ED0""#, message: String = #""a message""#,
                      createdAt: String = #""2020-05-20T11:24:59+0000""#, author: String = #"{"username":"a username"}"#) -> String {
        #"{"id":\#(id),"message":\#(message),"created_at":\#(createdAt),"author":\#(author)}"#
    }

    private func body(_ items: String...) -> String {
        #"{"items":[\#(items.joined(separator: ","))]}"#
    }

    func test_map_throwsErrorOnNon2xxHTTPResponse() throws {
        for status in [199, 150, 300, 400, 500] {
            let error = mapError(try jsonResponse(status: status, body(item()), url: commentsURL))
            XCTAssertEqual(error?.kind, .invalidData, "status \(status)")
            XCTAssertEqual(error?.message, "comments response status \(status) is not 2xx")
            XCTAssertEqual(error?.context, [ErrorRecord.Field("url", commentsURL)])
        }
    }

    func test_map_deliversItemsOn2xxHTTPResponse() throws {
        for status in [200, 201, 250, 280, 299] {
            XCTAssertEqual(try map(try jsonResponse(status: status, body(item()))).count, 1, "status \(status)")
            XCTAssertEqual(try map(try jsonResponse(status: status, body())), [], "status \(status)")
        }
    }

    func test_map_throwsErrorOn2xxHTTPResponseWithInvalidJSON() {
        for status in [200, 204, 299] {
            let error = mapError(bytesResponse(status: status, "invalid json", url: commentsURL))
            XCTAssertEqual(error?.kind, .invalidData)
            XCTAssertTrue(error?.message.hasPrefix("body is not JSON") ?? false)
            XCTAssertEqual(error?.context, [ErrorRecord.Field("url", commentsURL)])
        }
    }

    func test_map_deliversNoItemsOn2xxHTTPResponseWithEmptyJSONList() throws {
        XCTAssertEqual(try map(try jsonResponse(#"{"items":[]}"#)), [])
    }

    func test_map_deliversCommentsInOrder() throws {
        let response = try jsonResponse(body(
            item(id: #""7019D8A7-0B35-4057-B7F9-8C5471961ED0""#, message: #""a message""#,
                 createdAt: #""2020-05-20T11:24:59+0000""#, author: #"{"username":"a username"}"#),
            item(id: #""1F4A3B22-9E6E-46FC-BB6C-48B33269951B""#, message: #""another message""#,
                 createdAt: #""2020-05-19T14:23:53+0000""#, author: #"{"username":"another username","id":7}"#)
        ))
        let expected = [
            ImageComment(id: uuid("7019D8A7-0B35-4057-B7F9-8C5471961ED0"), message: "a message",
                         createdAt: Timestamp(seconds: 1_589_973_899), username: "a username"),
            ImageComment(id: uuid("1F4A3B22-9E6E-46FC-BB6C-48B33269951B"), message: "another message",
                         createdAt: Timestamp(seconds: 1_589_898_233), username: "another username"),
        ]
        XCTAssertEqual(try map(response), expected)
    }

    func test_map_acceptsEveryCreatedAtFormAndWritesItAsUTC() throws {
        let forms = [
            ("2020-05-20T11:24:59+0000", "2020-05-20T11:24:59Z"),
            ("2020-05-20T11:24:59+00:00", "2020-05-20T11:24:59Z"),
            ("2020-05-20T11:24:59Z", "2020-05-20T11:24:59Z"),
            ("2020-05-20T13:24:59+0200", "2020-05-20T11:24:59Z"),
            ("2020-05-20T07:24:59-04:00", "2020-05-20T11:24:59Z"),
            ("2020-05-20T11:24:59.250+00:00", "2020-05-20T11:24:59.25Z"),
        ]
        for (given, written_) in forms {
            let comments = try map(try jsonResponse(body(item(createdAt: "\"\(given)\""))))
            XCTAssertEqual(comments.first?.createdAt.iso8601, written_, given)
            XCTAssertEqual(written { comments[0].write(to: &$0) },
                           #"{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"a message","created_at":"\#(written_)","username":"a username"}"#)
        }
    }

    func test_map_readsCreatedAtAsSecondsSince1970() throws {
        let comments = try map(try jsonResponse(body(item(createdAt: #""2020-08-28T15:07:02+00:00""#))))
        XCTAssertEqual(comments.first?.createdAt.seconds, 1_598_627_222)
        XCTAssertEqual(comments.first?.createdAt.nanoseconds, 0)
    }

    func test_map_throwsErrorOnBadCreatedAt() throws {
        for date in [#""yesterday""#, #""2020-05-20""#, #""2020-05-20T11:24:59""#, #""2020-02-30T00:00:00Z""#, #""""#] {
            let error = mapError(try jsonResponse(body(item(createdAt: date))))
            XCTAssertEqual(error?.kind, .invalidData, date)
            XCTAssertEqual(error?.message, "comment 1: created_at is not an ISO 8601 date", date)
        }
        for date in ["1598627222", "null", "{}"] {
            XCTAssertEqual(mapError(try jsonResponse(body(item(createdAt: date))))?.message,
                           "comment 1: created_at is missing or not a string", date)
        }
    }

    func test_map_throwsErrorOnMissingAuthorUsername() throws {
        let cases = [
            (#"{}"#, "comment 2: author.username is missing or not a string"),
            (#"{"name":"x"}"#, "comment 2: author.username is missing or not a string"),
            (#"{"username":null}"#, "comment 2: author.username is missing or not a string"),
            (#"{"username":1}"#, "comment 2: author.username is missing or not a string"),
            (#""a username""#, "comment 2: author is missing or not an object"),
            ("null", "comment 2: author is missing or not an object"),
        ]
        for (author, message) in cases {
            let error = mapError(try jsonResponse(body(item(), item(author: author))))
            XCTAssertEqual(error?.kind, .invalidData, author)
            XCTAssertEqual(error?.message, message, author)
        }
        let noAuthor = #"{"items":[{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"m","created_at":"2020-05-20T11:24:59Z","username":"u"}]}"#
        XCTAssertEqual(mapError(try jsonResponse(noAuthor))?.message, "comment 1: author is missing or not an object")
    }

    func test_map_throwsErrorOnBadMessageOrID() throws {
        XCTAssertEqual(mapError(try jsonResponse(body(item(message: "1"))))?.message, "comment 1: message is missing or not a string")
        XCTAssertEqual(mapError(try jsonResponse(body(item(message: "null"))))?.message, "comment 1: message is missing or not a string")
        XCTAssertEqual(mapError(try jsonResponse(body(item(id: #""x""#))))?.message, "comment 1: id is not a UUID")
        XCTAssertEqual(mapError(try jsonResponse(#"{"items":[{"message":"m"}]}"#))?.message, "comment 1: no id")
    }

    func test_map_acceptsLowerCaseUUIDAndWritesItUpperCase() throws {
        let comments = try map(try jsonResponse(body(item(id: #""7019d8a7-0b35-4057-b7f9-8c5471961ed0""#))))
        XCTAssertEqual(comments.first?.id.uuidString, "7019D8A7-0B35-4057-B7F9-8C5471961ED0")
    }

    func test_map_throwsErrorOnBadEnvelope() throws {
        XCTAssertEqual(mapError(try jsonResponse("{}"))?.message, "body has no items array")
        XCTAssertEqual(mapError(try jsonResponse("[]"))?.message, "body is not a JSON object")
        XCTAssertEqual(mapError(try jsonResponse(#"{"items":[1]}"#))?.message, "item 1 is not an object")
    }

    func test_write_escapesTheMessage() {
        let comment = ImageComment(id: uuid("7019D8A7-0B35-4057-B7F9-8C5471961ED0"), message: "say \"hi\"\n",
                                   createdAt: Timestamp(seconds: 0), username: "ü")
        XCTAssertEqual(written { comment.write(to: &$0) },
                       #"{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"say \"hi\"\n","created_at":"1970-01-01T00:00:00Z","username":"ü"}"#)
    }
}
