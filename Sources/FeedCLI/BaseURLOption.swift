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
    /// is shown with its password masked.
    static func problem(_ text: String) -> String {
        let shown = "'\(masked(text))'"
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
            if BaseURL("http://" + host) != nil { return "\(shown) has no scheme: did you mean 'http://\(masked(host))'?" }
            return "\(shown) has no scheme: give http:// or https:// and the API's host"
        }
        guard ["http", "https"].contains(scheme.lowercased()) else { return "\(shown) is not an http or https URL" }
        // A password holding # ? or a blank: the URL cuts there.
        let authority = text.drop { $0 != "/" }.dropFirst(2).prefix { $0 != "/" }
        if let at = authority.lastIndex(of: "@"), authority[..<at].contains(where: { "#? \t".contains($0) }) {
            return "\(shown) has a user name or password holding #, ? or a blank: write them %23, %3F and %20"
        }
        if text.contains("?") || text.contains("#") { return "\(shown) has a query or fragment: give the API's base alone (as https://host/path)" }
        return "\(shown) is not a valid http(s) URL"
    }

    /// `text` with the password of its user-info shown as `***`: what lies
    /// between the user name's colon and the last `@` before the path (a
    /// password may hold `#`, `?` or a blank, which `Secrets.redactURL`
    /// takes for the URL's end), with or without a scheme.
    static func masked(_ text: String) -> String {
        let colonSlashes = text.indices.first { text[$0...].hasPrefix("://") }
        let start = colonSlashes.map { text.index($0, offsetBy: 3) } ?? text.startIndex
        let end = text[start...].firstIndex(of: "/") ?? text.endIndex
        guard let sign = text[start..<end].lastIndex(of: "@"), let colon = text[start..<sign].firstIndex(of: ":") else {
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
