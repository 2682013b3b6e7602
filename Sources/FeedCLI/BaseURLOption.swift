import EssentialFeed

/// The API base every tool that builds API URLs takes: `--base-url`, else
/// `FEED_BASE_URL` (an empty value counts as unset).
public enum BaseURLOption {
    /// The base, or nil when neither is set; a usage error when it is not an
    /// http(s) URL without query.
    public static func resolve(option: String?, environment: [String: String]) throws(ErrorRecord) -> BaseURL? {
        let option = option ?? ""
        guard let text = option.isEmpty ? environment["FEED_BASE_URL"] : option, !text.isEmpty else { return nil }
        guard let base = BaseURL(text) else { throw ErrorRecord(.usage, "base URL " + problem(text)) }
        return base
    }

    /// Why `text` is no base URL, said as what to change (the most common
    /// mistake, a host and port without `http://`, was "not an http(s) URL
    /// without query", and sent a stranger looking for a query). The text
    /// is shown with its password masked; advice names a URL the tools take.
    static func problem(_ text: String) -> String {
        let shown = "'\(masked(text))'"
        let lower = text.lowercased()
        // http or https, its colon or slashes astray (http:/h, http//h, http:u:pw@h).
        for scheme in ["https", "http"] where lower.hasPrefix(scheme) && !lower.hasPrefix(scheme + "://") {
            let rest = text.dropFirst(scheme.count)
            guard rest.hasPrefix(":") || rest.hasPrefix("/") else { continue }
            let meant = scheme + "://" + rest.drop { $0 == ":" || $0 == "/" }
            if BaseURL(meant) != nil { return "\(shown) is not an http(s) URL: did you mean '\(masked(meant))'?" }
        }
        let scheme = text.prefix { $0 != ":" }
        // A scheme: a letter, then letters, digits, + - . up to a colon
        // that `//` follows, or else neither a port's digit nor a user-info's
        // `@` before the path ("localhost:8080" and "alice:pw@host" have none).
        let rest = text.dropFirst(scheme.count + 1)
        let hasScheme = scheme.first?.isASCII == true && scheme.first!.isLetter && scheme.count < text.count
            && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
            && (rest.hasPrefix("//") || !(rest.first?.isNumber ?? false) && !rest.prefix { $0 != "/" }.contains("@"))
        guard hasScheme else {
            // The URL meant, when http:// makes one (shown masked).
            let host = text.hasPrefix("//") ? String(text.dropFirst(2)) : text
            if BaseURL("http://" + host) != nil { return "\(shown) has no scheme: did you mean '\(masked("http://" + host))'?" }
            return "\(shown) has no scheme: give http:// or https:// and the API's host"
        }
        guard ["http", "https"].contains(scheme.lowercased()) else { return "\(shown) is not an http or https URL" }
        // A user name or password holding what ends or splits an authority.
        let authority = rest.dropFirst(2)
        if let sign = authority.lastIndex(of: "@"), authority[..<sign].contains(where: { "#?/@ \t".contains($0) }) {
            return "\(shown) has a user name or password holding #, ?, /, @ or a blank: write them %23, %3F, %2F, %40 and %20"
        }
        if text.contains("?") || text.contains("#") { return "\(shown) has a query or fragment: give the API's base alone (as https://host/path)" }
        return "\(shown) is not a valid http(s) URL"
    }

    /// `text` with the password of its user-info shown as `***`: from the
    /// first colon after the scheme's `//` (or the text's start) to the last
    /// `@` (a password may hold `#`, `?`, `/`, `@` or a blank, where
    /// `Secrets.redactURL` takes the URL to end). In a refused URL a port
    /// or a path may go with it: more is masked, never less.
    static func masked(_ text: String) -> String {
        var start = text.startIndex
        let scheme = text.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
        if !scheme.isEmpty, text[scheme.endIndex...].hasPrefix("://") {
            start = text.index(scheme.endIndex, offsetBy: 3)
        } else if text.hasPrefix("//") {
            start = text.index(start, offsetBy: 2)
        }
        guard let sign = text[start...].lastIndex(of: "@"), let colon = text[start..<sign].firstIndex(of: ":") else {
            return Secrets.redactURL(text)
        }
        return String(text[text.startIndex..<colon]) + ":***" + String(text[sign..<text.endIndex])
    }
}

extension Tool {
    /// The API base from `--base-url` or `FEED_BASE_URL`, nil when neither
    /// is set; ends the process with a usage error when it is not valid.
    public func baseURL() -> BaseURL? {
        do {
            return try BaseURLOption.resolve(option: arguments.value("--base-url"), environment: environment)
        } catch {
            usageError(error.message)
        }
    }
}
