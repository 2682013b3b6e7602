import EssentialFeed
import FeedCLI
import Sandbox

/// `feed-paginate`: the tool's composition root, run by its own executable and by
/// the toolkit's multi-call executable.
public enum FeedPaginateTool {
    public static func main() -> Never {
        let tool = Tool(
            name: "feed-paginate",
            help: """
            usage: feed-paginate [--base-url URL] [--limit N]
                   feed-paginate --help | --version

            Reads the feed image records loaded so far on standard input and writes
            one request record for the next page of the feed (keyset pagination):
              {"url":"BASE/v1/feed?limit=N&after_id=LAST_ID"}
            where LAST_ID is the id of the last record read; with no records at all,
            the first page, {"url":"BASE/v1/feed?limit=N"}. The base URL keeps its
            port and path.

            Error records on standard input are written through unchanged, and then
            no request is written: after a failed load the next page is unknown.

            options:
              --base-url URL  the feed API (default: $FEED_BASE_URL)
              --limit N       items per page, 1-1000 (default 10)
              -h, --help      print this help and exit
              --version       print the version and exit

            exit status: 0 all handled, 64 usage, 65 invalid input line or a record
            that is not a feed image, or the status of the first error record met
            (see essential-feed(7)).

            """,
            options: [.value("--base-url"), .value("--limit")]
        )

        if !tool.arguments.operands.isEmpty { tool.usageError("unexpected operand '\(tool.arguments.operands[0])'") }
        let limit: Int
        do {
            limit = try tool.arguments.integer("--limit", in: 1...1000) ?? FeedEndpoint.defaultLimit
        } catch {
            tool.usageError(error.message)
        }
        guard let base = tool.baseURL() else { tool.usageError("no base URL: give --base-url or set FEED_BASE_URL") }
        tool.confine(.base(environment: tool.environment))
        tool.refuseTerminalInput()

        var lastID: String?
        tool.forEachRecord { document, number in
            if RecordKind.isPage(document) { return }
            do throws(ErrorRecord) {
                lastID = try FeedImage(record: document).id.canonicalString
            } catch {
                tool.fail(error.on(line: number))
            }
        }
        if tool.exitCode == 0 {
            let url = FeedEndpoint(limit: limit, after: lastID.flatMap(Identifiers.uuid)).url(base)
            tool.output.record { $0.beginObject(); $0.member("url", url); $0.endObject() }
        }
        tool.finish()
    }
}
