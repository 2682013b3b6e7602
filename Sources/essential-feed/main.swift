// The multi-call executable: every tool but feed-fetch, run under the name it
// is called by (a link per tool name, as busybox), or as
// `essential-feed TOOL [ARGUMENTS]`. One copy of the Swift runtime, Foundation
// and ICU's data for all of them: scripts/install installs this.
import CommentsMapTool
import FeedCLI
import FeedCacheTool
import FeedMapTool
import FeedPaginateTool
import FeedServeTool
import FeedViewTool
import ReldateTool
#if canImport(Glibc)
import Glibc
#endif

let tools: [(name: String, main: () -> Never)] = [
    ("feed-map", FeedMapTool.main), ("comments-map", CommentsMapTool.main), ("feed-cache", { FeedCacheTool.main() }),
    ("feed-paginate", FeedPaginateTool.main), ("reldate", ReldateTool.main), ("feed-view", FeedViewTool.main),
    ("feed-serve", FeedServeTool.main),
]

let usage = """
    usage: essential-feed TOOL [ARGUMENTS]
           essential-feed --help | --version

    Runs TOOL, one of \(tools.map(\.name).joined(separator: ", ")),
    as if it were called by that name: the toolkit's tools but feed-fetch in one
    executable, installed in PREFIX/libexec/essential-feed and run through a link
    per tool name in PREFIX/bin. See essential-feed(1) and essential-feed(7).

    """

var name = MultiCall.calledName
if name == "essential-feed" {
    // `essential-feed TOOL ARGS`: the tool's name takes the first place.
    MultiCall.answerOwnOptions(name: name, usage: usage)
    guard CommandLine.arguments.count > 1 else {
        MultiCall.say(usage, to: 2)
        exit(64)
    }
    name = CommandLine.arguments[1]
    Invocation.arguments = Array(CommandLine.arguments.dropFirst(2))
}
guard let tool = tools.first(where: { $0.name == name }) else {
    MultiCall.say("essential-feed: no tool named '\(name)'\nessential-feed: try 'essential-feed --help'\n", to: 2)
    exit(64)
}
tool.main()
