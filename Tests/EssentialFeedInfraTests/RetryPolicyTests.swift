import EssentialFeed
import EssentialFeedNetwork
import XCTest

/// curl's --retry, as a pure policy.
final class RetryPolicyTests: XCTestCase {
    private let policy = RetryPolicy(retries: 3, maxTime: 60)
    private let now = 1_700_000_000

    private func response(_ status: Int, retryAfter: String? = nil) -> Result<HTTPResult, HTTPFailure> {
        .success(HTTPResult(status: status, body: [], retryAfter: retryAfter))
    }

    private func failure(_ reason: HTTPFailure.Reason) -> Result<HTTPResult, HTTPFailure> {
        .failure(HTTPFailure(reason, "x"))
    }

    func test_transient_areCurlsTransientFailures() {
        for status in [408, 429, 500, 502, 503, 504] { XCTAssertTrue(RetryPolicy.isTransient(response(status)), "\(status)") }
        for status in [200, 204, 301, 304, 400, 401, 403, 404, 410, 501, 505] { XCTAssertFalse(RetryPolicy.isTransient(response(status)), "\(status)") }
        for reason in [HTTPFailure.Reason.timedOut, .refused, .connectionLost, .cannotResolveHost] {
            XCTAssertTrue(RetryPolicy.isTransient(failure(reason)), "\(reason)")
        }
        for reason in [HTTPFailure.Reason.tls, .tooManyRedirects, .bodyTooLarge, .cancelled, .badResponse, .other] {
            XCTAssertFalse(RetryPolicy.isTransient(failure(reason)), "\(reason)")
        }
    }

    func test_delay_startsAtOneSecondAndDoubles_untilTheRetriesAreSpent() {
        XCTAssertEqual(policy.delay(after: response(503), retriesMade: 0, elapsed: 0, now: now), 1)
        XCTAssertEqual(policy.delay(after: failure(.refused), retriesMade: 1, elapsed: 1, now: now), 2)
        XCTAssertEqual(policy.delay(after: failure(.timedOut), retriesMade: 2, elapsed: 3, now: now), 4)
        XCTAssertNil(policy.delay(after: response(503), retriesMade: 3, elapsed: 7, now: now))
    }

    func test_delay_noneForWhatIsNotTransient() {
        XCTAssertNil(policy.delay(after: response(404), retriesMade: 0, elapsed: 0, now: now))
        XCTAssertNil(policy.delay(after: response(200), retriesMade: 0, elapsed: 0, now: now))
        XCTAssertNil(policy.delay(after: failure(.tls), retriesMade: 0, elapsed: 0, now: now))
    }

    func test_delay_honoursRetryAfter_inSecondsOrAsAnHTTPDate() {
        XCTAssertEqual(policy.delay(after: response(503, retryAfter: "7"), retriesMade: 0, elapsed: 0, now: now), 7)
        // delay-seconds is 1*DIGIT: leading zeros count for nothing.
        XCTAssertEqual(policy.delay(after: response(503, retryAfter: "0000000002"), retriesMade: 0, elapsed: 0, now: now), 2)
        XCTAssertEqual(policy.delay(after: response(503, retryAfter: "0000000000"), retriesMade: 0, elapsed: 0, now: now), 0)
        XCTAssertEqual(policy.delay(after: response(429, retryAfter: HTTPDate.format(now + 12)), retriesMade: 2, elapsed: 0, now: now), 12)
        XCTAssertEqual(policy.delay(after: response(503, retryAfter: HTTPDate.format(now - 5)), retriesMade: 0, elapsed: 0, now: now), 0)
        XCTAssertEqual(policy.delay(after: response(503, retryAfter: "soon"), retriesMade: 0, elapsed: 0, now: now), 1, "unreadable: the backoff")
    }

    func test_delay_noRetryStartsPastTheBound() {
        let bounded = RetryPolicy(retries: 10, maxTime: 5)
        XCTAssertEqual(bounded.delay(after: response(503), retriesMade: 2, elapsed: 1, now: now), 4)
        XCTAssertNil(bounded.delay(after: response(503), retriesMade: 2, elapsed: 1.5, now: now))
        XCTAssertNil(bounded.delay(after: response(503, retryAfter: "3600"), retriesMade: 0, elapsed: 0, now: now))
    }
}
