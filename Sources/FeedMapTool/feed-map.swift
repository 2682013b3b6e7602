import EssentialFeed
import FeedCLI

/// `feed-map`: the tool's composition root, run by its own executable and by
/// the toolkit's multi-call executable.
public enum FeedMapTool {
    public static func main() -> Never {
        let tool = Tool(
            name: "feed-map",
            help: """
            usage: feed-map [--raw]
                   feed-map --help | --version

            Reads response records (from feed-fetch) on standard input and writes one
            feed image record per item of each valid feed response:
              {"id":UUID,"description"?:…,"location"?:…,"url":…}

            A response is valid only with status 200 and a JSON body {"items":[…]}
            whose every item has a UUID "id", an absolute URL "image" and optional
            string "description" and "location". An invalid response gives one
            invalid_data error record and no feed image records. Error records on
            standard input are written through unchanged.

            options:
              --raw        read standard input as one bare payload (e.g. from curl)
                           taken as a status-200 response
              -h, --help   print this help and exit
              --version    print the version and exit

            exit status: 0 all handled, 64 usage, 65 invalid data, or the status of
            the first error record met (see essential-feed(7)).

            """,
            options: [.flag("--raw")]
        )
        if !tool.arguments.operands.isEmpty { tool.usageError("unexpected operand '\(tool.arguments.operands[0])'") }
        ResponseMapping.run(tool, kind: .feed, raw: tool.arguments.flag("--raw"))
    }
}
