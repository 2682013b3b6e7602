#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import EssentialFeed

/// Renders records as an Atom 1.0 document (RFC 4287) that any feed reader
/// subscribes to: an entry per feed image (and per image comment), under the
/// feed's id, localized title, `updated` date, author and `self` link.
///
/// Atom puts the feed's `updated` before its entries, and that date is known
/// only once every record is read (the latest of the entries' dates, else
/// `now`): so the entries are rendered one by one (`entry(_:)`), kept by the
/// caller, and written after `head()`.
/// Every text is escaped for XML and stripped of the characters XML forbids.
public struct FeedAtomRenderer {
    public struct Options: Sendable {
        public var locale: AppLocale
        /// The kind of content, for the title; inferred from the first record when nil.
        public var kind: FeedViewRenderer.Kind?
        /// The feed's date when the records give none.
        public var now: Timestamp
        /// Where the document is published (`link rel="self"`); also its id.
        public var selfLink: String?
        /// The feed's author.
        public var author: String

        public init(locale: AppLocale, kind: FeedViewRenderer.Kind? = nil, now: Timestamp, selfLink: String? = nil, author: String = FeedAtomRenderer.defaultAuthor) {
            self.locale = locale
            self.kind = kind
            self.now = now
            self.selfLink = selfLink
            self.author = author
        }
    }

    public static let defaultAuthor = "essential-feed"
    /// The feed's id when no `self` link is given (RFC 4151 tag URI).
    public static let defaultID = "tag:essential-feed,2026:feed"
    public static let tail = "</feed>\n"

    private let options: Options
    private var kind: FeedViewRenderer.Kind?
    /// The latest date of an entry written.
    private var latest: Timestamp?

    public init(options: Options) {
        self.options = options
        kind = options.kind
    }

    /// The feed's date: the latest of its entries' dates (an image's
    /// `first_cached_at`, else its `cached_at`; a comment's `created_at`;
    /// `now` for an entry without one: a feed older than one of its entries
    /// is read as unchanged), else `now`.
    public var updated: Timestamp { latest ?? options.now }

    private mutating func dated(_ date: Timestamp?) -> Timestamp {
        let date = date ?? options.now
        latest = max(latest ?? date, date)
        return date
    }

