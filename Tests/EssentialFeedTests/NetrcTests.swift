import XCTest
import EssentialFeed

final class NetrcTests: XCTestCase {
    func test_path_isNETRCElseTheHomeDirectorysNetrc() {
        XCTAssertEqual(Netrc.path(environment: ["NETRC": "/x/n", "HOME": "/home/a"]), "/x/n")
        XCTAssertEqual(Netrc.path(environment: ["HOME": "/home/a"]), "/home/a/.netrc")
        XCTAssertEqual(Netrc.path(environment: ["HOME": "/"]), "/.netrc")
        XCTAssertNil(Netrc.path(environment: [:]))
    }

    func test_base64_encodesWithPadding() {
        XCTAssertEqual(Base64.encode([]), "")
        XCTAssertEqual(Base64.encode(Array("f".utf8)), "Zg==")
        XCTAssertEqual(Base64.encode(Array("fo".utf8)), "Zm8=")
        XCTAssertEqual(Base64.encode(Array("foo".utf8)), "Zm9v")
        XCTAssertEqual(Base64.encode([0xFF, 0xFE, 0xFD, 0x00]), "//79AA==")
    }
}
