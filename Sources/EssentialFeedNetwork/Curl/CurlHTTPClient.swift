import CCurl
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import EssentialFeed

/// The HTTP client of feed-fetch, for every URL: the system's libcurl,
/// called directly (no Foundation), through one multi handle
/// (``CurlMulti``): requests run as they come, at most
/// `maxConnectionsPerHost` at once, on connections kept open per host, over
/// HTTP/2 where a TLS server offers it and HTTP/1.1 otherwise.
///
/// libcurl follows redirects itself (http and https only, at most
/// `maxRedirects`; 0: the 3xx is the response), bounds the whole request,
/// the wait for its turn included, by `timeout`, and refuses a body
/// declared larger than `maxBodyBytes` (a body without a length is cut off
/// past it, as it is decoded). A URL's `user:password@`, else the entry of
/// its host in `netrcFile`, is sent as `Basic` authorization, to that host
/// only.
/// The body is decoded here (``Inflater``, strict: a gzip stream cut short
/// is an error, which libcurl's decoder lets pass) and spooled past 1 MiB
/// (``BodySpilling``).
public final class CurlHTTPClient: HTTPClient, @unchecked Sendable {
    /// The most redirects a client can be told to follow.
    public static let maximumRedirects = 20

    private let timeout: Double
    private let maxRedirects: Int
    private let maxBodyBytes: Int
    private let userAgent: String
    private let netrcFile: String?
    private let proxies: ProxySettings
    private let authorities: CertificateAuthorities
    private let spilling: BodySpilling?
    private let engine: CurlMulti
    /// A request's failure at its deadline, made once.
    private let timedOut: HTTPFailure

    public init(
        timeout: Double = 30, maxConnectionsPerHost: Int = 8, maxRedirects: Int = 5, maxBodyBytes: Int = 64 << 20,
        userAgent: String = RequestHeaders.defaultUserAgent, netrcFile: String? = nil, proxies: ProxySettings = .none,
        authorities: CertificateAuthorities = .system, spilling: BodySpilling? = nil
    ) {
        self.spilling = spilling
        precondition((0...Self.maximumRedirects).contains(maxRedirects), "maxRedirects out of range")
        precondition(maxBodyBytes >= 0, "maxBodyBytes is negative")
        precondition(timeout > 0, "timeout is not positive")
        self.timeout = timeout
        self.maxRedirects = maxRedirects
        self.maxBodyBytes = maxBodyBytes
        self.userAgent = userAgent
        self.netrcFile = netrcFile
        self.proxies = proxies
        self.authorities = authorities
        engine = CurlMulti(parallel: maxConnectionsPerHost)
        timedOut = HTTPFailure(.timedOut, "timed out after \(secondsText(timeout)) s")
    }

    @discardableResult
    public func get(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) -> HTTPClientTask {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        guard proxyDependsOnScheme else {
            // No redirect can need another proxy: the transfer is the
            // request (the hops' three allocations and lock a request cost
            // 1,000 small files about 6% of their time).
            let transfer = CurlTransfer(request, limit: maxBodyBytes, spilling: spilling, completion: completion)
            transfer.redirects = maxRedirects
            start(transfer, deadline: deadline, first: false)
            return transfer
        }
        let hops = Hops()
        send(request, redirects: maxRedirects, deadline: deadline, hops: hops, completion: completion)
        return hops
    }

    /// Whether a redirect to the other scheme needs another proxy than its
    /// request's (`http_proxy` and `https_proxy` differ, or one is unset).
    /// libcurl keeps the proxy a transfer starts with for all its redirects:
    /// an https request redirected to http sent that plain request, and the
    /// password .netrc has for its host, to the https proxy (found by the
    /// hunt); an http one redirected to https asked the http proxy for a
    /// tunnel. Such a redirect ends the transfer, and the request goes on
    /// as a transfer of its own, through its scheme's proxy (`send`).
    private var proxyDependsOnScheme: Bool { proxies.http != proxies.https }