    /// The entry of one record; nil for an error record, which has none.
    public mutating func entry(_ record: ViewRecord) -> String? {
        switch record {
        case .error:
            if kind == nil { kind = .feed }
            return nil
        case let .image(image):
            if kind == nil { kind = .feed }
            // An entry changes when its image first came into the cache, not at each save.
            let updated = dated(image.firstCachedAt ?? image.cachedAt)
            let shown = Secrets.redactURL(image.url)
            // Links only to http and https: any other scheme (javascript:,
            // data:, …) leaves them out, and the entry keeps its text. Nor
            // to a URL with a password, shown as ***: a reader would send
            // that for one.
            let scheme = shown.prefix(while: { $0 != ":" }).lowercased()
            let web = scheme == "http" || scheme == "https"
            let url = web && shown == image.url ? MarkupText.xml(MarkupText.iri(shown)) : nil
            let title = image.description ?? image.location ?? Localized.string(.image, locale: options.locale)
            let summary = [image.description, image.location].compactMap { $0 }.joined(separator: "\n")
            // The type: from the data's own header when the record has the
            // data (then its length too), else from the URL's extension.
            var type = image.url.isEmpty ? nil : ImageFormat.mediaType(ofURL: shown)
            var length: Int?
            if let text = image.dataBase64, let data = Base64.decode(text), let format = ImageFormat.sniff(data) {
                type = format.mediaType
                length = data.count
            }
            let typeAttribute = type.map { " type=\"\($0)\"" } ?? ""
            var out = "<entry>\n"
            // Every entry has an id (RFC 4287, 4.1.2): its own, else its
            // web URL, else one made of its id as written and what it shows.
            // Not a URL with a password: shown as ***, two images' were one
            // entry's id (and a hash of it could be tried against guesses:
            // found by the hunt).
            // An id that is no string has a part more: "1" and 1 had one (found in review).
            let parts = (image.idIsString ? [] : ["json"]) + [image.idText ?? "", shown, image.description ?? "", image.location ?? ""]
            let id = image.id.map(Self.urn) ?? url ?? Self.tag(parts)
            out += "<id>\(id)</id>\n"
            out += "<title>\(MarkupText.xml(Self.oneLine(title)))</title>\n"
            out += "<updated>\(Self.date(updated))</updated>\n"
            if let url {
                out += "<link rel=\"alternate\"\(typeAttribute) href=\"\(url)\"/>\n"
                out += "<link rel=\"enclosure\"\(typeAttribute)\(length.map { " length=\"\($0)\"" } ?? "") href=\"\(url)\"/>\n"
            }
            out += "<summary>\(MarkupText.xml(summary.isEmpty ? title : summary))</summary>\n"
            // The image in the content, so that readers show it: HTML, escaped as XML text.
            var html = ""
            if let url { html += "<p><img src=\"\(url)\" alt=\"\(MarkupText.xml(title))\"/></p>" }
            for text in [image.location, image.description].compactMap({ $0 }) { html += "<p>\(MarkupText.xml(text))</p>" }
            // An entry without an alternate link must have content (RFC
            // 4287, 4.1.2): with neither image nor text, its title.
            if !html.isEmpty {
                out += "<content type=\"html\">\(MarkupText.xml(html))</content>\n"
            } else {
                out += "<content type=\"text\">\(MarkupText.xml(Self.oneLine(title)))</content>\n"
            }
            out += "</entry>\n"
            return out
        case let .comment(comment):
            if kind == nil { kind = .comments }
            let updated = dated(comment.createdAt)
            var out = "<entry>\n"
            out += "<id>\(comment.id.map(Self.urn) ?? Self.tag(comment.username, comment.message, comment.createdAt?.iso8601 ?? ""))</id>\n"
            out += "<title>\(MarkupText.xml(Self.oneLine(comment.message, limit: 100)))</title>\n"
            out += "<updated>\(Self.date(updated))</updated>\n"
            out += "<author><name>\(MarkupText.xml(comment.username))</name></author>\n"
            out += "<content type=\"text\">\(MarkupText.xml(comment.message))</content>\n"
            out += "</entry>\n"
            return out
        }
    }

    /// The document up to its first entry; call it after the last `entry(_:)`.
    public func head() -> String {
        let kind = kind ?? .feed
        let title = Localized.string(kind == .feed ? .feedTitle : .commentsTitle, locale: options.locale)
        let selfLink = options.selfLink.map { MarkupText.xml(Secrets.redactURL($0)) }
        var out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
        out += "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"\(options.locale.language)\">\n"
        out += "<id>\(selfLink ?? Self.defaultID)</id>\n"
        out += "<title>\(MarkupText.xml(title))</title>\n"
        out += "<updated>\(Self.date(updated))</updated>\n"
        out += "<author><name>\(MarkupText.xml(options.author))</name></author>\n"
        if let selfLink { out += "<link rel=\"self\" type=\"application/atom+xml\" href=\"\(selfLink)\"/>\n" }
        out += "<generator>essential-feed</generator>\n"
        return out
    }

    /// An RFC 3339 date to the second, in UTC.
    static func date(_ stamp: Timestamp) -> String { Timestamp(seconds: stamp.seconds).iso8601 }

    /// `urn:uuid:` and the id in lower case (RFC 9562).
    static func urn(_ id: UUID) -> String {
        var text = [UInt8](repeating: 0, count: 36)
        text.withUnsafeMutableBufferPointer { UUID.writeCanonical(id.uuid, to: $0.baseAddress!) }
        return "urn:uuid:" + String(decoding: text.map { $0 >= 0x41 && $0 <= 0x46 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The id of an entry whose record has none: a tag URI (RFC 4151) of
    /// the 64-bit FNV-1a hash of `parts`, the same for the same record on
    /// every run.
    static func tag(_ parts: String...) -> String { tag(parts) }

    static func tag(_ parts: [String]) -> String {
        var hash = FNV1a()
        for part in parts {
            hash.add(part.utf8)
            hash.add(CollectionOfOne(0xFF))  // between parts: no UTF-8 byte
        }
        return "tag:essential-feed,2026:entry:" + hash.hex
    }

    /// Text on one line (line breaks and tabs as spaces), cut to `limit`
    /// characters with an ellipsis. Other controls are for `MarkupText`.
    static func oneLine(_ text: String, limit: Int = 200) -> String {
        // The common case: no break (LF, CR, tab, or the lead byte of U+2028
        // and U+2029) and no more bytes than the limit, hence no more characters.
        if text.utf8.count <= limit, !text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xE2 }) { return text }
        let breaks: Set<Character> = ["\n", "\r", "\r\n", "\t", "\u{2028}", "\u{2029}"]
        var line = String(text.map { breaks.contains($0) ? " " : $0 })
        if line.count > limit { line = String(line.prefix(limit - 1)) + "…" }
        return line
    }
}
