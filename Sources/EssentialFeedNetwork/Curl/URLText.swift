/// What a message needs of a URL's text, read without a parser of its own
/// (libcurl parses the URLs it fetches): its scheme and its host.
enum URLText {
    /// The scheme, in lower case, if the text starts with one (`http:`).
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), colon > url.startIndex else { return nil }
        let scheme = url[..<colon]
        guard scheme.first!.isLetter, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return scheme.lowercased()
    }

    /// The host of an `scheme://[user@]host[:port]/…` URL, an IPv6 literal without its brackets.
    static func host(of url: String) -> String? {
        guard let start = url.firstRange(of: "://") else { return nil }
        var authority = url[start.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        return String(authority.prefix { $0 != ":" })
    }
}
