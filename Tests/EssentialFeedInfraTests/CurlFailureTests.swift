import CCurl
@testable import EssentialFeedNetwork
import XCTest

/// libcurl's result codes as the client's failures, where no server can
/// make libcurl give them on demand.
final class CurlFailureTests: XCTestCase {
    /// libcurl (7.88) now and then sends on a connection it has not set up
    /// yet, over HTTP/2 through a proxy's tunnel (10 runs in 40 of 22 mixed
    /// URLs, 8 at a time): the record's message was its internal
    /// "[CONN-12-0] send: no filter connected", and --retry took it for a
    /// failure that lasts. It is a connection lost, which --retry tries again.
    func test_aConnectionLibcurlHadNotSetUp_isAConnectionLost_triedAgain() {
        let client = CurlHTTPClient(timeout: 5)
        for detail in ["[CONN-12-0] send: no filter connected", "[CONN-3-1] recv: no filter connected"] {
            let failure = client.failure(CURLE_FAILED_INIT, detail: detail, url: "https://feed.example/v1/feed")
            XCTAssertEqual(failure.reason, .connectionLost, detail)
            XCTAssertEqual(failure.message, "connection lost", detail)
            XCTAssertTrue(RetryPolicy.isTransient(.failure(failure)), detail)
        }
        XCTAssertEqual(client.failure(CURLE_FAILED_INIT, detail: "failed init", url: "https://feed.example/").reason, .other)
    }

    /// A request refused by the server's GOAWAY (its last stream below this
    /// one: not processed, RFC 9113 6.8) fails the HTTP/2 connection, which
    /// libcurl says as "Error in the HTTP2 framing layer": --retry took it
    /// for a failure that lasts (found by the hunt). A stream's own error is
    /// the server's answer to it, not tried again.
    func test_anHTTP2ConnectionFailure_isAConnectionLost_triedAgain_aStreamsErrorIsNot() {
        let client = CurlHTTPClient(timeout: 5)
        let failure = client.failure(CURLE_HTTP2, detail: "Error in the HTTP2 framing layer", url: "https://feed.example/v1/feed")
        XCTAssertEqual(failure.reason, .connectionLost)
        XCTAssertEqual(failure.message, "connection lost (HTTP/2: Error in the HTTP2 framing layer)")
        XCTAssertTrue(RetryPolicy.isTransient(.failure(failure)))
        let stream = client.failure(CURLE_HTTP2_STREAM, detail: "HTTP/2 stream 1 was not closed cleanly: PROTOCOL_ERROR (err 1)", url: "https://feed.example/")
        XCTAssertFalse(RetryPolicy.isTransient(.failure(stream)))
    }
}
