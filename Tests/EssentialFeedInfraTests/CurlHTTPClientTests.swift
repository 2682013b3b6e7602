import EssentialFeedNetwork
import XCTest

/// The libcurl client (https) against the HTTP client spec.
final class CurlHTTPClientTests: HTTPClientTestCase, HTTPClientSpecs {
    override func makeClient(timeout: Double, maxRedirects: Int, maxBodyBytes: Int) -> HTTPClient {
        CurlHTTPClient(timeout: timeout, maxRedirects: maxRedirects, maxBodyBytes: maxBodyBytes)
    }

    func test_get_deliversStatusAndBodyOf200() throws {
        try spec_get_deliversStatusAndBodyOf200()
    }

    func test_get_deliversNon200StatusesAsResponses() throws {
        try spec_get_deliversNon200StatusesAsResponses()
    }

    func test_get_deliversUnknownPathAs404Response() throws {
        try spec_get_deliversUnknownPathAs404Response()
    }

    func test_get_deliversImageBytesExactly() throws {
        try spec_get_deliversImageBytesExactly()
    }

    func test_get_failsWithRefusedOnAClosedPort() {
        spec_get_failsWithRefusedOnAClosedPort()
    }

    func test_get_failsWithTimeoutWhenTheServerIsSlowerThanTheBound() {
        spec_get_failsWithTimeoutWhenTheServerIsSlowerThanTheBound()
    }

    func test_get_timeoutBoundsTheWholeRequestNotOnlyIdleTime() {
        spec_get_timeoutBoundsTheWholeRequestNotOnlyIdleTime()
    }

    func test_get_failsWhenTheBodyIsCutShort() {
        spec_get_failsWhenTheBodyIsCutShort()
    }

    func test_get_failsWhenTheConnectionIsReset() {
        spec_get_failsWhenTheConnectionIsReset()
    }

    func test_cancel_deliversCancelledOnceAndPromptly() {
        spec_cancel_deliversCancelledOnceAndPromptly()
    }

    func test_get_failsWithTimeoutWhenTheHeadersNeverEnd() {
        spec_get_failsWithTimeoutWhenTheHeadersNeverEnd()
    }

    func test_get_fractionalTimeoutLetsAFasterResponseThrough() throws {
        try spec_get_fractionalTimeoutLetsAFasterResponseThrough()
    }

    func test_get_followsRedirectsUpToTheLimitAndNamesTheFinalURL() throws {
        try spec_get_followsRedirectsUpToTheLimitAndNamesTheFinalURL()
    }

    func test_get_hasNoFinalURLWhenNotRedirected() throws {
        try spec_get_hasNoFinalURLWhenNotRedirected()
    }

    func test_get_failsWithTooManyRedirectsPastTheLimit() {
        spec_get_failsWithTooManyRedirectsPastTheLimit()
    }

    func test_get_withNoRedirectsAllowedDeliversThe3xxAsTheResponse() throws {
        try spec_get_withNoRedirectsAllowedDeliversThe3xxAsTheResponse()
    }

    func test_get_failsWhenTheDeclaredBodyIsLargerThanTheLimit() {
        spec_get_failsWhenTheDeclaredBodyIsLargerThanTheLimit()
    }

    func test_get_acceptsABodyOfExactlyTheLimit() throws {
        try spec_get_acceptsABodyOfExactlyTheLimit()
    }

    func test_get_stopsReadingAnEndlessBodyWithoutLengthPastTheLimit() throws {
        try spec_get_stopsReadingAnEndlessBodyWithoutLengthPastTheLimit()
    }

    func test_get_deliversNonUTF8AndBinaryBodiesExactly() throws {
        try spec_get_deliversNonUTF8AndBinaryBodiesExactly()
    }

    func test_get_sendsTheOneRequestShape() throws {
        try spec_get_sendsTheOneRequestShape()
    }

    func test_get_decodesGzipAndDeflateBodies() throws {
        try spec_get_decodesGzipAndDeflateBodies()
    }

    func test_get_failsOnACorruptOrCutShortCompressedBody() throws {
        try spec_get_failsOnACorruptOrCutShortCompressedBody()
    }

    func test_get_boundsTheDecodedSizeOfACompressedBody() throws {
        try spec_get_boundsTheDecodedSizeOfACompressedBody()
    }

    func test_get_sendsConditions_andDeliversValidatorsAndA304() throws {
        try spec_get_sendsConditions_andDeliversValidatorsAndA304()
    }
}
