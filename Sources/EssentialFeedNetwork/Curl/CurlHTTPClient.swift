import CCurl
import Dispatch
import EssentialFeed

/// An HTTP client on the system's libcurl, called directly (no Foundation):
/// what `feed-fetch` uses for https:// (and redirects from http:// to it).
///
/// One easy handle per request, performed on a worker thread, at most
/// `maxConnectionsPerHost` at once. libcurl follows redirects itself
/// (http and https only, at most `maxRedirects`; 0: the 3xx is the
/// response), bounds the whole request by `timeout`, and refuses a body
/// declared larger than `maxBodyBytes` (a body without a length is cut off
/// past it). A URL's `user:password@` is libcurl's to send; without one,
/// the `.netrc` entry of the URL's host is sent as a `Basic`
/// `Authorization`, which libcurl never sends on to another host.
/// Failures carry the reasons and messages of `SocketHTTPClient`'s.
public final class CurlHTTPClient: HTTPClient, @unchecked Sendable {
    private let timeout: Double
    private let maxRedirects: Int
    private let maxBodyBytes: Int
    private let userAgent: String
    private let netrc: Netrc?
    private let proxies: ProxySettings
    private let authorities: CertificateAuthorities
    private let spilling: BodySpilling?
    private let slots: DispatchSemaphore

    /// The process-wide set-up libcurl needs before its first handle, once.
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    public init(
        timeout: Double = 30, maxConnectionsPerHost: Int = 8, maxRedirects: Int = 5, maxBodyBytes: Int = 64 << 20,
        userAgent: String = RequestHeaders.defaultUserAgent, netrc: Netrc? = nil, proxies: ProxySettings = .none,
        authorities: CertificateAuthorities = .system, spilling: BodySpilling? = nil
    ) {
        self.spilling = spilling
        precondition((0...SocketHTTPClient.maximumRedirects).contains(maxRedirects), "maxRedirects out of range")
        precondition(maxBodyBytes >= 0, "maxBodyBytes is negative")
        precondition(timeout > 0, "timeout is not positive")
        self.timeout = timeout
        self.maxRedirects = maxRedirects
        self.maxBodyBytes = maxBodyBytes
        self.userAgent = userAgent
        self.netrc = netrc
        self.proxies = proxies
        self.authorities = authorities
        slots = DispatchSemaphore(value: max(1, maxConnectionsPerHost))
    }

    @discardableResult
    public func get(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) -> HTTPClientTask {
        let transfer = CurlTransfer(request, limit: maxBodyBytes, spilling: spilling, completion: completion)
        let started = DispatchTime.now()
        WorkerThreads.shared.run { [self] in
            slots.wait()
            defer { slots.signal() }
            guard !transfer.isDecided else { return }
            // The time spent waiting for a slot counts against the bound.
            let spent = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            transfer.finish(perform(transfer, timeLeft: timeout - spent))
        }
        return transfer
    }