    /// A request and the transfers its redirects across schemes become:
    /// cancelling it cancels the one in flight. (Held weakly: the engine
    /// holds a transfer while it runs, and the transfer's completion holds
    /// this; held strongly, every request's transfer, body and spool file
    /// were kept for good.)
    private final class Hops: HTTPClientTask, @unchecked Sendable {
        private let lock = Lock()
        private weak var current: CurlTransfer?
        private var cancelled = false

        func cancel() {
            let transfer: CurlTransfer? = lock.withLock {
                cancelled = true
                return current
            }
            transfer?.cancel()
        }

        /// Makes `transfer` the one in flight; false once the request is cancelled.
        func begin(_ transfer: CurlTransfer) -> Bool {
            lock.withLock {
                current = transfer
                return !cancelled
            }
        }
    }

    /// Sends `request`, which may follow `redirects` more, by `deadline`
    /// (the whole request's, its earlier hops included). A redirect across
    /// schemes (see `proxyDependsOnScheme`) goes on from where it leads,
    /// without the URL's user information (its password was never for
    /// that origin; the new host's own .netrc entry is sent), and with the
    /// same validators, as libcurl sends them on every redirect: next in
    /// line, by the deadline as the engine kept it (moved on for the time a
    /// slow reader held it up).
    private func send(_ request: HTTPRequest, redirects: Int, deadline: UInt64, hops: Hops, redirected: Bool = false,
                      completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) {
        let box = CrossingBox()
        let transfer = CurlTransfer(request, limit: maxBodyBytes, spilling: spilling) { [self] result in
            // (Cancelled meanwhile, it goes no further. The transfer's
            // deadline was last written by the engine's thread, before the
            // crossing was set under the transfer's lock.)
            if case let .failure(failure) = result, failure.reason != .cancelled, let ended = box.transfer, let crossing = ended.crossing {
                box.transfer = nil
                let next = HTTPRequest(crossing.url, ifNoneMatch: request.ifNoneMatch, ifModifiedSince: request.ifModifiedSince)
                let kept = ended.deadline == .max ? deadline : ended.deadline
                send(next, redirects: redirects - crossing.redirects, deadline: kept, hops: hops, redirected: true, completion: completion)
                return
            }
            box.transfer = nil
            completion(redirected ? result.map { $0.answered(from: $0.finalURL ?? request.url) } : result)
        }
        box.transfer = transfer
        transfer.redirects = redirects
        guard hops.begin(transfer) else { return transfer.cancel() }
        start(transfer, deadline: deadline, first: redirected)
    }

    /// Gives `transfer` to the engine, to end by `deadline` (`first`: before
    /// the requests waiting).
    private func start(_ transfer: CurlTransfer, deadline: UInt64, first: Bool) {
        let job = CurlMulti.Job(
            transfer: transfer,
            configure: { [self] easy in
                // Its deadline, which counts the wait for its turn, is the engine's to keep.
                guard !transfer.isDecided else { return false }
                configure(easy, transfer)
                return true
            },
            end: { [self] easy, code in outcome(of: easy, code, transfer) },
            deadline: deadline, timedOut: timedOut)
        if !engine.add(job, first: first) { transfer.finish(.failure(HTTPFailure(.other, "cannot start libcurl"))) }
    }

    /// The transfer whose completion asks it where a redirect crossed to.
    private final class CrossingBox: @unchecked Sendable {
        var transfer: CurlTransfer?
    }

