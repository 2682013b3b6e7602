import EssentialFeed
import EssentialFeedNetwork
import FeedCLI
import Sandbox
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `feed-fetch`: the tool's composition root, run by its own executable and
/// by the multi-call executable of the tools that link system libraries.
public enum FeedFetchTool {
    public static func main() -> Never {
        let tool = Tool(
            name: "feed-fetch",
            help: """
            usage: feed-fetch [options] [URL... | -]
                   feed-fetch [options] --comments ID
                   feed-fetch --help | --version

            Sends an HTTP GET for each URL and writes one response record per request,
            in input order:
              {"url":…,"status":N,"body":JSON}          when the body is JSON
              {"url":…,"status":N,"body_base64":"…"}    otherwise
            Any HTTP status is a response. No response at all (refused, DNS, TLS,
            reset, a body cut short, a timeout, too many redirects) is a connectivity
            error record; a body over --max-body is an invalid_data error record.
            Redirects are followed: "url" stays the URL asked for, and "final_url"
            (only when redirected) names the one that answered. Requests go through
            the system's libcurl, connections kept open for the next requests (HTTP/2
            over TLS where the server offers it), with one request shape (User-Agent:
            feed-fetch/VERSION, Accept: */*, Accept-Encoding: gzip, deflate); gzip
            and deflate bodies are decoded as they arrive.

            URLs come from the operands; an operand - reads standard input there.
            Without operands, URLs come from standard input: plain URL lines, or
            records with a "url" field; error records are written through unchanged.
            A request record with "if_none_match" and "if_modified_since" (the
            "etag" and "last_modified" a response record gave) is sent as a
            conditional request; a 304 is written with an empty body_base64.
            When there are no operands and standard input is a terminal, closed or
            gives no line (blank lines aside), the first feed page of the API at --base-url is fetched
            (BASE/v1/feed?limit=N). Use - to read standard input only.

            options:
              --base-url URL    the feed API (default: $FEED_BASE_URL)
              --comments ID     fetch the comments of image ID
                                (BASE/v1/image/ID/comments)
              --limit N         items of the first feed page (default 10)
              --max-body BYTES  the largest body accepted, as decoded; suffixes
                                k, M, G (1024-based; default 64M)
              --max-redirects N redirects followed at most, 0-20 (default 5;
                                0: a 3xx is the response)
              --parallel N      requests in flight at most, 1-64 (default 8)
              --retry N         try a request again up to N times, 0-100, while it
                                fails transiently (timeout, refused, reset, DNS,
                                408, 429, 500, 502, 503, 504), waiting 1 s, then 2,
                                4, ..., or what Retry-After says (default 0)
              --retry-max-time SECONDS
                                start no retry later than this after the first
                                attempt (default 60)
              --timeout SECONDS bound on each whole request (default 30)
              -h, --help        print this help and exit
              --version         print the version and exit

            Credentials: user:password@ in a URL, else the entry of its host in
            $NETRC or ~/.netrc (machine HOST login USER password SECRET), sent as
            Basic authorization. A password is never shown: records, messages and
            logs show the URL as http://user:***@host/...

            Proxies: http_proxy (lower case only), https_proxy or HTTPS_PROXY,
            all_proxy or ALL_PROXY, no_proxy or NO_PROXY, as curl reads them; a
            proxy's user:password is sent as Proxy-Authorization, never shown.

            A body past 1 MiB is spooled (an unlinked temporary file in $TMPDIR),
            so any body up to --max-body takes a few MiB of memory.

            environment: FEED_BASE_URL, NETRC, HOME, TMPDIR, the proxy variables,
            SSL_CERT_FILE and SSL_CERT_DIR (the certificate authorities for https;
            default: the system's), FEED_LOG (debug: one line per request started,
            finished or failed; info: retries).

            exit status: 0 all handled, 64 usage, 65 invalid input line or body
            over --max-body, 69 connectivity, 74 a spool file that cannot be
            written, or the status of the first error record met
            (see essential-feed(7)).

            """,
            options: [
                .value("--base-url"), .value("--comments"), .value("--limit"), .value("--max-body"),
                .value("--max-redirects"), .value("--parallel"), .value("--retry"), .value("--retry-max-time"), .value("--timeout"),
            ]
        )

        /// A number of bytes: digits with an optional k, M or G (1024-based,
        /// case-insensitive), or nil when the option is absent.
        func byteCount(_ name: String) throws(ErrorRecord) -> Int? {
            guard let text = arguments.value(name) else { return nil }
            guard let n = ByteCount.parse(text) else {
                throw ErrorRecord(.usage, "\(name) takes a number of bytes, optionally with k, M or G, not '\(text)'")
            }
            return n
        }

        let arguments = tool.arguments
        let requestedParallel: Int
        let timeout: Double
        let limit: Int
        let maxRedirects: Int
        let maxBody: Int
        let retry: RetryPolicy
        do {
            requestedParallel = try arguments.integer("--parallel", in: 1...64) ?? 8
            timeout = try arguments.seconds("--timeout") ?? 30
            limit = try arguments.integer("--limit", in: 1...1000) ?? FeedEndpoint.defaultLimit
            maxRedirects = try arguments.integer("--max-redirects", in: 0...CurlHTTPClient.maximumRedirects) ?? 5
            maxBody = try byteCount("--max-body") ?? 64 << 20
            retry = RetryPolicy(retries: try arguments.integer("--retry", in: 0...100) ?? 0, maxTime: try arguments.seconds("--retry-max-time", allowZero: true) ?? 60)
        } catch {
            tool.usageError(error.message)
        }

        // Each request in flight holds up to three descriptors (its socket, a
        // spooled body's file, a redirect's new socket before the old one closes)
        // beside the process's own (standard streams, the output's spool, libcurl's):
        // more in flight than the open-file limit allows would fail as "Too many
        // open files", a local shortage, not the network's. So at most what the
        // soft limit (ulimit -n) leaves room for goes out at once.
        let parallel: Int = {
            guard let limit = Descriptor.openFileLimit() else { return requestedParallel }
            let room = max(1, (limit - 16) / 3)
            guard requestedParallel > room else { return requestedParallel }
            tool.diagnostics.info("--parallel \(requestedParallel) lowered to \(room): the open-file limit is \(limit) (ulimit -n)")
            return room
        }()

        func requireBaseURL() -> BaseURL {
            guard let base = tool.baseURL() else { tool.usageError("nothing to fetch: give URLs, input, or --base-url (or FEED_BASE_URL)") }
            return base
        }

        var initialURLs: [String] = []
        for operand in arguments.operands where operand != "-" {
            guard Identifiers.isHTTPURL(operand) else { tool.usageError("'\(operand)' is not an http(s) URL") }
        }
        if let id = arguments.value("--comments") {
            guard arguments.operands.isEmpty else { tool.usageError("--comments takes no URL operands") }
            guard let uuid = Identifiers.uuid(id) else { tool.usageError("--comments: '\(id)' is not a UUID") }
            initialURLs = [ImageCommentsEndpoint(imageID: uuid).url(requireBaseURL())]
        }

        /// Credentials by host from `$NETRC` or `~/.netrc` (libcurl reads it),
        /// for URLs without `user:password@`; none when there is no such file.
        let netrcFile = Netrc.path(environment: tool.environment).flatMap { path -> String? in
            guard access(path, R_OK) == 0 else { return nil }
            tool.diagnostics.trace("credentials from \(path)")
            return path
        }
        /// A body past 1 MiB goes to the spool (memory, then an unlinked temporary
        /// file in $TMPDIR), so that feed-fetch holds any body in bounded memory.
        let environment = tool.environment
        let spilling = BodySpilling(memoryLimit: 1 << 20) { SpooledBody(environment: environment) }
        // A body in memory is 1 MiB at most (a larger one is spooled), its
        // record 1.4 MiB: their memory is kept for the next, up to 4 MiB free.
        Allocator.keepFreedBlocks()
        /// Every URL on the system's libcurl, through one multi handle.
        let client = CurlHTTPClient(
            timeout: timeout, maxConnectionsPerHost: parallel, maxRedirects: maxRedirects, maxBodyBytes: maxBody,
            userAgent: "feed-fetch/\(toolkitVersion)", netrcFile: netrcFile, proxies: ProxySettings(environment: tool.environment),
            authorities: CertificateAuthorities(environment: environment), spilling: spilling)
        /// Transient failures tried again (curl's --retry), each retry told at info level.
        let diagnostics = tool.diagnostics
        let fetching: any HTTPClient = retry.retries == 0 ? client : RetryingHTTPClient(client, policy: retry) { url, outcome, wait, number in
            let what: String
            switch outcome {
            case let .success(response): what = "\(response.status)"
            case let .failure(failure): what = failure.message
            }
            diagnostics.info("GET \(Secrets.redact(url)): \(what); retry \(number) of \(retry.retries) in \(secondsText(wait)) s")
        }
        let fetcher = OrderedFetcher(tool: tool, client: fetching, parallel: parallel)
        tool.output.endWhenReaderLeaves()
        // libcurl hands a host that is not ASCII (an IDN, as a feed's image
        // URL may name one) to libidn2 in the locale's encoding, which in
        // the C locale cron gives cannot hold it: every such URL was "not a
        // valid URL" (found by the hunt). URLs are UTF-8 here, whatever the
        // user's locale; nothing else in feed-fetch reads LC_CTYPE.
        _ = setlocale(LC_CTYPE, "C.UTF-8")
        tool.confine(.fetching(environment: environment, netrc: netrcFile))

        /// Reads standard input: plain URL lines, or records with a url field.
        /// Returns whether it gave a line (blank lines aside), even one
        /// refused: a truncated line, or one past the line limit.
        @discardableResult
        func readStandardInput() -> Bool {
            var gaveALine = false
            tool.forEachLine { line, number, truncated in
                gaveALine = true
                let first = line.first { $0 != 0x20 && $0 != 0x09 }
                if first == UInt8(ascii: "{") || truncated {
                    guard let document = tool.parseRecord(line, number, truncated) else { return }
                    if let kind = RecordKind.errorKind(of: document) {
                        fetcher.passThrough(Secrets.redacted(line), kind: kind)
                        return
                    }
                    guard let node = document.member(document.root, "url"), let url = document.string(node) else {
                        fetcher.fail(ErrorRecord(.invalidData, "record has no url", line: number))
                        return
                    }
                    guard Identifiers.isHTTPURL(url) else {
                        fetcher.fail(ErrorRecord(.invalidData, "url is not an http(s) URL", context: [.init("url", url)], line: number))
                        return
                    }
                    // A request record may carry the validators of a copy held (feed-cache request).
                    // Only validators that match their grammar reach a header; any
                    // other is dropped (said at debug) and the request goes out
                    // unconditional on it.
                    var ifNoneMatch = document.member(document.root, "if_none_match").flatMap(document.string)
                    var ifModifiedSince = document.member(document.root, "if_modified_since").flatMap(document.string)
                    if let text = ifNoneMatch, HTTPValidators.entityTag(text) == nil {
                        diagnostics.debug(InputLocation.prefix(line: number) + "if_none_match is not an entity tag: not sent (\(Secrets.redact(url)))")
                        ifNoneMatch = nil
                    }
                    if let text = ifModifiedSince {
                        ifModifiedSince = HTTPValidators.httpDate(text)
                        if ifModifiedSince == nil {
                            diagnostics.debug(InputLocation.prefix(line: number) + "if_modified_since is not an HTTP date: not sent (\(Secrets.redact(url)))")
                        }
                    }
                    fetcher.fetch(HTTPRequest(url, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince))
                } else {
                    var trimmed = line
                    while let c = trimmed.first, c == 0x20 || c == 0x09 { trimmed = trimmed.dropFirst() }
                    while let c = trimmed.last, c == 0x20 || c == 0x09 { trimmed = trimmed.dropLast() }
                    // Not decoded with repairs: a line of bytes that are no
                    // UTF-8 was fetched as another URL (found by the hunt).
                    guard let text = String(validating: trimmed, as: UTF8.self) else {
                        fetcher.fail(ErrorRecord(.invalidData, "a line that is not valid UTF-8", line: number))
                        return
                    }
                    guard Identifiers.isHTTPURL(text) else {
                        fetcher.fail(ErrorRecord(.invalidData, "not an http(s) URL or a record with a url", line: number))
                        return
                    }
                    fetcher.fetch(HTTPRequest(text))
                }
            }
            // Reading stopped by a line past the limit, before any line came.
            return gaveALine || tool.exitCode != 0
        }

        if !initialURLs.isEmpty {
            for url in initialURLs { fetcher.fetch(HTTPRequest(url)) }
        } else if !arguments.operands.isEmpty {
            for operand in arguments.operands {
                if operand == "-" { readStandardInput() } else { fetcher.fetch(HTTPRequest(operand)) }
            }
        } else {
            // A closed input gives nothing, as a terminal does.
            // The first page only for an input with no line at all.
            let gaveALine = !Descriptor.isTerminal(0) && !tool.inputWasClosed && readStandardInput()
            if !gaveALine {
                fetcher.fetch(HTTPRequest(FeedEndpoint(limit: limit).url(requireBaseURL())))
            }
        }
        fetcher.wait()
        tool.finish()
    }
}

extension SandboxRules {
    /// feed-fetch's: a client's (`connecting`), with the .netrc file and
    /// the certificate authorities named in the environment; writing only
    /// in the temporary folder (the spool). libcurl opens the .netrc file
    /// for each request and the authorities at the first TLS handshake,
    /// after the confinement (found by tracing it).
    static func fetching(environment: [String: String], netrc: String?) -> SandboxRules {
        var rules = SandboxRules.connecting(environment: environment)
        // SSL_CERT_DIR may list directories, separated by colons, as OpenSSL reads it.
        let directories = (environment["SSL_CERT_DIR"] ?? "").split(separator: ":").map(String.init)
        rules.readable += ([netrc, environment["SSL_CERT_FILE"]].compactMap { $0 } + directories).filter { !$0.isEmpty }
        // And the certificates their hashed links lead to, wherever they lie.
        for directory in directories where !directory.isEmpty {
            rules.readable += SandboxRules.linkedFiles(in: directory, beyond: rules.readable)
        }
        return rules
    }
}
