import EssentialFeed

/// Renders records as one self-contained HTML5 page: the case study's feed,
/// comments and error views for a browser, light and dark, localized.
/// Pure and streamed: each record gives its part of the page as it comes
/// (the head with the first), so a page of any length takes no more memory
/// than its largest record.
///
/// A feed image is shown from its cached data (`image_data_base64`, see
/// `feed-cache load --images`) as a `data:` URI with its width and height,
/// when the data is a PNG, JPEG, GIF or WebP image of at most
/// `inlineLimit` bytes; otherwise from its URL (http or https only), over a
/// placeholder that shimmers until the image is there, as the case study's
/// cell does. Every text is escaped (`MarkupText`), and the page's
/// Content-Security-Policy allows no script at all.
public struct FeedPageRenderer {
    public struct Options: Sendable {
        public var locale: AppLocale
        /// The kind of content, for the title; inferred from the first record when nil.
        public var kind: FeedViewRenderer.Kind?
        /// The reference date for comments that carry no `relative_date`.
        public var now: Timestamp
        /// The most bytes of image data shown inline.
        public var inlineLimit: Int

        public init(locale: AppLocale, kind: FeedViewRenderer.Kind? = nil, now: Timestamp, inlineLimit: Int = FeedPageRenderer.defaultInlineLimit) {
            self.locale = locale
            self.kind = kind
            self.now = now
            self.inlineLimit = inlineLimit
        }
    }

    /// 512 KiB: a feed of phone-sized thumbnails stays a page a browser opens at once.
    public static let defaultInlineLimit = 512 * 1024

    /// The policy: nothing but inline styles, and images from the page itself
    /// or the web; no script, no frame, no form, no base.
    public static let contentSecurityPolicy = "default-src 'none'; img-src data: http: https:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

    private let options: Options
    private let dates: RelativeDateFormatter
    /// The page's own kind, once its head is written.
    private var pageKind: FeedViewRenderer.Kind?
    /// The list open now, if any.
    private var openList: FeedViewRenderer.Kind?
    /// When the cache was last refreshed (the first image's `cached_at`),
    /// shown under the title.
    private var refreshed: Timestamp?

    public init(options: Options) {
        self.options = options
        dates = RelativeDateFormatter(locale: options.locale)
    }

    private func localized(_ key: Localized.Key) -> String {
        MarkupText.html(Localized.string(key, locale: options.locale))
    }

    private func title(_ kind: FeedViewRenderer.Kind) -> String {
        localized(kind == .feed ? .feedTitle : .commentsTitle)
    }

    /// The page's part for one record.
    public mutating func render(_ record: ViewRecord) -> String {
        switch record {
        case .error:
            var out = start(options.kind ?? .feed)
            out += closeList()
            out += "<p class=\"error\" role=\"alert\">\(localized(.connectionError))</p>\n"
            return out
        case let .comment(comment):
            // Text from the records is in its own language, not the
            // reader's: each piece takes its direction from itself
            // (`dir="auto"`, as the username's `bdi`), so an English
            // "Great photo!" on an Arabic page keeps its "!" at its end
            // (found by the hunt).
            var out = list(.comments)
            let relative = comment.relativeDate ?? comment.createdAt.map { dates.string(for: $0, relativeTo: options.now) }
            out += "<li class=\"comment\">\n<p class=\"meta\"><bdi class=\"username\">\(MarkupText.html(comment.username))</bdi>"
            if let relative {
                let machine = comment.createdAt.map { " datetime=\"\($0.iso8601)\"" } ?? ""
                out += " <time class=\"date\"\(machine)>\(MarkupText.html(relative))</time>"
            }
            out += "</p>\n<p class=\"message\" dir=\"auto\">\(MarkupText.html(comment.message))</p>\n</li>\n"
            return out
        case let .image(image):
            if pageKind == nil { refreshed = image.cachedAt }
            var out = list(.feed)
            out += "<li class=\"image\">\n"
            if let location = image.location {
                out += "<p class=\"location\" dir=\"auto\">\(MarkupText.html(location))</p>\n"
            }
            out += frame(image)
            if let description = image.description {
                out += "<p class=\"description\" dir=\"auto\">\(MarkupText.html(description))</p>\n"
            }
            out += "</li>\n"
            return out
        }
    }

    /// The end of the page; the whole page (an empty feed under its title)
    /// when no record came.
    public mutating func finish() -> String {
        var out = start(options.kind ?? .feed)
        if openList == nil, !out.isEmpty { out += "<ol class=\"feed\"></ol>\n" }
        out += closeList()
        out += "</main>\n</body>\n</html>\n"
        return out
    }

    /// The image: inline from its data when it can be, else from its URL
    /// over a placeholder, or the placeholder alone.
    private func frame(_ image: ViewRecord.Image) -> String {
        let alt = MarkupText.html(image.description ?? image.location ?? Localized.string(.image, locale: options.locale))
        if let text = image.dataBase64, text.utf8.count <= (options.inlineLimit + 2) / 3 * 4 + 4,
           let data = Base64.decode(text), !data.isEmpty, data.count <= options.inlineLimit,
           let format = ImageFormat.sniff(data) {
            return "<div class=\"frame\"><img src=\"data:\(format.mediaType);base64,\(Base64.encode(data))\" width=\"\(format.width)\" height=\"\(format.height)\" alt=\"\(alt)\"></div>\n"
        }
        // Loaded only from an http or https URL without a password: one
        // with it shown as *** would be asked for with that as the password.
        let url = image.url
        let scheme = url.prefix(while: { $0 != ":" }).lowercased()
        guard scheme == "http" || scheme == "https", Secrets.redactURL(url) == url else {
            return "<div class=\"frame placeholder\" role=\"img\" aria-label=\"\(alt)\"></div>\n"
        }
        return "<div class=\"frame placeholder\"><img src=\"\(MarkupText.html(MarkupText.iri(url)))\" alt=\"\(alt)\" loading=\"lazy\" decoding=\"async\"></div>\n"
    }

