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

    /// The .netrc entry of the host asked, through an http proxy, and a
    /// redirect to another host on the same port: that host is not sent
    /// the first one's password. libcurl (7.88) marks a connection whose
    /// credentials came from .netrc, and a connection to the proxy serves
    /// every host: the redirect reused it and sent alice's password to
    /// evil.example (so does curl 7.88's own `-x` with `--netrc-file -L`).
    /// A later request with its own credentials, on a connection the first
    /// left open, is not sent on to another host either.
    func test_http_throughAProxy_withNetrc_sendsNoPasswordToTheHostARedirectGoesTo() throws {
        let heads = Heads()
        let proxy = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.append(head)
                let ok = head.contains("/first ") ? connection.respond(status: 302, "", headers: "Location: http://evil.example/second\r\n")
                    : connection.respond("via proxy")
                guard ok else { return }
            }
        }
        addTeardownBlock { proxy.stop() }
        let netrc = NSTemporaryDirectory() + "/netrc-\(UUID().uuidString)"
        try "machine feed.example login alice password secret\n".write(toFile: netrc, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: netrc) }
        let client = CurlHTTPClient(timeout: 5, netrcFile: netrc, proxies: ProxySettings(environment: ["http_proxy": "http://127.0.0.1:\(proxy.port)"]))
        for url in ["http://feed.example/first", "http://bob:pw@other.example/first"] {
            XCTAssertEqual(try answer(of: client, url).get().status, 200)
        }
        let all = heads.all
        XCTAssertEqual(all.count, 4, "\(all)")
        guard all.count == 4 else { return }
        XCTAssertTrue(all[0].hasPrefix("GET http://feed.example/first ") && all[0].contains("Authorization: Basic YWxpY2U6c2VjcmV0\r\n"), all[0])
        XCTAssertTrue(all[1].hasPrefix("GET http://evil.example/second "), all[1])
        XCTAssertFalse(all[1].contains("Authorization:"), all[1])
        XCTAssertTrue(all[2].hasPrefix("GET http://other.example/first ") && all[2].contains("Authorization: Basic Ym9iOnB3\r\n"), all[2])
        XCTAssertFalse(all[3].contains("Authorization:"), all[3])
    }

    /// libcurl keeps the proxy a transfer starts with for all its
    /// redirects: an https request redirected to http sent that plain
    /// request, and the password .netrc has for its host, to the https
    /// proxy (found by the hunt), and an http one redirected to https asked
    /// the http proxy for a tunnel. A redirect across schemes goes through
    /// its own scheme's proxy, or none.
    func test_aRedirectToTheOtherScheme_goesThroughThatSchemesProxy() throws {
        let (proxy, heads) = try proxy()
        let closed = try RawSocketServer { _ in }
        let closedPort = closed.port
        closed.stop()
        // http through the proxy, redirected to https, for which there is none: direct (refused).
        let redirecting = try RawSocketServer { connection in
            while connection.readRequest() != nil {
                guard connection.respond(status: 302, "", headers: "Location: https://bob:pw@127.0.0.1:\(closedPort)/next\r\n") else { return }
            }
        }
        defer { redirecting.stop() }
        let httpOnly = ProxySettings(environment: ["http_proxy": "http://127.0.0.1:\(redirecting.port)"])
        guard case let .failure(direct) = answer(of: CurlHTTPClient(timeout: 5, proxies: httpOnly), "http://feed.example/first") else {
            return XCTFail("nothing listens where the redirect leads")
        }
        XCTAssertEqual(direct.message, "connection refused", "not a tunnel through the http proxy")

        // http direct, redirected to https, which has a proxy: a tunnel is asked of it.
        let origin = try RawSocketServer { connection in
            while connection.readRequest() != nil {
                guard connection.respond(status: 301, "", headers: "Location: https://feed.example/next\r\n") else { return }
            }
        }
        defer { origin.stop() }
        let httpsOnly = ProxySettings(environment: ["https_proxy": "http://127.0.0.1:\(proxy.port)"])
        guard case let .failure(tunnel) = answer(of: CurlHTTPClient(timeout: 5, proxies: httpsOnly), origin.base + "/first") else {
            return XCTFail("the proxy opens no tunnel")
        }
        XCTAssertTrue(tunnel.message.hasPrefix("proxy 127.0.0.1:\(proxy.port): "), tunnel.message)
        XCTAssertEqual(heads.all.first?.split(separator: "\r\n").first, "CONNECT feed.example:443 HTTP/1.1")

        // Within a scheme, libcurl follows as ever; across, the redirects are counted as one.
        let chain = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                let ok = head.hasPrefix("GET /a ") ? connection.respond(status: 302, "", headers: "Location: /b\r\n")
                    : head.hasPrefix("GET /b ") ? connection.respond(status: 302, "", headers: "Location: https://feed.example/c\r\n")
                    : connection.respond("?")
                guard ok else { return }
            }
        }
        defer { chain.stop() }
        let twoAllowed = CurlHTTPClient(timeout: 5, maxRedirects: 2, proxies: httpsOnly)
        guard case let .failure(tooMany) = answer(of: twoAllowed, chain.base + "/a") else { return XCTFail("a third redirect is one too many") }
        XCTAssertTrue(tooMany.message.hasPrefix("proxy 127.0.0.1:\(proxy.port): "), "two redirects, the second to https: \(tooMany.message)")
        let oneAllowed = CurlHTTPClient(timeout: 5, maxRedirects: 1, proxies: httpsOnly)
        guard case let .failure(stopped) = answer(of: oneAllowed, chain.base + "/a") else { return XCTFail("the second redirect is one too many") }
        XCTAssertEqual(stopped.reason, .tooManyRedirects, stopped.message)
    }

    /// The request's next hop is next in line: it joined the back of the
    /// queue, behind requests that began after it (found in review).
    func test_aRedirectToTheOtherScheme_goesOnBeforeTheRequestsWaiting() throws {
        let (proxy, _) = try proxy()
        let origin = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                if head.hasPrefix("GET /slow ") { usleep(800_000) }
                let ok = head.hasPrefix("GET /first ") ? connection.respond(status: 301, "", headers: "Location: https://feed.example/next\r\n")
                    : connection.respond("slow")
                guard ok else { return }
            }
        }
        defer { origin.stop() }
        let client = CurlHTTPClient(timeout: 10, maxConnectionsPerHost: 1, proxies: ProxySettings(environment: ["https_proxy": "http://127.0.0.1:\(proxy.port)"]))
        let order = Heads()
        let done = DispatchGroup()
        for path in ["/first", "/slow"] {
            done.enter()
            client.get(origin.base + path) { _ in order.append(path); done.leave() }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.all, ["/first", "/slow"])
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
