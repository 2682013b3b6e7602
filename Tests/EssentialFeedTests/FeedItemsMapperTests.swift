import Foundation
import XCTest
import EssentialFeed

final class FeedItemsMapperTests: XCTestCase {

    func test_map_throwsErrorOnNon200HTTPResponse() throws {
        for status in [199, 201, 300, 400, 500] {
            let response = try jsonResponse(status: status, #"{"items":[]}"#)
            let error = thrownRecord { try FeedItemsMapper.map(response) }
            XCTAssertEqual(error?.kind, .invalidData, "status \(status)")
            XCTAssertEqual(error?.message, "feed response status \(status) is not 200")
            XCTAssertEqual(error?.context, [ErrorRecord.Field("url", "https://api.example.com/v1/feed")])
        }
    }

    func test_map_throwsErrorOn200HTTPResponseWithInvalidJSON() {
        let response = bytesResponse("invalid json")
        let error = thrownRecord { try FeedItemsMapper.map(response) }
        XCTAssertEqual(error?.kind, .invalidData)
        XCTAssertTrue(error?.message.hasPrefix("body is not JSON: invalid JSON at byte 1") ?? false, error?.message ?? "")
    }

    func test_map_throwsErrorOnEmptyBody() {
        let error = thrownRecord { try FeedItemsMapper.map(bytesResponse("")) }
        XCTAssertEqual(error?.kind, .invalidData)
    }

    func test_map_deliversNoItemsOn200HTTPResponseWithEmptyJSONList() throws {
        XCTAssertEqual(try noRecord { try FeedItemsMapper.map(try jsonResponse(#"{"items":[]}"#)) }, [])
        XCTAssertEqual(try noRecord { try FeedItemsMapper.map(bytesResponse(#" {"items" : [ ] } "#)) }, [])
    }

    func test_map_deliversItemsInOrderOn200HTTPResponseWithJSONItems() throws {
        let item1 = FeedImage(id: uuid("73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6"), description: nil, location: nil,
                              url: "http://a-url.com")
        let item2 = FeedImage(id: uuid("BA298A85-6275-48D3-8315-9C8F7C1CD109"), description: "a description",
                              location: "a location", url: "https://another-url.com/image.png?size=2")
        let body = #"""
        {"items":[
          {"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":"http://a-url.com"},
          {"id":"BA298A85-6275-48D3-8315-9C8F7C1CD109","description":"a description","location":"a location",
           "image":"https://another-url.com/image.png?size=2"}
        ]}
        """#
        XCTAssertEqual(try noRecord { try FeedItemsMapper.map(try jsonResponse(body)) }, [item1, item2])
        XCTAssertEqual(try noRecord { try FeedItemsMapper.map(bytesResponse(body)) }, [item1, item2],
                       "a non-JSON-recorded body that parses maps the same")
    }

    func test_map_deliversImageAsURL() throws {
        let response = try jsonResponse(#"{"items":[{"image":"https://x.com/1.jpg","id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6"}]}"#)
        let images = try noRecord { try FeedItemsMapper.map(response) }
        XCTAssertEqual(images.map(\.url), ["https://x.com/1.jpg"])
        XCTAssertEqual(written { images[0].write(to: &$0) },
                       #"{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","url":"https://x.com/1.jpg"}"#)
    }

    func test_write_writesOptionalFieldsWhenPresentInStableOrder() {
        let image = FeedImage(id: uuid("73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6"), description: "d \"q\"\n", location: "l",
                              url: "https://x.com/1.jpg")
        XCTAssertEqual(written { image.write(to: &$0) },
                       #"{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","description":"d \"q\"\n","location":"l","url":"https://x.com/1.jpg"}"#)
    }

    func test_map_treatsNullOptionalFieldsAsAbsent() throws {
        let response = try jsonResponse(#"{"items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","description":null,"location":null,"image":"https://x.com/1"}]}"#)
        let images = try noRecord { try FeedItemsMapper.map(response) }
        XCTAssertEqual(images, [FeedImage(id: uuid("73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6"), description: nil, location: nil, url: "https://x.com/1")])
        XCTAssertEqual(written { images[0].write(to: &$0) },
                       #"{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","url":"https://x.com/1"}"#, "never written as null")
    }

    func test_map_acceptsLowerCaseUUIDAndWritesItUpperCase() throws {
        let response = try jsonResponse(#"{"items":[{"id":"73a7f70c-75da-4c2e-b5a3-eed40dc53aa6","image":"https://x.com/1"}]}"#)
        let images = try noRecord { try FeedItemsMapper.map(response) }
        XCTAssertEqual(images.first?.id, uuid("73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6"))
        XCTAssertEqual(written { images[0].write(to: &$0) },
                       #"{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","url":"https://x.com/1"}"#)
    }

    func test_map_decodesEscapedStrings() throws {
        let response = try jsonResponse(#"{"items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","description":"caf\u00e9 \ud83d\ude00","image":"https:\/\/x.com\/1"}]}"#)
        let images = try noRecord { try FeedItemsMapper.map(response) }
        XCTAssertEqual(images.first?.description, "café 😀")
        XCTAssertEqual(images.first?.url, "https://x.com/1")
    }

    func test_map_ignoresUnknownFields() throws {
        let response = try jsonResponse(#"{"next":"x","items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":"https://x.com/1","likes":[1,2],"extra":{"a":null}}]}"#)
        XCTAssertEqual(try noRecord { try FeedItemsMapper.map(response) }.count, 1)
    }

    func test_map_throwsErrorOnNonUUIDID() throws {
        for id in [#""not-a-uuid""#, #""73A7F70C75DA4C2EB5A3EED40DC53AA6""#, #""{73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6}""#,
                   #""73A7F70C-75DA-4C2E-B5A3-EED40DC53AA""#, #""73A7F70C-75DA-4C2E-B5A3-EED40DC53AAG""#,
                   #""-3A7F70C-75DA-4C2E-B5A3-EED40DC53AA6""#, #"" 73A7F70C-75DA-4C2E-B5A3-EED40DC53AA""#, "1", "null", #""""#] {
            let response = try jsonResponse(#"{"items":[{"id":\#(id),"image":"https://x.com/1"}]}"#)
            let error = thrownRecord { try FeedItemsMapper.map(response) }
            XCTAssertEqual(error?.kind, .invalidData, id)
            XCTAssertEqual(error?.message, "feed item 1: id is not a UUID", id)
        }
    }

    func test_map_throwsErrorOnMissingID() throws {
        let response = try jsonResponse(#"{"items":[{"image":"https://x.com/1"}]}"#)
        XCTAssertEqual(thrownRecord { try FeedItemsMapper.map(response) }?.message, "feed item 1: no id")
    }

    func test_map_errorMessageNamesTheItemPosition() throws {
        let response = try jsonResponse(#"""
        {"items":[
          {"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":"https://x.com/1"},
          {"id":"BA298A85-6275-48D3-8315-9C8F7C1CD109","image":"https://x.com/2"},
          {"id":"bad","image":"https://x.com/3"}
        ]}
        """#)
        let error = thrownRecord { try FeedItemsMapper.map(response) }
        XCTAssertEqual(error?.message, "feed item 3: id is not a UUID")
    }

    func test_map_throwsErrorOnNonAbsoluteImageURL() throws {
        for image in [#""/images/1.png""#, #""images/1.png""#, #""//x.com/1.png""#, #""""#, #""https://x.com/a b.png""#,
                      #""1http://x.com""#, #"":no-scheme""#, #""http:""#, "1", "null", #"{"url":"https://x.com"}"#] {
            let response = try jsonResponse(#"{"items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":\#(image)}]}"#)
            let error = thrownRecord { try FeedItemsMapper.map(response) }
            XCTAssertEqual(error?.kind, .invalidData, image)
            XCTAssertEqual(error?.message, "feed item 1: image is not an absolute URL", image)
        }
    }

    func test_map_throwsErrorOnMissingImage() throws {
        let response = try jsonResponse(#"{"items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","url":"https://x.com/1"}]}"#)
        XCTAssertEqual(thrownRecord { try FeedItemsMapper.map(response) }?.message, "feed item 1: no image")
    }

    func test_map_throwsErrorOnMissingItems() throws {
        for body in ["{}", #"{"item":[]}"#, #"{"Items":[]}"#] {
            let error = thrownRecord { try FeedItemsMapper.map(try jsonResponse(body)) }
            XCTAssertEqual(error?.kind, .invalidData, body)
            XCTAssertEqual(error?.message, "body has no items array", body)
        }
    }

    func test_map_throwsErrorWhenItemsIsNotAnArray() throws {
        for body in [#"{"items":{}}"#, #"{"items":null}"#, #"{"items":"[]"}"#, #"{"items":1}"#] {
            let error = thrownRecord { try FeedItemsMapper.map(try jsonResponse(body)) }
            XCTAssertEqual(error?.message, "body has no items array", body)
        }
    }

    func test_map_throwsErrorWhenBodyIsNotAnObject() throws {
        for body in ["[]", "null", #""items""#, "200"] {
            let error = thrownRecord { try FeedItemsMapper.map(try jsonResponse(body)) }
            XCTAssertEqual(error?.kind, .invalidData, body)
            XCTAssertEqual(error?.message, "body is not a JSON object", body)
        }
    }

    func test_map_throwsErrorWhenAnItemIsNotAnObject() throws {
        for (body, position) in [(#"{"items":[1]}"#, 1), (#"{"items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":"https://x.com/1"},[]]}"#, 2),
                                 (#"{"items":[null]}"#, 1), (#"{"items":["x"]}"#, 1)] {
            let error = thrownRecord { try FeedItemsMapper.map(try jsonResponse(body)) }
            XCTAssertEqual(error?.kind, .invalidData, body)
            XCTAssertEqual(error?.message, "item \(position) is not an object", body)
        }
    }

    func test_map_throwsErrorOnDescriptionOrLocationOfWrongType() throws {
        for (field, value) in [("description", "1"), ("description", "true"), ("description", "{}"), ("description", #"["a"]"#),
                               ("location", "0"), ("location", "false"), ("location", "[]")] {
            let response = try jsonResponse(#"{"items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":"https://x.com/1","\#(field)":\#(value)}]}"#)
            let error = thrownRecord { try FeedItemsMapper.map(response) }
            XCTAssertEqual(error?.kind, .invalidData)
            XCTAssertEqual(error?.message, "feed item 1: \(field) is not a string", "\(field): \(value)")
        }
    }

    func test_map_deliversNoImagesWhenAnyItemIsInvalid() throws {
        let response = try jsonResponse(#"{"items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":"https://x.com/1"},{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6"}]}"#)
        XCTAssertNotNil(thrownRecord { try FeedItemsMapper.map(response) })
    }

    func test_map_omitsURLContextWhenTheResponseHasNoURL() throws {
        let response = try jsonResponse(status: 404, "{}", url: nil)
        XCTAssertEqual(thrownRecord { try FeedItemsMapper.map(response) }?.context, [])
    }

    func test_map_readsAResponseRecordLine() throws {
        let line = #"{"url":"https://api.example.com/v1/feed?limit=10","status":200,"body":{"items":[{"id":"73a7f70c-75da-4c2e-b5a3-eed40dc53aa6","image":"https://x.com/1","location":"Lisbon"}]}}"#
        let images = try noRecord { () throws(ErrorRecord) in
            let document = try RecordLine.parse(ArraySlice(line.utf8), lineNumber: 1)
            return try FeedItemsMapper.map(try Response(record: document))
        }
        XCTAssertEqual(images, [FeedImage(id: uuid("73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6"), description: nil, location: "Lisbon", url: "https://x.com/1")])
    }
}
