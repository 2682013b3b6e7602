import Dispatch
import EssentialFeedNetwork
import XCTest

/// One GET with `client`, waited for at most `seconds`: its outcome, or a
/// test failure and an `other` failure when none came.
func answer(
    of client: HTTPClient, _ url: String, waiting seconds: Double = 30, file: StaticString = #filePath, line: UInt = #line
) -> Result<HTTPResult, HTTPFailure> {
    let done = DispatchSemaphore(value: 0)
    final class Box: @unchecked Sendable { var result: Result<HTTPResult, HTTPFailure>? }
    let box = Box()
    client.get(url) { box.result = $0; done.signal() }
    XCTAssertEqual(done.wait(timeout: .now() + seconds), .success, "no answer for \(url)", file: file, line: line)
    return box.result ?? .failure(HTTPFailure(.other, "no answer"))
}