    /// Opens the list of `kind` (closing another), under a heading of its
    /// own when the page's title names another kind.
    private mutating func list(_ kind: FeedViewRenderer.Kind) -> String {
        var out = start(options.kind ?? kind)
        guard openList != kind else { return out }
        out += closeList()
        if pageKind != kind { out += "<h2>\(title(kind))</h2>\n" }
        out += "<ol class=\"\(kind == .feed ? "feed" : "comments")\">\n"
        openList = kind
        return out
    }

    private mutating func closeList() -> String {
        guard openList != nil else { return "" }
        openList = nil
        return "</ol>\n"
    }

    /// The page's head and title, once.
    private mutating func start(_ kind: FeedViewRenderer.Kind) -> String {
        guard pageKind == nil else { return "" }
        pageKind = kind
        let language = options.locale.language
        let direction = ["ar", "fa", "ur"].contains(language) ? "rtl" : "ltr"
        return """
        <!DOCTYPE html>
        <html lang="\(language)" dir="\(direction)">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <meta http-equiv="Content-Security-Policy" content="\(Self.contentSecurityPolicy)">
        <meta name="referrer" content="no-referrer">
        <title>\(title(kind))</title>
        <style>
        \(Self.styleSheet)</style>
        </head>
        <body>
        <main>
        <h1>\(title(kind))</h1>
        \(refreshedLine)
        """
    }

    /// When the feed was last refreshed, relative to now in the page's
    /// language (e.g. "↻ 5 minutes ago"), its time for machines in
    /// `datetime`; nothing without a `cached_at`.
    private var refreshedLine: String {
        guard let refreshed else { return "" }
        let relative = MarkupText.html(dates.string(for: refreshed, relativeTo: options.now))
        return "<p class=\"refreshed\"><time datetime=\"\(refreshed.iso8601)\">\u{21BB} \(relative)</time></p>\n"
    }

    /// Light and dark by the reader's setting; one column from a phone's
    /// width to a desktop's; the case study's cell: location with a pin,
    /// a rounded square image, the description under it.
    static let styleSheet = """
    :root { color-scheme: light dark; --bg: #ffffff; --fg: #1c1c1e; --secondary: #6c6c70; --frame: #e3e3e8; --shine: #f4f4f7; --alert: #d70015; --on-alert: #ffffff; }
    @media (prefers-color-scheme: dark) { :root { --bg: #000000; --fg: #f2f2f7; --secondary: #a1a1a6; --frame: #2c2c2e; --shine: #3d3d40; --alert: #ff6961; --on-alert: #000000; } }
    * { box-sizing: border-box; }
    html { background: var(--bg); color: var(--fg); }
    body { margin: 0; font: 17px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif; }
    main { max-width: 36rem; margin: 0 auto; padding: 0 1rem 2rem; }
    h1 { font-size: 1.9rem; line-height: 1.2; margin: 1.4rem 0 1.1rem; }
    h2 { font-size: 1.3rem; margin: 1.8rem 0 .8rem; }
    ol { list-style: none; margin: 0; padding: 0; }
    p { margin: 0; overflow-wrap: anywhere; white-space: pre-line; }
    .image { margin: 0 0 2rem; }
    .location { display: flex; gap: .45em; align-items: flex-start; color: var(--secondary); font-size: .94rem; margin-bottom: .55rem; }
    .location::before { content: ""; flex: none; width: .75em; height: 1em; margin-top: .2em; background: currentColor; -webkit-mask: url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 12 16'%3E%3Cpath d='M6 0a6 6 0 0 0-6 6c0 4.5 6 10 6 10s6-5.5 6-10a6 6 0 0 0-6-6zm0 8.6a2.6 2.6 0 1 1 0-5.2 2.6 2.6 0 0 1 0 5.2z'/%3E%3C/svg%3E") center / contain no-repeat; mask: url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 12 16'%3E%3Cpath d='M6 0a6 6 0 0 0-6 6c0 4.5 6 10 6 10s6-5.5 6-10a6 6 0 0 0-6-6zm0 8.6a2.6 2.6 0 1 1 0-5.2 2.6 2.6 0 0 1 0 5.2z'/%3E%3C/svg%3E") center / contain no-repeat; }
    .frame { aspect-ratio: 1; border-radius: 22px; overflow: hidden; background: var(--frame); }
    .frame img { display: block; width: 100%; height: 100%; object-fit: cover; color: var(--secondary); }
    .placeholder { background: linear-gradient(100deg, var(--frame) 35%, var(--shine) 50%, var(--frame) 65%) var(--frame); background-size: 300% 100%; animation: shimmer 1.6s linear infinite; }
    @keyframes shimmer { from { background-position: 100% 0; } to { background-position: 0 0; } }
    @media (prefers-reduced-motion: reduce) { .placeholder { animation: none; } }
    .description { margin-top: .65rem; }
    .comment { padding: .8rem 0; border-bottom: 1px solid var(--frame); }
    .meta { display: flex; justify-content: space-between; align-items: baseline; gap: 1rem; margin-bottom: .2rem; white-space: normal; }
    .username { font-weight: 600; }
    .date { color: var(--secondary); font-size: .9rem; white-space: nowrap; }
    .refreshed { color: var(--secondary); font-size: .9rem; margin: -.7rem 0 1.1rem; }
    .error { background: var(--alert); color: var(--on-alert); padding: .8rem 1rem; border-radius: 14px; text-align: center; margin: 0 0 1.4rem; }

    """
}
