import EssentialFeed
import EssentialFeedPresentation
import FeedCLI
import Sandbox

/// `reldate`: the tool's composition root, run by its own executable and by
/// the toolkit's multi-call executable.
public enum ReldateTool {
    public static func main() -> Never {
        let tool = Tool(
            name: "reldate",
            help: """
            usage: reldate [--field F] [--into G] [--now ISO8601] [--locale L] [--style S]
                   reldate [options] DATE...
                   reldate --help | --version

            Adds to each record a localized relative date ("1 day ago", "há 1 dia",
            "in 2 hours") of its field F as field G, after its other fields (an
            existing G is replaced). Records without F, and error records, are
            written through unchanged. With DATE operands, formats each one on a
            line of its own instead of reading records.

            options:
              --field F        the field holding an ISO 8601 date (default created_at)
              --into G         the field to write (default relative_date)
              --now ISO8601    the reference date (default: the current time)
              --locale L       \(HelpText.wrap(HelpText.alternatives(Localized.languages) + " (or a locale name, such as pt_BR.UTF-8); default: $LC_ALL, $LC_MESSAGES, $LANG, in that order, after $LANGUAGE as gettext reads it", column: 19))
              --style S        wide (1 day ago), short (1 yr. ago) or narrow (1y ago);
                               default wide
              -h, --help       print this help and exit
              --version        print the version and exit

            exit status: 0 all handled, 64 usage, 65 a value that is not an ISO 8601
            date or an invalid line, or the status of the first error record met
            (see essential-feed(7)).

            """,
            options: [.value("--field"), .value("--into"), .value("--now"), .value("--locale"), .value("--style")]
        )

        let arguments = tool.arguments
        let field = arguments.value("--field") ?? "created_at"
        let into = arguments.value("--into") ?? "relative_date"
        let now: Timestamp
        do {
            now = try Clock.now(option: arguments.value("--now"))
        } catch {
            tool.usageError(error.message)
        }
        guard let style = RelativeDateFormatter.Style(rawValue: arguments.value("--style") ?? "wide") else {
            tool.usageError("--style takes wide, short or narrow")
        }
        tool.setLocaleVariablesToC { AppLocale(validating: $0) != nil }
        let locale: AppLocale
        do {
            locale = try AppLocale.chosen(option: arguments.value("--locale"), environment: tool.environment)
        } catch {
            tool.usageError(error.message)
        }
        let formatter = RelativeDateFormatter(locale: locale, style: style)
        tool.confine(.base(environment: tool.environment))

        if !arguments.operands.isEmpty {
            tool.writesErrorRecords = false
            for operand in arguments.operands {
                guard let date = Timestamp(iso8601: operand) else {
                    tool.fail(ErrorRecord(.invalidData, "'\(operand)' is not an ISO 8601 date"))
                    continue
                }
                tool.output.raw(Array((formatter.string(for: date, relativeTo: now) + "\n").utf8))
            }
            tool.finish()
        }

        tool.refuseTerminalInput()
        tool.forEachRecord { document, number in
            guard let node = document.member(document.root, field) else {
                tool.output.line(document.bytes)
                return
            }
            guard let text = document.string(node), let date = Timestamp(iso8601: text) else {
                tool.fail(ErrorRecord(.invalidData, "\(field) is not an ISO 8601 date", line: number))
                return
            }
            let relative = formatter.string(for: date, relativeTo: now)
            tool.output.record { writer in
                writer.beginObject()
                writer.members(of: document, document.root, excluding: [into])
                writer.member(into, relative)
                writer.endObject()
            }
        }
        tool.finish()
    }
}