    /// Sets `curl` up for `transfer`.
    private func configure(_ curl: UnsafeMutableRawPointer, _ transfer: CurlTransfer) {
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        feed_curl_setopt_string(curl, CURLOPT_URL, transfer.url)
        feed_curl_setopt_long(curl, CURLOPT_NOSIGNAL, 1)
        // A proxy's answer to CONNECT (https through it) is not the
        // server's response: libcurl keeps it from the header callback.
        feed_curl_setopt_long(curl, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        feed_curl_setopt_string(curl, CURLOPT_PROTOCOLS_STR, "http,https")
        // Where the proxy depends on the scheme, a redirect to the other one
        // ends the transfer (see `proxyDependsOnScheme`).
        let scheme = URLText.scheme(of: transfer.url)
        feed_curl_setopt_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, !proxyDependsOnScheme ? "http,https" : scheme == "https" ? "https" : "http")
        feed_curl_setopt_long(curl, CURLOPT_FOLLOWLOCATION, maxRedirects > 0 ? 1 : 0)
        transfer.followsRedirects = maxRedirects > 0
        feed_curl_setopt_long(curl, CURLOPT_MAXREDIRS, transfer.redirects)
        // The whole request's bound is the engine's (``CurlMulti``), which
        // does not count the time a slow reader of the output holds it up:
        // libcurl's own is off.
        feed_curl_setopt_long(curl, CURLOPT_TIMEOUT_MS, 0)
        // The body's limit is the transfer's (``CurlTransfer``): as decoded,
        // and at once from the Content-Length of a body kept as sent.
        feed_curl_setopt_string(curl, CURLOPT_USERAGENT, userAgent)
        feed_curl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, transfer.errors)
        // Over TLS, a transfer waits for a connection it can multiplex on
        // (HTTP/2, known from the handshake) rather than opening one more
        // to the same server. Not over plain http: there libcurl learns
        // that a connection is HTTP/1.1 only from its first response, so
        // every request to the host waited for that one, and a server
        // slow to answer it held (and timed out) all the others.
        if scheme == "https" { feed_curl_setopt_long(curl, CURLOPT_PIPEWAIT, 1) }
        // Reads of 100 KiB, as the curl tool makes them (libcurl's own are
        // 16 KiB): 100 images of 200 KiB took 1.4x as long with those.
        feed_curl_setopt_long(curl, CURLOPT_BUFFERSIZE, 100 << 10)
        feed_curl_setopt_write(curl, CURLOPT_WRITEFUNCTION, { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
            return transfer.receive(bytes) ? size * count : 0
        })
        feed_curl_setopt_pointer(curl, CURLOPT_WRITEDATA, context)
        feed_curl_setopt_long(curl, CURLOPT_NOPROGRESS, 0)
        feed_curl_setopt_progress(curl, CURLOPT_XFERINFOFUNCTION, { context, _, downloaded, _, _ in
            Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue().progress(downloaded: Int64(downloaded)) ? 0 : 1
        })
        feed_curl_setopt_pointer(curl, CURLOPT_XFERINFODATA, context)
        feed_curl_setopt_write(curl, CURLOPT_HEADERFUNCTION, { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.header(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        })
        feed_curl_setopt_pointer(curl, CURLOPT_HEADERDATA, context)
        // Sockets are opened here, so that a socket refused for want of
        // descriptors is told from a refused connection (libcurl reports
        // both as CURLE_COULDNT_CONNECT, and its OS error is the last
        // address's).
        feed_curl_setopt_opensocket(curl, { context, _, address in
            guard let address else { return -1 }
            let fd = socket(address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
            if fd < 0, errno == EMFILE || errno == ENFILE {
                Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue().outOfDescriptors = errno
            }
            return fd
        })
        feed_curl_setopt_pointer(curl, CURLOPT_OPENSOCKETDATA, context)
        // The body is decoded by the transfer (`Inflater`), not by libcurl,
        // whose decoder takes a gzip stream cut short without a word.
        // libcurl's own Accept is `*/*`, as RequestHeaders.accept.
        feed_curl_setopt_long(curl, CURLOPT_HTTP_CONTENT_DECODING, 0)
        var headers = curl_slist_append(nil, "Accept-Encoding: \(RequestHeaders.acceptEncoding)")
        for field in transfer.request.conditionFields { headers = curl_slist_append(headers, field) }
        // The proxies as ProxySettings reads them (libcurl's own reading
        // of the environment is switched off by naming one, or "").
        let proxy = proxyURL(for: transfer.url) ?? ""
        feed_curl_setopt_string(curl, CURLOPT_PROXY, proxy)
        if let noProxy = proxies.noProxy { feed_curl_setopt_string(curl, CURLOPT_NOPROXY, noProxy) }
        if let file = authorities.file { feed_curl_setopt_string(curl, CURLOPT_CAINFO, file) }
        if let directory = authorities.directory { feed_curl_setopt_string(curl, CURLOPT_CAPATH, directory) }
        // Credentials of the URL's host from the .netrc file, for a URL
        // without user:password@: libcurl's own reading of it, never sent
        // to another host a redirect goes to.
        if let netrcFile {
            feed_curl_setopt_long(curl, CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
            feed_curl_setopt_string(curl, CURLOPT_NETRC_FILE, netrcFile)
            // Through a proxy, a connection serves one request (each hop of
            // a redirect its own, none kept for another transfer). libcurl
            // (7.88) marks a connection whose credentials came from .netrc
            // as one that may send them after a redirect to another host,
            // and a connection to an http proxy serves every host: a
            // redirect to another host on the same port reused it and was
            // sent the first host's password (curl 7.88's own -x with
            // --netrc-file -L does the same); a later request's own
            // user:password@ went on to the host its redirect named.
            if !proxy.isEmpty { feed_curl_setopt_long(curl, CURLOPT_FORBID_REUSE, 1) }
        }
        transfer.headers = headers
        feed_curl_setopt_pointer(curl, CURLOPT_HTTPHEADER, headers)
    }

    /// The outcome of a transfer libcurl is done with: the response, or why there is none.
    private func outcome(of curl: UnsafeMutableRawPointer, _ code: CURLcode, _ transfer: CurlTransfer) -> Result<HTTPResult, HTTPFailure> {
        if code == CURLE_WRITE_ERROR || code == CURLE_ABORTED_BY_CALLBACK, let failure = transfer.failure { return .failure(failure) }
        guard code == CURLE_OK || (code == CURLE_WRITE_ERROR && transfer.stoppedAtNotModified) else {
            // A socket libcurl could not open for want of descriptors: said as such.
            if let code = transfer.outOfDescriptors, let shortage = HTTPFailure.outOfDescriptors(code, "socket") { return .failure(shortage) }
            var osError = 0
            feed_curl_getinfo_long(curl, CURLINFO_OS_ERRNO, &osError)
            if let shortage = HTTPFailure.outOfDescriptors(Int32(truncatingIfNeeded: osError), "socket") { return .failure(shortage) }
            let detail = String(cString: transfer.errors)
            if code == CURLE_UNSUPPORTED_PROTOCOL, let target = redirectTarget(of: curl) {
                if proxyDependsOnScheme, let crossing = crossing(to: target, transfer) {
                    transfer.crossing = crossing
                    return .failure(HTTPFailure(.other, "redirected to \(URLText.scheme(of: crossing.url) ?? "?")"))
                }
                // A redirect to file:, ftp: and the like, never followed: said as
                // such (it read "Protocol "file" not supported or disabled in libcurl").
                if let scheme = URLText.scheme(of: target.url), !["http", "https"].contains(scheme) {
                    return .failure(HTTPFailure(.badResponse, "bad response: a redirect to a \(scheme): URL (only http and https are followed)"))
                }
            }
            // A body cut short of its length: how much of it came.
            if code == CURLE_PARTIAL_FILE {
                var received: curl_off_t = 0, length: curl_off_t = -1
                feed_curl_getinfo_offset(curl, CURLINFO_SIZE_DOWNLOAD_T, &received)
                feed_curl_getinfo_offset(curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
                if length > 0 { return .failure(HTTPFailure(.connectionLost, "connection lost after \(received) of \(counted(Int(length), "byte"))")) }
            }
            // A head past libcurl's own bounds (100 KiB a line, 300 KiB of
            // heads, 1xx included), which it tells as a lack of memory or a
            // failed read: past the head's bound here too.
            if (code == CURLE_OUT_OF_MEMORY && transfer.isInHead) || detail.contains("response headers") {
                return .failure(HTTPFailure(.badResponse, "bad response: response head larger than \(counted(CurlTransfer.headLimit, "byte"))"))
            }
            // A URL too long for the request head libcurl builds (at most
            // 1 MiB), which it tells as a lack of memory before sending it.
            if code == CURLE_OUT_OF_MEMORY, !transfer.isInHead, !transfer.headEnded, transfer.url.utf8.count > 1 << 19 {
                return .failure(HTTPFailure(.other, "URL of \(counted(transfer.url.utf8.count, "byte")): longer than a request can hold (1 MiB)"))
            }
            return .failure(failure(code, detail: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail, url: transfer.url))
        }
        // A head cut short by the end of the connection, which libcurl takes for a whole one.
        guard transfer.headEnded else { return .failure(HTTPFailure(.connectionLost, "connection lost")) }
        var status = 0
        feed_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status)
        var redirects = 0
        feed_curl_getinfo_long(curl, CURLINFO_REDIRECT_COUNT, &redirects)
        var effective: UnsafeMutablePointer<CChar>?
        feed_curl_getinfo_string(curl, CURLINFO_EFFECTIVE_URL, &effective)
        // libcurl writes a login it took from .netrc into the URL it ended
        // at: a URL asked for without one names none.
        let finalURL = redirects > 0 ? effective.map { text in
            let url = String(cString: text)
            return URLText.hasUserInfo(transfer.url) ? url : URLText.withoutUserInfo(url)
        } : nil
        do throws(HTTPFailure) {
            let body = try transfer.finishBody()
            return .success(HTTPResult(
                status: status, body: body.bytes, finalURL: finalURL,
                retryAfter: transfer.retryAfter, etag: transfer.etag, lastModified: transfer.lastModified, spilled: body.spilled))
        } catch {
            return .failure(error)
        }
    }

    /// The redirect across schemes that ended `transfer`, if `target` is
    /// one: where it leads (without user information), and the redirects
    /// followed up to it, this one included.
    private func crossing(to target: (url: String, redirects: Int), _ transfer: CurlTransfer) -> (url: String, redirects: Int)? {
        guard let to = URLText.scheme(of: target.url), ["http", "https"].contains(to), to != URLText.scheme(of: transfer.url) else { return nil }
        return (URLText.withoutUserInfo(target.url), target.redirects)
    }

    /// Where the redirect that ended a transfer led, and the redirects
    /// followed up to it (this one included); nil when none was followed.
    private func redirectTarget(of curl: UnsafeMutableRawPointer) -> (url: String, redirects: Int)? {
        var redirects = 0
        feed_curl_getinfo_long(curl, CURLINFO_REDIRECT_COUNT, &redirects)
        var effective: UnsafeMutablePointer<CChar>?
        feed_curl_getinfo_string(curl, CURLINFO_EFFECTIVE_URL, &effective)
        guard redirects > 0, let effective else { return nil }
        return (String(cString: effective), redirects)
    }

    /// The proxy for the scheme of `url` (no_proxy is libcurl's to apply, to redirects too).
    private func proxyURL(for url: String) -> String? {
        switch URLText.scheme(of: url) {
        case "https": proxies.https
        case "http": proxies.http
        default: nil
        }
    }

    /// The proxy `url` went through, as a message shows it (host and port).
    private func proxyShown(for url: String) -> String? {
        guard let proxy = proxyURL(for: url), !proxies.bypasses(host: URLText.host(of: url) ?? "") else { return nil }
        return ProxySettings.shown(proxy)
    }

    /// libcurl's result code as the client's failure, for a transfer of `url`.
    func failure(_ code: CURLcode, detail: String, url: String) -> HTTPFailure {
        // A proxy variable libcurl cannot use (a scheme it has no proxy for,
        // text that is no URL): nothing reached the network. It was said as
        // "connection refused" or "cannot resolve host", and retried (found
        // by the hunt). libcurl's text names the proxy's URL: not shown.
        if detail.hasPrefix("Unsupported proxy"), let proxy = proxyURL(for: url) {
            let what = detail.hasPrefix("Unsupported proxy scheme") ? "a scheme libcurl has no proxy for" : "not a proxy URL"
            return HTTPFailure(.other, "proxy \(Secrets.redact(proxy)): \(what)")
        }
        // The proxy would not open a tunnel: a failure of the proxy, named.
        if detail.contains("CONNECT"), let proxy = proxyShown(for: url) {
            return HTTPFailure(code == CURLE_COULDNT_CONNECT ? .refused : .connectionLost, "proxy \(proxy): \(detail)")
        }
        // A chunked body that breaks its framing is the server's fault, not the connection's.
        if detail.contains("chunked") { return HTTPFailure(.badResponse, "bad response: \(detail)") }
        switch code {
        case CURLE_COULDNT_CONNECT:
            if let proxy = proxyShown(for: url) { return HTTPFailure(.refused, "proxy \(proxy): connection refused") }
            return HTTPFailure(.refused, "connection refused")
        case CURLE_COULDNT_RESOLVE_PROXY:
            return HTTPFailure(.cannotResolveHost, "proxy \(proxyShown(for: url) ?? "?"): cannot resolve host")
        case CURLE_COULDNT_RESOLVE_HOST: return HTTPFailure(.cannotResolveHost, "cannot resolve host")
        case CURLE_URL_MALFORMAT: return HTTPFailure(.other, "not a valid URL")
        case CURLE_UNSUPPORTED_PROTOCOL:
            // For an http(s) URL, what libcurl does not support is the response (`ICY 200`, `HTTP/1.1 2x0`).
            if ["http", "https"].contains(URLText.scheme(of: url) ?? "") { return HTTPFailure(.badResponse, "bad response: \(detail)") }
            return HTTPFailure(.other, "unsupported URL")
        case CURLE_OPERATION_TIMEDOUT: return timedOut
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING:
            return HTTPFailure(.connectionLost, "connection lost")
        // libcurl (7.88) sending or reading on a connection it has not set
        // up yet, now and then over HTTP/2 through a proxy's tunnel: "[CONN-12-0]
        // send: no filter connected" was the record's message, and --retry
        // took it for a failure that lasts.
        case CURLE_FAILED_INIT where detail.contains("no filter connected"):
            return HTTPFailure(.connectionLost, "connection lost")
        // The HTTP/2 connection failed as a whole, most often a GOAWAY
        // whose last stream is below this one: a request the server says it
        // did not process, safe to send again (RFC 9113, 6.8), which
        // --retry took for a failure that lasts. (A stream's own error,
        // CURLE_HTTP2_STREAM, is the server's answer to it: not retried.)
        case CURLE_HTTP2: return HTTPFailure(.connectionLost, "connection lost (HTTP/2: \(detail))")
        case CURLE_TOO_MANY_REDIRECTS: return HTTPFailure(.tooManyRedirects, "too many redirects (\(maxRedirects))")
        case CURLE_ABORTED_BY_CALLBACK: return HTTPFailure(.cancelled, "cancelled")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
             CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED:
            return HTTPFailure(.tls, "TLS failure: \(detail)")
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING: return HTTPFailure(.badResponse, "bad response: \(detail)")
        default: return HTTPFailure(.other, detail)
        }
    }
}
