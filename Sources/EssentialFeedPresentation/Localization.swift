/// The user-facing strings of the case study, in every supported language.
///
/// The tables live in source so that an installed binary always finds them.
/// A test proves every key has a value in every language.
public enum Localized {
    public enum Key: String, CaseIterable, Sendable {
        /// The title of the feed.
        case feedTitle = "FEED_VIEW_TITLE"
        /// The title of an image's comments.
        case commentsTitle = "IMAGE_COMMENTS_VIEW_TITLE"
        /// The message shown when the feed could not be loaded.
        case connectionError = "GENERIC_CONNECTION_ERROR"
        /// Shown while waiting for the first record.
        case loading = "LOADING"
    }

    /// The supported languages, as BCP 47 tags; the first is the fallback.
    public static let languages = ["en", "pt-BR", "el", "es", "de", "fr"]

    static let tables: [String: [Key: String]] = [
        "en": [
            .feedTitle: "My Feed",
            .commentsTitle: "Comments",
            .connectionError: "Couldn't connect to server",
            .loading: "Loading…",
        ],
        "pt-BR": [
            .feedTitle: "Meu Feed",
            .commentsTitle: "Comentários",
            .connectionError: "Não foi possível conectar com o servidor",
            .loading: "Carregando…",
        ],
        "el": [
            .feedTitle: "Το Feed μου",
            .commentsTitle: "Σχόλια",
            .connectionError: "Δεν ήταν δυνατή η σύνδεση στο διακομιστή",
            .loading: "Φόρτωση…",
        ],
        "es": [
            .feedTitle: "Mi Feed",
            .commentsTitle: "Comentarios",
            .connectionError: "No se pudo conectar con el servidor",
            .loading: "Cargando…",
        ],
        "de": [
            .feedTitle: "Mein Feed",
            .commentsTitle: "Kommentare",
            .connectionError: "Verbindung zum Server nicht möglich",
            .loading: "Wird geladen…",
        ],
        "fr": [
            .feedTitle: "Mon flux",
            .commentsTitle: "Commentaires",
            .connectionError: "Impossible de se connecter au serveur",
            .loading: "Chargement…",
        ],
    ]

    /// The string for `key` in the language that best matches `locale`
    /// (e.g. `pt_BR.UTF-8`, `el_GR`, `es`), English when none matches.
    public static func string(_ key: Key, locale: AppLocale) -> String {
        tables[locale.language]?[key] ?? tables["en"]![key]!
    }

    /// The value of `key` in exactly `language`, or nil when missing (for tests).
    public static func value(_ key: Key, language: String) -> String? {
        tables[language]?[key]
    }
}

/// A POSIX locale name (`pt_BR.UTF-8@euro`) reduced to what the tools use:
/// an ICU identifier for dates and the best supported language for text.
public struct AppLocale: Equatable, Sendable {
    /// e.g. `pt_BR`, `en_US_POSIX`
    public let identifier: String
    /// One of `Localized.languages`.
    public let language: String

    public init(_ name: String) {
        var base = Substring(name)
        if let dot = base.firstIndex(of: ".") { base = base[..<dot] }
        if let at = base.firstIndex(of: "@") { base = base[..<at] }
        var identifier = base.replacingOccurrences(of: "-", with: "_")
        if identifier.isEmpty || identifier == "C" || identifier == "POSIX" { identifier = "en_US_POSIX" }
        self.identifier = identifier
        let parts = identifier.split(separator: "_")
        let languageCode = parts.first.map { $0.lowercased() } ?? "en"
        let region = parts.count > 1 ? parts[1].uppercased() : ""
        if Localized.languages.contains("\(languageCode)-\(region)") {
            language = "\(languageCode)-\(region)"
        } else if let match = Localized.languages.first(where: { $0 == languageCode || $0.hasPrefix(languageCode + "-") }) {
            language = match
        } else {
            language = "en"
        }
    }

    /// The locale from the environment, as POSIX orders it for messages:
    /// `LC_ALL`, then `LC_MESSAGES`, then `LANG`; `C` when none is set.
    public static func fromEnvironment(_ environment: [String: String]) -> AppLocale {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.isEmpty { return AppLocale(value) }
        }
        return AppLocale("C")
    }
}

extension Substring {
    fileprivate func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
