import Foundation
import XCTest

/// feed-fetch behind a proxy, read from the environment as curl reads it.
final class ProxyToolTests: XCTestCase {
    /// A forward proxy on 127.0.0.1 that notes each request head and
    /// answers it itself with `answer`, as the origin would.
    private func proxy(answer: String) throws -> (RawSocketServer, Heads) {
        let heads = Heads()
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.append(head)
                guard connection.respond(answer) else { return }
            }
        }
        addTeardownBlock { server.stop() }
        return (server, heads)
    }

    func test_fetch_goesThroughHttpProxy_andNeverShowsItsPassword() throws {
        let page = #"{"items":[{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC53AA6","image":"http://feed.example/image-0"}]}"#
        let (proxy, heads) = try proxy(answer: page)
        let run = sh(#"FEED_LOG=debug feed-fetch http://feed.example/v1/feed | feed-map"#,
                     environment: ["http_proxy": "http://alice:s3cret@127.0.0.1:\(proxy.port)"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().first?["url"] as? String, "http://feed.example/image-0")
        XCTAssertTrue(heads.all.first?.hasPrefix("GET http://feed.example/v1/feed HTTP/1.1\r\n") == true, "\(heads.all)")
        XCTAssertTrue(heads.all.first?.contains("Proxy-Authorization: Basic YWxpY2U6czNjcmV0\r\n") == true, "\(heads.all)")
        XCTAssertFalse(run.stderr.contains("s3cret"), run.stderr)
    }

    /// An https URL (no https proxy: direct) redirected to http: the plain
    /// request goes through http_proxy, as curl sends it. libcurl kept the
    /// first hop's proxy (none) for the redirect, so the request went
    /// direct; with https_proxy alone, it went to the https proxy, with
    /// the password .netrc has for its host (found by the hunt).
    func test_fetch_redirectedFromHttpsToHttp_goesThroughTheHttpProxy() throws {
        let (proxy, heads) = try proxy(answer: "via the http proxy")
        let nginx = try Nginx(test: self, locations: "location = /go { return 302 http://feed.example/page; }", tls: true)
        let run = sh(#"feed-fetch "$B/go""#, environment: ["B": nginx.tlsBase, "SSL_CERT_FILE": nginx.certificate, "http_proxy": "http://127.0.0.1:\(proxy.port)"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let record = try XCTUnwrap(run.records().first)
        XCTAssertEqual(record["status"] as? Int, 200)
        XCTAssertEqual(record["final_url"] as? String, "http://feed.example/page")
        XCTAssertEqual(record["body_base64"] as? String, Data("via the http proxy".utf8).base64EncodedString())
        XCTAssertTrue(heads.all.first?.hasPrefix("GET http://feed.example/page HTTP/1.1\r\n") == true, "\(heads.all)")
        XCTAssertEqual(nginx.accessLog.map { String($0.prefix(4)) }, ["302 "])
    }

    /// A proxy libcurl cannot use reaches no network: it was said as
    /// "connection refused" (a proxy of an address that listens) and
    /// retried (found by the hunt).
    func test_fetch_throughAProxyLibcurlCannotUse_saysWhy_andIsNotRetried() throws {
        for (proxy, said) in [("ftp://alice:s3cret@127.0.0.1:9", "proxy ftp://alice:***@127.0.0.1:9: a scheme libcurl has no proxy for"),
                              ("http://[::1", "proxy http://[::1: not a proxy URL")] {
            let run = sh("FEED_LOG=info feed-fetch --retry 2 http://feed.example/v1/feed", environment: ["http_proxy": proxy])
            XCTAssertEqual(run.status, 69, run.stderr)
            XCTAssertEqual(run.records().first?["message"] as? String, said)
            XCTAssertFalse(run.stderr.contains("retry") || run.stderr.contains("s3cret") || run.out.contains("s3cret"), run.stderr)
        }
    }

    /// An address in a block of no_proxy goes direct (libcurl reads the
    /// blocks): a failure there was said as the proxy's (found by the hunt).
    func test_fetch_toAnAddressInANoProxyBlock_failsAsADirectRequest() throws {
        let closed = try RawSocketServer { _ in }
        let port = closed.port
        closed.stop()
        let run = sh("feed-fetch http://127.0.0.1:\(port)/x", environment: ["http_proxy": "http://127.0.0.1:9", "no_proxy": "127.0.0.0/8"])
        XCTAssertEqual(run.status, 69, run.stderr)
        XCTAssertEqual(run.records().first?["message"] as? String, "connection refused")
    }

    func test_fetch_whenTheProxyIsDown_namesTheProxy() throws {
        let run = sh("feed-fetch http://feed.example/v1/feed", environment: ["http_proxy": "http://alice:s3cret@127.0.0.1:9"])
        XCTAssertEqual(run.status, 69, run.stderr)
        XCTAssertEqual(run.records().first?["message"] as? String, "proxy 127.0.0.1:9: connection refused")
        XCTAssertEqual(run.stderr, "feed-fetch: http://feed.example/v1/feed: proxy 127.0.0.1:9: connection refused\n")
        XCTAssertFalse(run.out.contains("s3cret"))
    }

    func test_fetch_noProxy_andUpperCaseHTTP_PROXY_goDirect() throws {
        let server = try Served(test: self)
        for environment in [["http_proxy": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1"], ["HTTP_PROXY": "http://127.0.0.1:9"]] {
            let run = sh(#"feed-fetch "$B/v1/feed?limit=1" | feed-map"#, environment: environment.merging(["B": server.base]) { a, _ in a })
            XCTAssertEqual(run.status, 0, "\(environment): \(run.stderr)")
            XCTAssertEqual(run.records().count, 1)
        }
    }
}
