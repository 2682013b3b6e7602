import Dispatch
import EssentialFeed

/// `HTTPClient` for `http://` URLs on POSIX sockets: HTTP/1.1 GET with
/// keep-alive connections, written for feed-fetch's many small requests
/// to one host, and for servers that misbehave (a connection closed in the
/// middle of a response head is `connectionLost`, never a crash).
///
/// It keeps the promises of ``CurlHTTPClient``, with the same
/// failures and messages: the whole request, redirects and the wait for a
/// connection included, is bounded by `timeout`; up to `maxRedirects`
/// redirects (301, 302, 303, 305, 307, 308 with a `Location`, relative or
/// absolute) are followed and one more is `tooManyRedirects`, except that
/// with `maxRedirects` 0 the 3xx itself is the response; a body longer than
/// `maxBodyBytes`, by its `Content-Length` or as it arrives, stops the
/// transfer at once (`bodyTooLarge`); a body cut short of its
/// `Content-Length`, or of its last chunk, is `connectionLost`.
///
/// Requests: `GET` with `Host`, `User-Agent` and ``RequestHeaders``'
/// `Accept` and `Accept-Encoding` (gzip, deflate), as ``CurlHTTPClient``
/// sends; `user:password@` in a URL (else the `.netrc` entry of its host)
/// becomes a `Basic` `Authorization`. A `gzip` or `deflate` body is
/// decoded as it arrives (``Inflater``), and `maxBodyBytes` bounds the
/// decoded size. Responses: HTTP/1.0 or 1.1, heads up to
/// ``headLimit`` bytes, parsed strictly (``HTTPResponseHead``; anything
/// else is `badResponse`), 1xx heads skipped, bodies framed by
/// `Content-Length`, `Transfer-Encoding: chunked` or the end of the
/// connection; 204 and 304 have none.
///
/// Proxies: a request whose host ``ProxySettings`` does not exempt goes
/// to the `http_proxy` (or `all_proxy`) in absolute form (`GET
/// http://host/path HTTP/1.1`), with a `Proxy-Authorization` for the
/// proxy URL's `user:password@`; a failure to reach the proxy names it
/// (`proxy HOST:PORT: connection refused`), never its password.
///
/// Connections: host names are resolved with `getaddrinfo` (every address
/// is tried in turn, IPv6 literals in brackets work) and the connections
/// kept open per host and port, at most `maxConnectionsPerHost` of them
/// (idle or in use; a request beyond waits for one). A request on an idle
/// connection that the server closed meanwhile (closed or reset before any
/// byte of the response) is sent once more on a new connection: GET is
/// safe to repeat.
///
/// Other schemes (https) go to `fallback`, e.g. a ``CurlHTTPClient``:
/// the URLs given, and redirects from http to https. The time left of this
/// request's bound still applies to such a redirect (the fallback's task is
/// cancelled at the deadline), but the fallback counts its own redirects
/// with its own limit, so a chain that crosses from http to https may
/// follow up to that limit more. Without a fallback, such a URL fails
/// (`other`, "unsupported URL: no client for https").
///
/// Threads: each request runs on a thread of a shared set (as many as
/// requests run at once), with non-blocking sockets waiting in `poll`
/// until the deadline; completions are called on that thread, or, for a
/// cancellation or a timeout decided from outside, on a global queue.
/// Each completion is called exactly once.
public final class SocketHTTPClient: HTTPClient {
    /// The most redirects a client can be told to follow (either client).
    public static let maximumRedirects = 20
    /// The largest response head accepted, in bytes.
    public static let headLimit = 64 << 10

    private let configuration: Configuration
    private let pool: ConnectionPool
    private let fallback: (any HTTPClient)?

    struct Configuration: Sendable {
        var timeout: Double
        var maxRedirects: Int
        var maxBodyBytes: Int
        var userAgent: String
        var netrc: Netrc?
        var proxies: ProxySettings
        var spilling: BodySpilling?
    }

    /// - Parameters:
    ///   - timeout: the bound on each whole request, in seconds.
    ///   - maxConnectionsPerHost: connections open to one host and port at most.
    ///   - maxRedirects: redirects followed at most, 0 to 20.
    ///   - maxBodyBytes: the largest body accepted.
    ///   - userAgent: the `User-Agent` field.
    ///   - netrc: credentials by host, for URLs without `user:password@`.
    ///   - proxies: the proxies to go through (``ProxySettings``), http:// ones.
    ///   - fallback: the client for other schemes than http (https).
    public init(
        timeout: Double = 30, maxConnectionsPerHost: Int = 8, maxRedirects: Int = 5, maxBodyBytes: Int = 64 << 20,
        userAgent: String = RequestHeaders.defaultUserAgent, netrc: Netrc? = nil, proxies: ProxySettings = .none,
        spilling: BodySpilling? = nil, fallback: (any HTTPClient)? = nil
    ) {
        precondition((0...Self.maximumRedirects).contains(maxRedirects), "maxRedirects out of range")
        precondition(maxBodyBytes >= 0, "maxBodyBytes is negative")
        precondition(timeout > 0, "timeout is not positive")
        configuration = Configuration(
            timeout: timeout, maxRedirects: maxRedirects, maxBodyBytes: maxBodyBytes, userAgent: userAgent, netrc: netrc, proxies: proxies,
            spilling: spilling)
        pool = ConnectionPool(limit: maxConnectionsPerHost)
        self.fallback = fallback
        Self.startDispatchTimers
    }

    /// libdispatch opens its timers' descriptors (epoll, eventfd, timerfd)
    /// at the first timer and traps when it cannot: a request's deadline
    /// (`SocketHTTPRequest.watch`) met with every descriptor in use would
    /// end the process. So the first client arms a timer at once, while
    /// there are descriptors, and every request's timer finds them open.
    private static let startDispatchTimers: Void = {
        DispatchQueue.global().asyncAfter(deadline: .now()) {}
    }()

    deinit {
        pool.closeAll()
    }

    @discardableResult
    public func get(_ asked: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) -> HTTPClientTask {
        if let fallback, SocketHTTPURL.hasScheme("https", asked.url) {
            return fallback.get(asked, completion: completion)
        }
        let request = SocketHTTPRequest(asked, deadline: Deadline(timeout: configuration.timeout), pool: pool, completion: completion)
        let configuration = configuration, pool = pool, fallback = fallback
        WorkerThreads.shared.run {
            SocketExchange(request: request, configuration: configuration, pool: pool, fallback: fallback).run()
        }
        return request
    }
}
