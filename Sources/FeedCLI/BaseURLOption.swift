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
    /// without query", and sent a stranger looking for a query).
    static func problem(_ text: String) -> String {
        guard text.contains("://") else {
            // Shown as the URL it would be, its password masked.
            let meant = Secrets.redactURL("http://" + text)
            return "'\(meant.dropFirst("http://".count))' has no scheme: did you mean '\(meant)'?"
        }
        let shown = "'\(text)'"
        let scheme = text.prefix { $0 != ":" }.lowercased()
        guard scheme == "http" || scheme == "https" else { return "\(shown) is not an http or https URL" }
        if text.contains("?") || text.contains("#") { return "\(shown) has a query or fragment: give the API's base alone (as https://host/path)" }
        return "\(shown) is not a valid http(s) URL"
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
