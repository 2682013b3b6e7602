// The multi-call executable of the tools that link shared system libraries:
// feed-fetch (libcurl) and feed-cache for a PostgreSQL store (libpq), run
// under the name it is called by. The static essential-feed cannot load a
// shared library; these two, apart, each carried their own copy of the Swift
// runtime (14 MB each): together they share one. scripts/install installs it
// as PREFIX/libexec/essential-feed/essential-feed-net, with bin/feed-fetch
// and libexec/essential-feed/feed-cache-postgresql (what feed-cache runs for
// a postgresql:// store, under the name feed-cache) as links to it.
import EssentialFeedPostgreSQL
import FeedCLI
import FeedCacheTool
import FeedFetchTool
#if canImport(Glibc)
import Glibc
#endif

switch MultiCall.calledName {
case "feed-fetch":
    FeedFetchTool.main()
case "feed-cache", "feed-cache-postgresql":
    FeedCacheTool.main(postgreSQL: { uri, wait in PostgreSQLFeedStore(uri: uri, wait: wait) })
default:
    let usage = """
        usage: feed-fetch [ARGUMENTS], or feed-cache-postgresql [ARGUMENTS]

        essential-feed-net is feed-fetch and, for a PostgreSQL store, feed-cache
        in one executable, run under those names through links: installed in
        PREFIX/libexec/essential-feed, with PREFIX/bin/feed-fetch a link to it.
        See essential-feed(1).

        """
    MultiCall.answerOwnOptions(name: "essential-feed-net", usage: usage)
    MultiCall.say(usage, to: 2)
    exit(64)
}