    /// Runs the transfer to its end: the response, or why there is none.
    private func perform(_ transfer: CurlTransfer, timeLeft: Double) -> Result<HTTPResult, HTTPFailure> {
        guard Self.initialized, let curl = curl_easy_init() else { return .failure(HTTPFailure(.other, "cannot start libcurl")) }
        defer { curl_easy_cleanup(curl) }
        guard timeLeft > 0 else { return .failure(timedOut()) }
        var errors = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        let code: CURLcode = errors.withUnsafeMutableBufferPointer { errorBuffer in
            feed_curl_setopt_string(curl, CURLOPT_URL, transfer.url)
            feed_curl_setopt_long(curl, CURLOPT_NOSIGNAL, 1)
            feed_curl_setopt_string(curl, CURLOPT_PROTOCOLS_STR, "http,https")
            feed_curl_setopt_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            feed_curl_setopt_long(curl, CURLOPT_FOLLOWLOCATION, maxRedirects > 0 ? 1 : 0)
            feed_curl_setopt_long(curl, CURLOPT_MAXREDIRS, maxRedirects)
            feed_curl_setopt_long(curl, CURLOPT_TIMEOUT_MS, max(1, Int((timeLeft * 1000).rounded(.up))))
            feed_curl_setopt_offset(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxBodyBytes))
            feed_curl_setopt_string(curl, CURLOPT_USERAGENT, userAgent)
            feed_curl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, errorBuffer.baseAddress)
            feed_curl_setopt_write(curl, CURLOPT_WRITEFUNCTION, { data, size, count, context in
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
                let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
                return transfer.receive(bytes) ? size * count : 0
            })
            feed_curl_setopt_pointer(curl, CURLOPT_WRITEDATA, context)
            feed_curl_setopt_long(curl, CURLOPT_NOPROGRESS, 0)
            feed_curl_setopt_progress(curl, CURLOPT_XFERINFOFUNCTION, { context, _, _, _, _ in
                Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue().isDecided ? 1 : 0
            })
            feed_curl_setopt_pointer(curl, CURLOPT_XFERINFODATA, context)
            feed_curl_setopt_write(curl, CURLOPT_HEADERFUNCTION, { data, size, count, context in
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
                transfer.header(UnsafeRawBufferPointer(start: data, count: size * count))
                return size * count
            })
            feed_curl_setopt_pointer(curl, CURLOPT_HEADERDATA, context)
            // The body is decoded as on http:// (`Inflater`, through the
            // transfer), not by libcurl, whose decoder takes a gzip stream
            // cut short without a word. libcurl's own Accept is `*/*`, as
            // RequestHeaders.accept (the client spec checks both).
            feed_curl_setopt_long(curl, CURLOPT_HTTP_CONTENT_DECODING, 0)
            headers = curl_slist_append(headers, "Accept-Encoding: \(RequestHeaders.acceptEncoding)")
            for field in transfer.request.conditionFields { headers = curl_slist_append(headers, field) }
            // The proxies as ProxySettings reads them (libcurl's own reading
            // of the environment is switched off by naming one, or "").
            feed_curl_setopt_string(curl, CURLOPT_PROXY, proxyURL(for: transfer.url) ?? "")
            if let noProxy = proxies.noProxy { feed_curl_setopt_string(curl, CURLOPT_NOPROXY, noProxy) }
            if let file = authorities.file { feed_curl_setopt_string(curl, CURLOPT_CAINFO, file) }
            if let directory = authorities.directory { feed_curl_setopt_string(curl, CURLOPT_CAPATH, directory) }
            if let authorization = authorization(for: transfer.url) {
                headers = curl_slist_append(headers, "Authorization: \(authorization)")
            }
            feed_curl_setopt_pointer(curl, CURLOPT_HTTPHEADER, headers)
            return curl_easy_perform(curl)
        }
        if code == CURLE_WRITE_ERROR, let failure = transfer.failure { return .failure(failure) }
        guard code == CURLE_OK else {
            // A socket libcurl could not open for want of descriptors: said as such.
            var osError = 0
            feed_curl_getinfo_long(curl, CURLINFO_OS_ERRNO, &osError)
            if let shortage = HTTPFailure.outOfDescriptors(Int32(truncatingIfNeeded: osError), "socket") { return .failure(shortage) }
            let detail = String(decoding: errors.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(failure(code, detail: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail, transfer: transfer))
        }
        var status = 0
        feed_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status)
        var redirects = 0
        feed_curl_getinfo_long(curl, CURLINFO_REDIRECT_COUNT, &redirects)
        var effective: UnsafeMutablePointer<CChar>?
        feed_curl_getinfo_string(curl, CURLINFO_EFFECTIVE_URL, &effective)
        let finalURL = redirects > 0 ? effective.map { String(cString: $0) } : nil
        do throws(HTTPFailure) {
            let body = try transfer.finishBody()
            return .success(HTTPResult(
                status: status, body: body.bytes, finalURL: finalURL,
                retryAfter: transfer.retryAfter, etag: transfer.etag, lastModified: transfer.lastModified, spilled: body.spilled))
        } catch {
            return .failure(error)
        }
    }

    /// The `.netrc` credentials of the URL's host, unless the URL names a user.
    private func authorization(for url: String) -> String? {
        guard let netrc else { return nil }
        let afterScheme = url.drop { $0 != ":" }.dropFirst()
        guard afterScheme.hasPrefix("//") else { return nil }
        let authority = afterScheme.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return nil }
        var host = authority
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        return netrc.authorization(forHost: String(host))
    }

    /// The proxy for the scheme of `url` (no_proxy is libcurl's to apply, to redirects too).
    private func proxyURL(for url: String) -> String? {
        SocketHTTPURL.hasScheme("https", url) ? proxies.https : SocketHTTPURL.hasScheme("http", url) ? proxies.http : nil
    }

    /// The proxy `url` went through, as a message shows it (host and port).
    private func proxyShown(for url: String) -> String? {
        let host = URIReference(url).authority.map { authority -> String in
            let hostPort = authority.split(separator: UInt8(ascii: "@"), omittingEmptySubsequences: false).last ?? authority[...]
            var host = String(decoding: hostPort, as: UTF8.self)
            if host.hasPrefix("["), let close = host.firstIndex(of: "]") { host = String(host[...close]) } else if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
            return host
        } ?? ""
        guard let proxy = proxyURL(for: url), !proxies.bypasses(host: host) else { return nil }
        switch SocketProxy.parse(proxy) {
        case let .success(parsed): return parsed.shown
        case .failure: return "(\(proxy.prefix { $0 != ":" }))"
        }
    }

    private func timedOut() -> HTTPFailure {
        HTTPFailure(.timedOut, "timed out after \(Deadline.format(timeout)) s")
    }

    /// libcurl's result code as the client's failure.
    private func failure(_ code: CURLcode, detail: String, transfer: CurlTransfer) -> HTTPFailure {
        // The proxy would not open a tunnel: a failure of the proxy, named.
        if detail.contains("CONNECT"), let proxy = proxyShown(for: transfer.url) {
            return HTTPFailure(code == CURLE_COULDNT_CONNECT ? .refused : .connectionLost, "proxy \(proxy): \(detail)")
        }
        switch code {
        case CURLE_COULDNT_CONNECT:
            if let proxy = proxyShown(for: transfer.url) { return HTTPFailure(.refused, "proxy \(proxy): connection refused") }
            return HTTPFailure(.refused, "connection refused")
        case CURLE_COULDNT_RESOLVE_PROXY:
            return HTTPFailure(.cannotResolveHost, "proxy \(proxyShown(for: transfer.url) ?? "?"): cannot resolve host")
        case CURLE_COULDNT_RESOLVE_HOST: return HTTPFailure(.cannotResolveHost, "cannot resolve host")
        case CURLE_OPERATION_TIMEDOUT: return timedOut()
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING:
            return HTTPFailure(.connectionLost, "connection lost")
        case CURLE_TOO_MANY_REDIRECTS: return HTTPFailure(.tooManyRedirects, "too many redirects (\(maxRedirects))")
        case CURLE_FILESIZE_EXCEEDED:
            return HTTPFailure(.bodyTooLarge, "response body larger than \(counted(maxBodyBytes, "byte"))")
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
