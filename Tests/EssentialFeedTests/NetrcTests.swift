import XCTest
import EssentialFeed

final class NetrcTests: XCTestCase {
    func test_credentials_ofAMachine_andTheDefaultForOtherHosts() {
        let netrc = Netrc(parsing: """
            machine feed.example.com login alice password secret
            machine other.example.com
              login bob
              password "two words"
            default login anonymous password guest
            """)
        XCTAssertEqual(netrc.credentials(forHost: "feed.example.com"), .init(login: "alice", password: "secret"))
        XCTAssertEqual(netrc.credentials(forHost: "FEED.example.COM"), .init(login: "alice", password: "secret"))
        XCTAssertEqual(netrc.credentials(forHost: "other.example.com"), .init(login: "bob", password: "two words"))
        XCTAssertEqual(netrc.credentials(forHost: "127.0.0.1"), .init(login: "anonymous", password: "guest"))
        XCTAssertEqual(netrc.authorization(forHost: "feed.example.com"), "Basic YWxpY2U6c2VjcmV0")
    }

    func test_parsing_skipsMacrosCommentsAndAccounts_andKeepsTheFirstEntryOfAHost() {
        let netrc = Netrc(parsing: """
            # my hosts
            macdef init
            cd /pub
            machine not.a.machine login x password y

            machine h account acct login a password "p\\"q\\\\r"
            machine h login second password second
            """)
        XCTAssertEqual(netrc.credentials(forHost: "not.a.machine"), nil)
        XCTAssertEqual(netrc.credentials(forHost: "h"), .init(login: "a", password: #"p"q\r"#))
        XCTAssertEqual(netrc.machines.count, 1)
    }

    func test_credentials_ofAnUnknownHostWithoutDefault_isNil() {
        XCTAssertNil(Netrc(parsing: "machine h login a password b").credentials(forHost: "k"))
        XCTAssertNil(Netrc(parsing: "").authorization(forHost: "k"))
        XCTAssertNil(Netrc(parsing: "machine").credentials(forHost: "k"))
    }

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
