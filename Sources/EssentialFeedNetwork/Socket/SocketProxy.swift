/// An http:// proxy for the socket client: where to connect, the
/// `Proxy-Authorization` of its `user:password@`, and how to name it in a
/// message (host and port, never the password). Without a port, curl's
/// 1080.
struct SocketProxy: Equatable, Sendable {
    let endpoint: SocketHTTPURL
    var authorization: String? { endpoint.authorization }
    var shown: String { endpoint.key }

    /// Parses a proxy URL of the environment (`http://[user:password@]host[:port]`,
    /// the scheme optional); nil with the reason when it cannot be used.
    static func parse(_ text: String) -> Result<SocketProxy, HTTPFailure> {
        var url = text
        if schemeEnd(url) == nil { url = "http://" + url }
        guard SocketHTTPURL.hasScheme("http", url) else {
            let scheme = url.prefix { $0 != ":" }
            return .failure(HTTPFailure(.other, "unsupported proxy scheme '\(scheme)' (feed-fetch speaks to http:// proxies)"))
        }
        let start = schemeEnd(url)!
        let afterScheme = url[start...]
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        let hasPort: Bool
        if let close = hostPort.lastIndex(of: "]") {
            hasPort = hostPort[close...].contains(":")
        } else {
            hasPort = hostPort.contains(":")
        }
        if !hasPort {
            let end = url.index(start, offsetBy: authority.count)
            url.insert(contentsOf: ":1080", at: end)
        }
        guard let endpoint = SocketHTTPURL(url) else {
            return .failure(HTTPFailure(.other, "not a proxy URL: the value of the proxy variable"))
        }
        return .success(SocketProxy(endpoint: endpoint))
    }

    /// The index after `://`, if the text has it.
    private static func schemeEnd(_ text: String) -> String.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix("://") { return text.index(index, offsetBy: 3) }
            index = text.index(after: index)
        }
        return nil
    }
}
