import Dispatch
import EssentialFeedNetwork
import Foundation
import XCTest

/// Both clients through a small forward proxy on 127.0.0.1 (a raw server
/// that notes each request head and answers it itself).
final class ProxyClientTests: XCTestCase {
    /// A proxy that answers every request "via proxy" (a CONNECT with 403).
    private func proxy() throws -> (RawSocketServer, Heads) {
        let heads = Heads()
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.append(head)
                let ok = head.hasPrefix("CONNECT ") ? connection.respond(status: 403, "no tunnels") : connection.respond("via proxy")
                guard ok else { return }
            }
        }
        addTeardownBlock { server.stop() }
        return (server, heads)
    }

    func test_http_goesThroughTheProxyInAbsoluteForm_withProxyAuthorization() throws {
        let (proxy, heads) = try proxy()
        let settings = ProxySettings(environment: ["http_proxy": "http://alice:s%40cret@127.0.0.1:\(proxy.port)"])
        let result = try answer(of: CurlHTTPClient(timeout: 5, proxies: settings), "http://feed.example/v1/feed?limit=1#top").get()
        XCTAssertEqual(String(decoding: result.body, as: UTF8.self), "via proxy")
        let lines = try XCTUnwrap(heads.all.first).split(separator: "\r\n").map(String.init)
        XCTAssertEqual(lines.first, "GET http://feed.example/v1/feed?limit=1 HTTP/1.1")
        XCTAssertTrue(lines.contains("Host: feed.example"), "\(lines)")
        XCTAssertTrue(lines.contains("Proxy-Authorization: Basic YWxpY2U6c0BjcmV0"), "\(lines)")
    }

    func test_noProxy_goesDirect() throws {
        let (proxy, heads) = try proxy()
        let origin = try RawSocketServer.keepAlive("direct")
        defer { origin.stop() }
        let settings = ProxySettings(environment: ["http_proxy": "127.0.0.1:\(proxy.port)", "no_proxy": "localhost,127.0.0.1"])
        let result = try answer(of: CurlHTTPClient(timeout: 5, proxies: settings), origin.base + "/a").get()
        XCTAssertEqual(String(decoding: result.body, as: UTF8.self), "direct")
        XCTAssertTrue(heads.all.isEmpty)
    }

    func test_aProxyThatCannotBeReached_isNamedInTheFailure_withoutItsPassword() throws {
        let settings = ProxySettings(environment: ["http_proxy": "http://alice:secret@127.0.0.1:9", "https_proxy": "http://alice:secret@127.0.0.1:9"])
        for client in [CurlHTTPClient(timeout: 5, proxies: settings)] as [HTTPClient] {
            guard case let .failure(failure) = answer(of: client, "http://feed.example/v1/feed") else { return XCTFail("no proxy, no response") }
            XCTAssertEqual(failure.reason, .refused)
            XCTAssertEqual(failure.message, "proxy 127.0.0.1:9: connection refused")
        }
    }

    func test_https_asksTheProxyForATunnel_withProxyAuthorization() throws {
        let (proxy, heads) = try proxy()
        let settings = ProxySettings(environment: ["https_proxy": "http://alice:s%40cret@127.0.0.1:\(proxy.port)"])
        guard case let .failure(failure) = answer(of: CurlHTTPClient(timeout: 5, proxies: settings), "https://feed.example/v1/feed") else {
            return XCTFail("the proxy opens no tunnel")
        }
        XCTAssertTrue(failure.message.hasPrefix("proxy 127.0.0.1:\(proxy.port): "), failure.message)
        XCTAssertTrue(failure.message.contains("403"), failure.message)
        XCTAssertFalse(failure.message.contains("secret"))
        let lines = try XCTUnwrap(heads.all.first).split(separator: "\r\n").map(String.init)
        XCTAssertEqual(lines.first, "CONNECT feed.example:443 HTTP/1.1")
        XCTAssertTrue(lines.contains("Proxy-Authorization: Basic YWxpY2U6c0BjcmV0"), "\(lines)")
    }

    func test_curl_ignoresTheEnvironmentItWasNotGiven() throws {
        // libcurl would read http_proxy itself; the client names the proxy (none here), so it goes direct.
        let origin = try RawSocketServer.keepAlive("direct")
        defer { origin.stop() }
        setenv("http_proxy", "http://127.0.0.1:9", 1)
        defer { unsetenv("http_proxy") }
        let result = try answer(of: CurlHTTPClient(timeout: 5), origin.base + "/a").get()
        XCTAssertEqual(String(decoding: result.body, as: UTF8.self), "direct")
    }
}
