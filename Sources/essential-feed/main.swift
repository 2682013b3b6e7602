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
    ("feed-map", FeedMapTool.main), ("comments-map", CommentsMapTool.main), ("feed-cache", FeedCacheTool.main),
    ("feed-paginate", FeedPaginateTool.main), ("reldate", ReldateTool.main), ("feed-view", FeedViewTool.main),
    ("feed-serve", FeedServeTool.main),
]

/// The last component of the name this executable was called by.
func calledName() -> String {
    let path = CommandLine.arguments.first ?? ""
    return String(path.split(separator: "/").last ?? Substring(path))
}

var name = calledName()
if name == "essential-feed" {
    // `essential-feed TOOL ARGS`: the tool's name takes the first place.
    guard CommandLine.arguments.count > 1 else {
        let list = tools.map(\.name).joined(separator: ", ")
        let text = "usage: essential-feed TOOL [ARGUMENTS]\n       (or run it as one of: \(list))\n"
        _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
        exit(64)
    }
    name = CommandLine.arguments[1]
    Invocation.arguments = Array(CommandLine.arguments.dropFirst(2))
}
guard let tool = tools.first(where: { $0.name == name }) else {
    let text = "essential-feed: no tool named '\(name)'\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    exit(64)
}
tool.main()
