import EssentialFeed
import EssentialFeedInfra
import FeedCLI

/// `feed-cache`: the tool's composition root, run by its own executable and by
/// the toolkit's multi-call executable.
public enum FeedCacheTool {
    /// Opens the PostgreSQL store of a connection URI, with a wait limit.
    public typealias PostgreSQLStore = (_ uri: String, _ wait: Double) -> any FeedStore

    /// The tool. Without `postgreSQL` (the static executables, which do not
    /// link libpq), a PostgreSQL store is handed to `feed-cache-postgresql`
    /// beside the executable, run in this process's place with the same
    /// arguments and environment, before anything is read.
    static let options: [OptionSpec] = [
        .value("--store"), .value("--now"), .value("--max-age"), .value("--wait"),
        .flag("--append"), .flag("--merge"), .value("--after"), .value("--page-limit"), .flag("--if-unchanged"),
        .flag("--tee"), .flag("--allow-empty"), .value("--output"),
        .flag("--images"), .flag("--cached-at"),
    ]

    public static func main(postgreSQL: PostgreSQLStore? = nil) -> Never {
        let tool = Tool(
            name: "feed-cache",
            help: """
            usage: feed-cache [options] save [--append | --merge [--after ID] [--page-limit N]
                                    [--if-unchanged]] [--tee] [--allow-empty]
                   feed-cache [options] load [--images] [--cached-at]
                   feed-cache [options] validate | delete | info | fallback
                   feed-cache [options] save-images | missing-images | conditional
                   feed-cache [options] image [--output FILE] URL
                   feed-cache --help | --version

            The local cache of the feed: a SQLite file (or a JSON file, for a path
            ending in .json; or a PostgreSQL database, for a postgresql:// URI)
            holding the feed image records last saved, the time they were saved,
            and image data by URL. A cached feed is valid while it
            is younger than the maximum age (7 days; exactly 7 days is expired).

            commands:
              save            replace the cached feed with the feed image records read,
                              stamped with the current time: all at once, and only after
                              the whole input was read and found valid. An error record
                              or an invalid line on input changes nothing; so does an
                              input with no records, unless --allow-empty. A page record
                              (from feed-map) gives the validators kept with the feed;
                              one of a 304 alone confirms the cached feed as it is,
                              stamped with the current time (exit 66 when none is
                              cached; 65 when it answers no conditional request
                              of the cache's: see conditional).
              load            write the cached feed; empty or expired: a not_found
                              error record and exit 66. --images adds each image's
                              stored data to its record (image_data_base64),
                              --cached-at when the cache first had it and when
                              the feed was saved (first_cached_at, cached_at)
              fallback        read feed image records and write them on unchanged; when
                              the input failed (an error record, an invalid line), write
                              the cached feed instead, as load would (exit 0); with no
                              valid cache, write the input's error records (exit with
                              the first one's status). Writes once the input has ended.
              validate        delete the cached feed if it is expired or cannot be read
              delete          delete the cached feed (nothing to do when empty)
              info            write one record describing the store and its feed
              save-images     store the data of image response records (from feed-fetch;
                              valid only with status 200 and a non-empty body) by URL
              image URL       write the stored data of image URL (raw bytes); exit 66
                              when none is stored. Refuses a terminal as standard
                              output unless --output - says so
              missing-images  read feed image records and write a request record
                              {"url":…} for each image with no data stored yet
              conditional     read request records and write them on, those for the
                              page the cached feed was saved from with its validators
                              ("if_none_match", "if_modified_since"), whatever its age

            options:
              --store PATH      the store (default: $FEED_STORE, else
                                $XDG_CACHE_HOME/essential-feed/feed.sqlite, else
                                ~/.cache/essential-feed/feed.sqlite); a libpq URI
                                (postgresql://..., postgres://...) names a database
              --now ISO8601     the current time, for save, load, fallback, validate
                                and info
              --max-age AGE     how long a cached feed stays valid, e.g. 7d, 36h, 90m
                                (default 7d)
              --wait SECONDS    how long to wait for another process's lock before
                                failing with busy (default 5; 0: do not wait)
              --append          save: keep the valid cached items and add the new ids
                                after them, in input order
              --merge           save: the records are a page of the feed, from its head
                                or --after ID: they replace the cached items from there
                                to the page's last id and the rest is kept; an empty
                                page (with --allow-empty) ends the feed there
              --after ID        save --merge: the page follows the cached item ID
              --page-limit N    save --merge: the page was asked for with limit N: one of
                                fewer items (but some) ends the feed, and the cached
                                items after it are dropped
              --if-unchanged    save --merge: read which feed is cached when the
                                command starts, before its input (in a pipe, as the
                                page is asked for), and save only if it is still that
                                one: another writer's save since is newer, and kept
                                (a 304 confirms all the same); with --tee the records
                                are written on all the same
              --tee             save: also write the records on once saved; if the store
                                fails, write them on anyway, report it and exit 74
                                (75 when it is busy)
              --allow-empty     save: an input without records empties the cache
              --images          load: add each image's stored data, base64, as
                                image_data_base64 (for feed-view --format html)
              --cached-at       load: add when the cache first had each image and
                                when the feed was saved, as first_cached_at and
                                cached_at
              --output FILE     image: write the data to FILE; - for standard output,
                                even a terminal
              -h, --help        print this help and exit
              --version         print the version and exit

            environment: FEED_STORE, XDG_CACHE_HOME, HOME, FEED_LOG (debug: image
            data hits and misses); libpq's PG* variables and ~/.pgpass.

            exit status: 0 all handled, 64 usage, 65 invalid input, 66 nothing
            cached or expired, 74 store failure, 75 store busy, or the status of the
            first error record met (see essential-feed(7)).

            """,
            options: options,
            // A PostgreSQL URI's `password=` too.
            shown: { Secrets.redact(FeedStores.shown($0)) }
        )

        let arguments = tool.arguments
        guard let command = arguments.operands.first else {
            tool.usageError("no command: give save, load, fallback, validate, delete, info, save-images, image, missing-images or conditional")
        }
        let operands = Array(arguments.operands.dropFirst())

        let context: CacheContext
        do throws(ErrorRecord) {
            var maxAge = CacheMaxAge.sevenDays
            if let text = arguments.value("--max-age") { maxAge = try CacheMaxAge(parsing: text) }
            let policy = FeedCachePolicy(maxAge: maxAge)
            let wait = try arguments.seconds("--wait", allowZero: true) ?? FeedStores.defaultWait
            let now = try Clock.reading(option: arguments.value("--now"))
            var path = arguments.value("--store") ?? ""
            var unnamed: ErrorRecord?
            if path.isEmpty {
                do throws(ErrorRecord) {
                    path = try FeedStores.defaultPath(environment: tool.environment)
                } catch where command == "fallback" || (command == "save" && arguments.flag("--tee")) {
                    // These pass a valid feed on whatever the store: without a
                    // path (no HOME), only the store's part of them fails.
                    unnamed = error
                }
            }
            if let problem = FeedStores.urlProblem(path) { throw problem }
            if FeedStores.isPostgreSQL(path), postgreSQL == nil { throw PostgreSQLHelper.run(store: path, options: options) }
            context = CacheContext(tool: tool, path: path, unnamed: unnamed, wait: wait, policy: policy, now: now, postgreSQL: postgreSQL)
        } catch {
            if error.kind == .usage { tool.usageError(error.message) }
            tool.fail(error)
            tool.finish()
        }

        let saveFlags = ["--append", "--merge", "--tee", "--allow-empty", "--if-unchanged"].filter(arguments.flag)
            + ["--after", "--page-limit"].filter { arguments.value($0) != nil }
        if command != "save", let flag = saveFlags.first { tool.usageError("\(flag) goes with save only") }
        var saveMode = CacheContext.SaveMode.replace
        if arguments.flag("--append") { saveMode = .append }
        if let after = arguments.value("--after") {
            guard arguments.flag("--merge") else { tool.usageError("--after goes with save --merge only") }
            guard let id = Identifiers.uuid(after) else { tool.usageError("--after takes the id (a UUID) of a cached item, not '\(after)'") }
            saveMode = .merge(after: id)
        } else if arguments.flag("--merge") {
            saveMode = .merge(after: nil)
        }
        if arguments.flag("--append"), arguments.flag("--merge") { tool.usageError("--append and --merge exclude each other") }
        var pageLimit: Int?
        if let text = arguments.value("--page-limit") {
            guard arguments.flag("--merge") else { tool.usageError("--page-limit goes with save --merge only") }
            guard let limit = Int(text), limit > 0, text.allSatisfy(\.isASCII) else { tool.usageError("--page-limit takes a whole number of items, 1 or more, not '\(text)'") }
            pageLimit = limit
        }
        if arguments.flag("--if-unchanged"), !arguments.flag("--merge") { tool.usageError("--if-unchanged goes with save --merge only") }
        if command != "load", let flag = ["--images", "--cached-at"].first(where: arguments.flag) { tool.usageError("\(flag) goes with load only") }
        // image writes raw bytes: its failures go to standard error only.
        if command == "image" { tool.writesErrorRecords = false }
        if command != "image", arguments.value("--output") != nil { tool.usageError("--output goes with image only") }
        let expected = command == "image" ? 1 : 0
        if operands.count != expected || (expected == 1 && operands[0].isEmpty) {
            tool.usageError(expected == 1 ? "image takes one URL" : "unexpected operand '\(operands[0])'")
        }

        tool.confine(context.sandboxRules(command: command, output: arguments.value("--output")))
        switch command {
        case "save":
            context.save(saveMode, tee: arguments.flag("--tee"), allowEmpty: arguments.flag("--allow-empty"),
                         pageLimit: pageLimit, ifUnchanged: arguments.flag("--if-unchanged"))
        case "load": context.load(images: arguments.flag("--images"), cachedAt: arguments.flag("--cached-at"))
        case "fallback": context.fallback()
        case "validate": context.validate()
        case "delete": context.delete()
        case "info": context.info()
        case "save-images": context.saveImages()
        case "image": context.image(operands[0], output: arguments.value("--output"))
        case "missing-images": context.missingImages()
        case "conditional": context.conditional()
        default: tool.usageError("unknown command '\(command)'")
        }
        tool.finish()
    }
}
