import EssentialFeed
import EssentialFeedPresentation
import FeedCLI
#if canImport(Glibc)
import Glibc
import Sandbox
#endif

/// `feed-view`: the tool's composition root, run by its own executable and by
/// the toolkit's multi-call executable.
public enum FeedViewTool {
    public static func main() -> Never {
        let tool = Tool(
            name: "feed-view",
            help: """
            usage: feed-view [--kind feed|comments] [--width N] [--color WHEN]
                             [--locale L] [--now ISO8601]
                   feed-view --format html [--inline-limit BYTES] [--kind K]
                             [--locale L] [--now ISO8601]
                   feed-view --format atom [--self URL] [--author NAME] [--kind K]
                             [--locale L] [--now ISO8601]
                   feed-view --help | --version

            The end of a pipe for a person: renders feed image, image comment and
            error records as text. It shows the localized title ("My Feed",
            "Comments"), then for each feed image its location and description
            (each only when present) and URL, and for each comment the username,
            the relative date (the record's relative_date, from reldate, or else
            computed from created_at) and the message. An error record shows the
            localized connection error ("Couldn't connect to server") and gives
            its exit status. Control characters in records (escape sequences
            among them) are shown as U+FFFD, never sent to the terminal. While
            nothing has arrived and standard error is a terminal (TERM not
            dumb), a loading indicator shows there while the job is in the
            terminal's foreground.

            With --format html it writes one self-contained HTML page instead,
            light and dark, each image shown from its cached data
            (image_data_base64, from feed-cache load --images) when that is a PNG,
            JPEG, GIF or WebP image within the inline limit, else from its URL
            over a placeholder; no script runs in it. With --format atom it
            writes an Atom 1.0 feed: an entry per feed image and per comment.

            options:
              --format F      text (default), html or atom
              --kind K        feed or comments: the title to show (default: from the
                              first record, else feed)
              --width N       text: wrap text to N columns (default: the width of
                              the terminal on standard output, else on standard
                              error, else $COLUMNS, else 80)
              --color WHEN    text: auto (default: when standard output is a
                              terminal, TERM is not dumb and NO_COLOR is
                              unset), always or never
              --inline-limit BYTES
                              html: the most bytes of image data shown inline
                              (default 524288; 0: every image from its URL)
              --self URL      atom: where the feed is published (its self link and
                              its id)
              --author NAME   atom: the feed's author (default essential-feed)
              --locale L      \(HelpText.wrap(HelpText.alternatives(Localized.languages) + " (or a locale name, such as pt_BR.UTF-8); default: $LC_ALL, $LC_MESSAGES, $LANG, after $LANGUAGE as gettext reads it", column: 18))
              --now ISO8601   the reference date for relative dates, and atom's
                              date when the records give none (default: now)
              -h, --help      print this help and exit
              --version       print the version and exit

            exit status: 0 all shown, 64 usage, 65 an invalid line or record, 74
            output or temporary file failure, or the status of the first error
            record met (see essential-feed(7)).

            """,
            options: [
                .value("--format"), .value("--kind"), .value("--width"), .value("--color"), .value("--locale"), .value("--now"),
                .value("--inline-limit"), .value("--self"), .value("--author"),
            ],
            writesErrorRecords: false
        )

        let arguments = tool.arguments
        if !arguments.operands.isEmpty { tool.usageError("unexpected operand '\(arguments.operands[0])'") }
        var kind: FeedViewRenderer.Kind?
        if let text = arguments.value("--kind") {
            guard let k = FeedViewRenderer.Kind(rawValue: text) else { tool.usageError("--kind takes feed or comments") }
            kind = k
        }
        let color: Bool
        switch arguments.value("--color") ?? "auto" {
        case "always": color = true
        case "never": color = false
        // A dumb terminal (TERM=dumb: an editor's shell, some logs) shows escapes as text.
        case "auto": color = Descriptor.isTerminal(1) && (tool.environment["NO_COLOR"] ?? "").isEmpty && tool.environment["TERM"] != "dumb"
        default: tool.usageError("--color takes auto, always or never")
        }
        let now: Timestamp
        var width = 80
        var terminalWidth: (() -> Int?)?
        do {
            now = try Clock.now(option: arguments.value("--now"))
            if let w = try arguments.integer("--width", in: 20...1000) {
                width = w
            } else if let w = Terminal.columns(1) ?? Terminal.columns(2) {
                width = max(20, w)
                terminalWidth = { Terminal.columns(1) ?? Terminal.columns(2) }
            } else if let w = tool.environment["COLUMNS"].flatMap({ Int($0) }), w >= 20 {
                width = w
            }
        } catch {
            tool.usageError(error.message)
        }
        tool.setLocaleVariablesToC { AppLocale(validating: $0) != nil }
        let locale: AppLocale
        do {
            locale = try AppLocale.chosen(option: arguments.value("--locale"), environment: tool.environment)
        } catch {
            tool.usageError(error.message)
        }
        let format = arguments.value("--format") ?? "text"
        let ownOptions = ["text": ["--width", "--color"], "html": ["--inline-limit"], "atom": ["--self", "--author"]]
        guard ownOptions[format] != nil else { tool.usageError("--format takes text, html or atom") }
        for (other, names) in ownOptions where other != format {
            if let name = names.first(where: { arguments.value($0) != nil }) { tool.usageError("\(name) goes with --format \(other) only") }
        }
        var inlineLimit = FeedPageRenderer.defaultInlineLimit
        do {
            if let limit = try arguments.integer("--inline-limit", in: 0...(1 << 30)) { inlineLimit = limit }
        } catch {
            tool.usageError(error.message)
        }
        let selfLink = arguments.value("--self")
        if let selfLink, !Identifiers.isAbsoluteURL(selfLink) { tool.usageError("--self takes an absolute URL, not '\(selfLink)'") }

        tool.confine(.base(environment: tool.environment))
        tool.refuseTerminalInput()
        let spinner = Descriptor.isTerminal(2) && tool.environment["TERM"] != "dumb" ? Spinner(text: Localized.string(.loading, locale: locale)) : nil
        spinner?.start()
        if let spinner { Signals.onInterrupt { spinner.stop() } }
        let view: any RecordView
        switch format {
        case "html":
            view = PageView(FeedPageRenderer(options: .init(locale: locale, kind: kind, now: now, inlineLimit: inlineLimit)))
        case "atom":
            let options = FeedAtomRenderer.Options(locale: locale, kind: kind, now: now, selfLink: selfLink,
                                                   author: arguments.value("--author") ?? FeedAtomRenderer.defaultAuthor)
            view = AtomView(FeedAtomRenderer(options: options), spool: Spool(name: "feed-view", environment: tool.environment, memoryLimit: 1 << 20),
                            report: { tool.diagnostics.error($0) })
        default:
            view = TextView(.init(locale: locale, width: width, color: color, kind: kind, now: now), terminalWidth: terminalWidth)
        }

        tool.forEachLine { line, number, truncated in
            spinner?.stop()
            guard let document = tool.parseRecord(line, number, truncated, rejected: view.rejected) else { return }
            if let kind = RecordKind.errorKind(of: document) { tool.record(kind) }
            // A page record (feed-map's word to the cache) shows nothing.
            if RecordKind.isPage(document) { return }
            guard try view.show(document, on: tool.output) else {
                let response = RecordKind.errorKind(of: document) == nil && document.member(0, "status") != nil
                let reason = InputLocation.prefix(line: number) + "not a feed image, image comment or error record"
                    + (response ? ": a response record (put feed-map, or comments-map, before this tool)" : "")
                view.rejected(reason)
                tool.diagnostics.error(reason)
                tool.record(.invalidData)
                return
            }
        }
        spinner?.stop()
        do throws(ErrorRecord) {
            try view.finish(on: tool.output)
        } catch {
            tool.fail(error)
        }
        tool.finish()
    }
}
