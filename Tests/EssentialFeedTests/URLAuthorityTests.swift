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

    /// Split at bytes, as libcurl splits: a delimiter that a combining mark
    /// joins into one character is still the delimiter (read as
    /// characters, "@\u{301}" was no "@" and the whole was the host).
    func test_init_splitsAtTheDelimitersBytes_evenWhereAMarkJoinsThemIntoOneCharacter() {
        let joined = URLAuthority("user@\u{301}host:8\u{301}")
        XCTAssertEqual(joined.userInfo, "user")
        XCTAssertEqual(joined.host.utf8.count, "\u{301}host".utf8.count)
        XCTAssertEqual(joined.port.map { Array($0.utf8) }, Array("8\u{301}".utf8))
        XCTAssertFalse(joined.isUsable, "a port of digits only")
        XCTAssertEqual(URLAuthority.text(of: "http://h/\u{301}x"), "h")
        XCTAssertEqual(URLAuthority("[::1]\u{301}").hostName, "::1")
        XCTAssertTrue(URLAuthority("[fe80::1%25eth0]:443").isUsable)
        XCTAssertFalse(URLAuthority("[fe80::g]").isUsable)
    }
}
