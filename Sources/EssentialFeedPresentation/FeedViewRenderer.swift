import EssentialFeed

/// Renders records as text for a person: the case study's feed and comments
/// views, and its error view, brought to the terminal. Pure: records in, text out.
public struct FeedViewRenderer {
    public enum Kind: String, Sendable {
        case feed, comments
    }

    public struct Options: Sendable {
        public var locale: AppLocale
        public var width: Int
        public var color: Bool
        /// The kind of content, for the title; inferred from the first record when nil.
        public var kind: Kind?
        /// The reference date for comments that carry no `relative_date`.
        public var now: Timestamp

        public init(locale: AppLocale, width: Int = 80, color: Bool = false, kind: Kind? = nil, now: Timestamp) {
            self.locale = locale
            self.width = width
            self.color = color
            self.kind = kind
            self.now = now
        }
    }

    private let options: Options
    private let dates: RelativeDateFormatter
    private var titled = false

    public init(options: Options) {
        self.options = options
        dates = RelativeDateFormatter(locale: options.locale)
    }

    // MARK: Styles (SGR): bold and dim only, plus the terminal's own colours,
    // so the text reads on light and dark backgrounds alike.

    private func bold(_ s: String) -> String { options.color ? "\u{1B}[1m" + s + "\u{1B}[0m" : s }
    private func dim(_ s: String) -> String { options.color ? "\u{1B}[2m" + s + "\u{1B}[0m" : s }
    private func accent(_ s: String) -> String { options.color ? "\u{1B}[36m" + s + "\u{1B}[0m" : s }
    private func alert(_ s: String) -> String { options.color ? "\u{1B}[1;31m" + s + "\u{1B}[0m" : s }

    /// The title, once, before the first thing shown.
    private mutating func title(_ kind: Kind) -> String {
        guard !titled else { return "" }
        titled = true
        let text = Localized.string(kind == .feed ? .feedTitle : .commentsTitle, locale: options.locale)
        return bold(text) + "\n\n"
    }

    /// What to show for one record (feed image, image comment or error).
    /// Returns nil for a record that is none of these.
    public mutating func render(_ document: JSONDocument) -> String? {
        let root = document.root
        // Raw record text, for what is computed from it (dates).
        func raw(_ key: String) -> String? {
            document.member(root, key).flatMap { document.string($0) }
        }
        // Record text to show: never a control character (TerminalText).
        func text(_ key: String, multiline: Bool = false) -> String? {
            raw(key).map { TerminalText.visible($0, multiline: multiline) }
        }
        if document.member(root, "error") != nil {
            return title(options.kind ?? .feed) + alert(Localized.string(.connectionError, locale: options.locale)) + "\n\n"
        }
        if let message = text("message", multiline: true), let username = text("username") {
            var out = title(options.kind ?? .comments)
            var relative = text("relative_date")
            if relative == nil, let created = raw("created_at").flatMap(Timestamp.init(iso8601:)) {
                relative = dates.string(for: created, relativeTo: options.now)
            }
            out += "  " + accent(username) + (relative.map { dim(" · " + $0) } ?? "") + "\n"
            out += wrap(message, indent: "  ") + "\n"
            return out
        }
        if let url = text("url"), document.member(root, "id") != nil {
            var out = title(options.kind ?? .feed)
            if let location = text("location") { out += wrap(location, indent: "  ", style: accent) }
            if let description = text("description", multiline: true) { out += wrap(description, indent: "  ") }
            out += "  " + dim(Secrets.redact(url)) + "\n\n"
            return out
        }
        return nil
    }

    /// What to show at the end: the title alone when nothing else was shown.
    public mutating func finish() -> String {
        titled ? "" : title(options.kind ?? .feed)
    }

    /// Word-wraps `text` to the width, each line indented; words longer than
    /// a line are cut. Line breaks in the text are kept.
    func wrap(_ text: String, indent: String, style: ((String) -> String)? = nil) -> String {
        let room = max(10, options.width - indent.count)
        var out = ""
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            func flush() {
                out += indent + (style?(line) ?? line) + "\n"
                line = ""
            }
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                var word = Substring(word)
                while word.count > room {
                    if !line.isEmpty { flush() }
                    line = String(word.prefix(room))
                    flush()
                    word = word.dropFirst(room)
                }
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= room {
                    line += " " + word
                } else {
                    flush()
                    line = String(word)
                }
            }
            flush()
        }
        return out
    }
}
