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
        guard let record = ViewRecord(document) else { return nil }
        // Record text to show: never a control character (TerminalText).
        func visible(_ text: String, multiline: Bool = false) -> String { TerminalText.visible(text, multiline: multiline) }
        switch record {
        case .error:
            return title(options.kind ?? .feed) + alert(Localized.string(.connectionError, locale: options.locale)) + "\n\n"
        case let .comment(comment):
            var out = title(options.kind ?? .comments)
            let relative = comment.relativeDate.map { visible($0) } ?? comment.createdAt.map { dates.string(for: $0, relativeTo: options.now) }
            out += "  " + accent(visible(comment.username)) + (relative.map { dim(" · " + $0) } ?? "") + "\n"
            out += wrap(visible(comment.message, multiline: true), indent: "  ") + "\n"
            return out
        case let .image(image):
            var out = title(options.kind ?? .feed)
            if let location = image.location { out += wrap(visible(location), indent: "  ", style: accent) }
            if let description = image.description { out += wrap(visible(description, multiline: true), indent: "  ") }
            out += "  " + dim(visible(Secrets.redactURL(image.url))) + "\n\n"
            return out
        }
    }

    /// What to show at the end: the title alone when nothing else was shown.
    public mutating func finish() -> String {
        titled ? "" : title(options.kind ?? .feed)
    }

    /// Word-wraps `text` to the width, each line indented, in the columns a
    /// terminal gives each character (`TerminalText.columns`: a Japanese
    /// description counted in characters ran to twice the width); words
    /// longer than a line are cut, each character counted once (a word of
    /// megabytes from a server took minutes when the rest was counted at
    /// each cut). Line breaks in the text are kept.
    func wrap(_ text: String, indent: String, style: ((String) -> String)? = nil) -> String {
        let room = max(10, options.width - TerminalText.columns(indent))
        var out = ""
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var used = 0
            func flush() {
                out += indent + (style?(line) ?? line) + "\n"
                line = ""
                used = 0
            }
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                let columns = TerminalText.columns(word)
                if columns > room {
                    // Cut where the next character would not fit; what is left starts a line.
                    if !line.isEmpty { flush() }
                    for character in word {
                        let width = TerminalText.columns(character)
                        if used > 0, used + width > room { flush() }
                        line.append(character)
                        used += width
                    }
                } else if line.isEmpty {
                    line = String(word)
                    used = columns
                } else if used + 1 + columns <= room {
                    line += " " + word
                    used += 1 + columns
                } else {
                    flush()
                    line = String(word)
                    used = columns
                }
            }
            flush()
        }
        return out
    }
}
