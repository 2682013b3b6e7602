import EssentialFeed
import XCTest

/// The in-place reading of feed image records gives what `FeedImage(record:)`
/// gives, or steps aside (nil) for records it does not take.
final class FeedImageRecordTextTests: XCTestCase {
    private func lent(_ line: String) throws -> FeedImage? {
        let document = try JSONParser.parse(Array(line.utf8))
        return try FeedImageRecordText.lend(document) { $0.image }
    }

    func test_lend_readsPlainRecordsAsTheRecordReaderDoes() throws {
        for line in [
            #"{"id":"2ab2ae66-a4b7-4a16-b374-51bbac8db086","url":"http://h/0"}"#,
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"d","location":null,"url":"https://h/1"}"#,
            #"{"url":"http://h/2","location":"l","id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","extra":[1]}"#,
            #"{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","url":"http://h/3","url":"http://h/last"}"#,
        ] {
            let document = try JSONParser.parse(Array(line.utf8))
            XCTAssertEqual(try lent(line), try FeedImage(record: document), line)
        }
    }

    func test_lend_stepsAsideForRecordsItDoesNotTake() throws {
        for line in [
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"a\nb","url":"http://h/0"}"#,
            #"{"i\u0064":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://h/0"}"#,
            #"{"id":"not a uuid","url":"http://h/0"}"#,
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"no scheme"}"#,
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","location":7,"url":"http://h/0"}"#,
        ] {
            XCTAssertNil(try lent(line), line)
        }
    }
}
