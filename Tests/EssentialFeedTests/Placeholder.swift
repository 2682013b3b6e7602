import XCTest
final class EssentialFeedTestsPlaceholder: XCTestCase { func test_placeholder() {} }
