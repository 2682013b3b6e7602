import Dispatch
import EssentialFeed
import EssentialFeedPresentation
import FeedCLI
#if canImport(Glibc)
import Glibc
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
            nothing has arrived and standard error is a terminal, a loading
            indicator shows there.

            options:
              --kind K        feed or comments: the title to show (default: from the
                              first record, else feed)
              --width N       wrap text to N columns (default: the width of the
                              terminal on standard output, else on standard error,
                              else $COLUMNS, else 80)
              --color WHEN    auto (default: when standard output is a terminal and
                              NO_COLOR is unset), always or never
              --locale L      e.g. pt_BR, el_GR (default: $LC_ALL, $LC_MESSAGES, $LANG)
              --now ISO8601   the reference date for relative dates (default: now)
              -h, --help      print this help and exit
              --version       print the version and exit

            exit status: 0 all shown, 64 usage, 65 an invalid line or record, or
            the status of the first error record met (see essential-feed(7)).

            """,
            options: [.value("--kind"), .value("--width"), .value("--color"), .value("--locale"), .value("--now")],
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
        case "auto": color = Descriptor.isTerminal(1) && (tool.environment["NO_COLOR"] ?? "").isEmpty
        default: tool.usageError("--color takes auto, always or never")
        }
        let now: Timestamp
        var width = 80
        do {
            now = try Clock.now(option: arguments.value("--now"))
            if let w = try arguments.integer("--width", in: 20...1000) {
                width = w
            } else if let w = Terminal.columns(1) ?? Terminal.columns(2) {
                width = max(20, w)
            } else if let w = tool.environment["COLUMNS"].flatMap({ Int($0) }), w >= 20 {
                width = w
            }
        } catch {
            tool.usageError(error.message)
        }
        let locale: AppLocale
        do {
            locale = try AppLocale.chosen(option: arguments.value("--locale"), environment: tool.environment)
        } catch {
            tool.usageError(error.message)
        }
        var renderer = FeedViewRenderer(options: .init(locale: locale, width: width, color: color, kind: kind, now: now))

        tool.refuseTerminalInput()
        let spinner = Descriptor.isTerminal(2) ? Spinner(text: Localized.string(.loading, locale: locale)) : nil
        spinner?.start()
        if let spinner { Signals.onInterrupt { spinner.stop() } }

        tool.forEachLine { line, number, truncated in
            spinner?.stop()
            guard let document = tool.parseRecord(line, number, truncated) else { return }
            if let kind = RecordKind.errorKind(of: document) { tool.record(kind) }
            // A page record (feed-map's word to the cache) shows nothing.
            if RecordKind.isPage(document) { return }
            guard let text = renderer.render(document) else {
                tool.diagnostics.error(InputLocation.prefix(line: number) + "not a feed image, image comment or error record")
                tool.record(.invalidData)
                return
            }
            tool.output.raw(Array(text.utf8))
        }
        spinner?.stop()
        tool.output.raw(Array(renderer.finish().utf8))
        tool.finish()
    }
}
