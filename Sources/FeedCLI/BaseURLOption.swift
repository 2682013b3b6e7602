import EssentialFeed

/// The API base every tool that builds API URLs takes: `--base-url`, else
/// `FEED_BASE_URL` (an empty value counts as unset).
public enum BaseURLOption {
    /// The base, or nil when neither is set; a usage error when it is not an
    /// http(s) URL without query.
    public static func resolve(option: String?, environment: [String: String]) throws(ErrorRecord) -> BaseURL? {
        let option = option ?? ""
        guard let text = option.isEmpty ? environment["FEED_BASE_URL"] : option, !text.isEmpty else { return nil }
        guard let base = BaseURL(text) else { throw ErrorRecord(.usage, "base URL '\(text)' is not an http(s) URL without query") }
        return base
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
