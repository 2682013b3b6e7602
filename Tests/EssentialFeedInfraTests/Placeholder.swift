import XCTest
final class EssentialFeedInfraTestsPlaceholder: XCTestCase { func test_placeholder() {} }
