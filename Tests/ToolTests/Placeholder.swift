import XCTest
final class ToolTestsPlaceholder: XCTestCase { func test_placeholder() {} }
