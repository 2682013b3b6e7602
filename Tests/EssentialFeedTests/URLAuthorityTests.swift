import EssentialFeed
import XCTest

final class URLAuthorityTests: XCTestCase {
    func test_text_isWhatFollowsTheSchemeUpToThePath_orAllOfAURLWithoutOne() {
        XCTAssertEqual(URLAuthority.text(of: "http://u:p@h:8/a?b#c"), "u:p@h:8")
        XCTAssertEqual(URLAuthority.text(of: "https://h?x"), "h")
        XCTAssertEqual(URLAuthority.text(of: "proxy.example:3128"), "proxy.example:3128")
    }

    func test_init_splitsAtTheLastAt_andKeepsAnIPv6LiteralsBrackets() {
        let plain = URLAuthority("user:p@ss@host:8080")
        XCTAssertEqual(plain.userInfo, "user:p@ss")
        XCTAssertEqual(plain.host, "host")
        XCTAssertEqual(plain.port, "8080")
        let literal = URLAuthority("[::1]:443")
        XCTAssertNil(literal.userInfo)
        XCTAssertEqual(literal.host, "[::1]")
        XCTAssertEqual(literal.hostName, "::1")
        XCTAssertEqual(literal.port, "443")
        XCTAssertNil(URLAuthority("host").port)
        XCTAssertEqual(URLAuthority("[::1]x").afterHost, "x")
    }
}
