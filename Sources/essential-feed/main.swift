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

/// The last component of the name this executable was called by.
func calledName() -> String {
    let path = CommandLine.arguments.first ?? ""
    return String(path.split(separator: "/").last ?? Substring(path))
}

/// Writes `text` on `fd` (1 or 2), whole.
func say(_ text: String, to fd: Int32) {
    _ = Array(text.utf8).withUnsafeBytes { Descriptor.writeAll(fd, $0) }
}

let usage = """
    usage: essential-feed TOOL [ARGUMENTS]
           essential-feed --help | --version

    Runs TOOL, one of \(tools.map(\.name).joined(separator: ", ")),
    as if it were called by that name: the toolkit's tools but feed-fetch in one
    executable, installed in PREFIX/libexec/essential-feed and run through a link
    per tool name in PREFIX/bin. See essential-feed(1) and essential-feed(7).

    """

var name = calledName()
if name == "essential-feed" {
    // `essential-feed TOOL ARGS`: the tool's name takes the first place.
    switch CommandLine.arguments.dropFirst().first {
    case nil:
        say(usage, to: 2)
        exit(64)
    case "-h"?, "--help"?:
        say(usage, to: 1)
        exit(0)
    case "--version"?:
        say("essential-feed \(toolkitVersion)\n", to: 1)
        exit(0)
    default:
        break
    }
    name = CommandLine.arguments[1]
    Invocation.arguments = Array(CommandLine.arguments.dropFirst(2))
}
guard let tool = tools.first(where: { $0.name == name }) else {
    say("essential-feed: no tool named '\(name)'\nessential-feed: try 'essential-feed --help'\n", to: 2)
    exit(64)
}
tool.main()
