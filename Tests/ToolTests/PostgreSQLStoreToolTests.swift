import Foundation
import XCTest

/// feed-cache on a PostgreSQL store, as users meet it: the URI in FEED_STORE
/// or libpq's PG* variables, a database that cannot be reached, a schema that
/// is not ours, a writer holding the lock, a writer killed mid-save. The
/// scenarios every store shares run in FeedCacheToolTests.
final class PostgreSQLStoreToolTests: XCTestCase {
    nonisolated(unsafe) private static var shared: PostgreSQLServer?
    nonisolated(unsafe) private static var unavailable: Error?
    private var database = ""
    private var server: PostgreSQLServer { Self.shared! }
    private var store: String { server.uri(database: database) }

    static let feedA = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"a description","location":"a location","url":"http://h/image-0"}"#
        + "\n" + #"{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","url":"http://h/image-1"}"# + "\n"

    override class func setUp() {
        super.setUp()
        do { shared = try PostgreSQLServer.start() } catch { unavailable = error }
    }

    override class func tearDown() {
        shared?.stop()
        shared = nil
        super.tearDown()
    }

    override func setUpWithError() throws {
        if let unavailable = Self.unavailable { throw unavailable }
        database = "t\(UUID().uuidString.prefix(8).lowercased())"
        try server.psql("CREATE DATABASE \(database)")
    }

    /// A Ctrl-C on the pipe: a signal pending as the save's input ends
    /// commits nothing (as on the files: found by the hunt). (The signal's
    /// thread is held, so that the signal stays pending.)
    func test_save_SIGINTPendingAsItsInputEnds_commitsNothing_andExits130() throws {
        guard ProcessInfo.processInfo.environment["FEED_BIN"] == nil else {
            throw XCTSkip("the pause of the signal's thread is in debug builds only")
        }
        XCTAssertEqual(sh("feed-cache save", stdin: Self.feedA, environment: ["FEED_STORE": store]).status, 0)
        let dir = temporaryDirectory(self)
        let run = sh(#"""
            mkfifo "$D/in"
            FEED_TEST_PAUSE_SIGNAL_THREAD="$D/thread" feed-cache save < "$D/in" > /dev/null & pid=$!
            exec 3> "$D/in"
            while [ ! -e "$D/thread.ready" ]; do sleep 0.01; done
            kill -INT $pid
            printf '%s\n' '{"id":"166FCDD7-C9F4-420A-B2D6-CE2EAFA3D82F","url":"http://h/image-2"}' >&3; exec 3>&-
            sleep 0.5; touch "$D/thread.go"; wait $pid; echo "status $?"
            """#, environment: ["D": dir, "FEED_STORE": store], timeout: 30)
        XCTAssertEqual(run.out, "status 130\n", run.stderr)
        XCTAssertEqual(sh("feed-cache load", environment: ["FEED_STORE": store]).out, Self.feedA)
    }

    /// A signal as feed-cache runs its PostgreSQL helper in its place: taken
    /// by feed-cache's own thread, it was lost when the exec got past that
    /// thread before it ended the process, and the helper went on to commit
    /// (found in review). It is left pending for the helper, which takes it.
    /// (feed-cache is held before its exec, and its signal's thread once it
    /// has taken a signal, as the scheduler may hold them.)
    func test_save_SIGTERMAsTheHelperIsRun_isTakenByTheHelper_andCommitsNothing() throws {
        guard ProcessInfo.processInfo.environment["FEED_BIN"] == nil else {
            throw XCTSkip("the pauses are in debug builds only")
        }
        XCTAssertEqual(sh("feed-cache save", stdin: Self.feedA, environment: ["FEED_STORE": store]).status, 0)
        // With a signalfd, the exec goes on while the thread would hold the
        // signal taken; without one (sigwait takes it at once), the thread
        // goes on first, and the exec while it would be ending the process:
        // it must send the signal again.
        for (signalfd, first, then) in [(true, "exec", "taken"), (false, "taken", "exec")] {
            let dir = temporaryDirectory(self)
            let run = sh(#"""
                printf '%s\n' '{"id":"166FCDD7-C9F4-420A-B2D6-CE2EAFA3D82F","url":"http://h/image-2"}' > "$D/in"
                FEED_TEST_PAUSE_BEFORE_EXEC="$D/exec" FEED_TEST_PAUSE_SIGNAL_TAKEN="$D/taken" FEED_TEST_PAUSE_AFTER_MARK="$D/mark" \
                    feed-cache save < "$D/in" > /dev/null & pid=$!
                while [ ! -e "$D/exec.ready" ]; do sleep 0.01; done
                kill -TERM $pid; sleep 0.3; touch "$D/$FIRST.go"; sleep 0.5; touch "$D/$THEN.go"; sleep 0.5; touch "$D/mark.go"
                wait $pid; echo "status $?"
                """#, environment: ["D": dir, "FEED_STORE": store, "FIRST": first, "THEN": then].merging(signalfd ? [:] : ["FEED_TEST_NO_SIGNALFD": "1"]) { $1 },
                timeout: 30)
            XCTAssertEqual(run.out, "status 143\n", "signalfd \(signalfd): \(run.stderr)")
            XCTAssertEqual(sh("feed-cache load", environment: ["FEED_STORE": store]).out, Self.feedA, "signalfd \(signalfd)")
        }
    }

    func test_store_inFEED_STORE_orFromLibpqsVariables_savesAndLoads_andInfoNamesIt() {
        let save = sh("feed-cache save", stdin: Self.feedA, environment: ["FEED_STORE": store])
        XCTAssertEqual(save.status, 0, save.stderr)
        // postgres:// with nothing else: libpq's PGHOST, PGUSER and PGDATABASE say where.
        let load = sh("feed-cache load < /dev/null", environment: ["FEED_STORE": "postgres://", "PGHOST": server.directory, "PGUSER": server.user, "PGDATABASE": database])
        XCTAssertEqual(load.status, 0, load.stderr)
        XCTAssertEqual(load.out, Self.feedA)
        // A scheme in any case is the same database (libpq knows lower case
        // only: the whole URI was a database name on the default server).
        for scheme in ["POSTGRESQL", "Postgres"] {
            let upper = store.replacingOccurrences(of: "postgresql://", with: scheme + "://")
            let loaded = sh("feed-cache load < /dev/null", environment: ["FEED_STORE": upper])
            XCTAssertEqual(loaded.status, 0, "\(upper): \(loaded.stderr)")
            XCTAssertEqual(loaded.out, Self.feedA)
        }

        let info = sh("feed-cache info < /dev/null", environment: ["FEED_STORE": store]).records().first
        XCTAssertEqual(info?["store"] as? String, "postgresql")
        XCTAssertEqual(info?["path"] as? String, store)
        XCTAssertEqual(info?["items"] as? Int, 2)
        XCTAssertEqual(info?["schema_version"] as? Int, 3)
        XCTAssertEqual(try server.psql("SELECT application, schema_version FROM essential_feed.store", database: database), "essential-feed feed cache|3\n")
    }

    /// feed-sync keeps its lock for a database in the user's cache, and
    /// makes nothing where it runs (no `postgresql:` folder).
    func test_feedSync_onADatabase_makesNothingInTheWorkingDirectory() throws {
        let served = try Served(test: self)
        let cwd = temporaryDirectory(self), home = temporaryDirectory(self)
        let run = sh(#"cd "$W" && "$S/feed-sync""#, environment: [
            "W": cwd, "HOME": home, "XDG_CACHE_HOME": "", "S": AcceptanceTests.scripts, "FEED_STORE": store, "FEED_BASE_URL": served.base,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cwd), [])
        let locks = try FileManager.default.contentsOfDirectory(atPath: home + "/.cache/essential-feed")
        XCTAssertEqual(locks.count, 1)
        XCTAssertTrue(locks.first?.hasPrefix("sync-") == true && locks.first?.hasSuffix(".lock") == true, "\(locks)")
        XCTAssertEqual(sh("feed-cache info < /dev/null", environment: ["FEED_STORE": store]).records().first?["items"] as? Int, 3)
        // The scheme in upper case: the same database, and the same lock (it was taken for a file path).
        let upper = sh(#"cd "$W" && "$S/feed-sync""#, environment: [
            "W": cwd, "HOME": home, "XDG_CACHE_HOME": "", "S": AcceptanceTests.scripts,
            "FEED_STORE": store.replacingOccurrences(of: "postgresql://", with: "POSTGRESQL://"), "FEED_BASE_URL": served.base,
        ])
        XCTAssertEqual(upper.status, 0, upper.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cwd), [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home + "/.cache/essential-feed"), locks, "one lock")
    }

    /// The images' data is read after the feed's rows, which the store
    /// streams, in the same read transaction.
    /// The cron job on one host, the app on another: the launch keeps the
    /// pages and images the sync keeps; a viewer's role granted SELECT
    /// only shows the remote feed (status 0, its failed save said at info
    /// alone) and loads the shared cache.
    func test_syncThenShow_keepsThePagesAndImages_andAViewerWithSelectOnly_showsAndLoads() throws {
        let served = try Served(["--builtin", "demo"], test: self)
        var env = ["S": AcceptanceTests.scripts, "FEED_BIN": Products.directory, "FEED_STORE": store, "FEED_BASE_URL": served.base,
                   "XDG_CACHE_HOME": temporaryDirectory(self), "LANG": "C", "NO_COLOR": "1"]
        func counts() -> (Int?, Int?) {
            let info = sh("feed-cache info < /dev/null", environment: ["FEED_STORE": store]).records().first
            return (info?["items"] as? Int, info?["image_data_count"] as? Int)
        }
        let sync = sh(#""$S/feed-sync" --pages 3 --limit 4"#, environment: env)
        XCTAssertEqual(sync.status, 0, sync.stderr)
        XCTAssertTrue(counts() == (12, 12), "\(counts())")
        let show = sh(#""$S/feed-show" --limit 4"#, environment: env)
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(counts() == (12, 12), "after feed-show: \(counts())")

        let viewer = "v\(database)"
        try server.psql("CREATE ROLE \(viewer) LOGIN; GRANT USAGE ON SCHEMA essential_feed TO \(viewer); GRANT SELECT ON ALL TABLES IN SCHEMA essential_feed TO \(viewer)", database: database)
        env["FEED_STORE"] = "postgresql:///\(database)?host=\(server.directory)&user=\(viewer)"
        let before = try server.psql("SELECT count(*) FROM essential_feed.image_data", database: database)
        let viewed = sh(#"FEED_LOG=info "$S/feed-show" --limit 4"#, environment: env)
        XCTAssertEqual(viewed.status, 0, viewed.stderr)
        XCTAssertTrue(viewed.out.contains("Sydney Harbour"), viewed.out)
        XCTAssertTrue(viewed.stderr.contains("feed-show: the feed shown was not saved in the cache"), viewed.stderr)
        let quiet = sh(#""$S/feed-show" --limit 4"#, environment: env)
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stderr, "", "a viewer's launch is silent by default")
        let load = sh("feed-cache load < /dev/null", environment: env)
        XCTAssertEqual(load.status, 0, load.stderr)
        XCTAssertEqual(load.lines.count, 12)
        XCTAssertEqual(try server.psql("SELECT count(*) FROM essential_feed.image_data", database: database), before)
    }

    /// A role that may not read a genuine cache is told so (the role, the
    /// right and the object), not that the schema is someone else's; once
    /// granted USAGE and SELECT it reads; a save is refused the same way.
    func test_aRoleWithoutRights_isToldWhichRightItLacks() throws {
        XCTAssertEqual(sh("feed-cache save", stdin: Self.feedA, environment: ["FEED_STORE": store]).status, 0)
        let role = "r\(database)"
        try server.psql("CREATE ROLE \(role) LOGIN", database: database)
        let env = ["FEED_STORE": "postgresql:///\(database)?host=\(server.directory)&user=\(role)"]

        let refused = sh("feed-cache load < /dev/null", environment: env)
        XCTAssertEqual(refused.status, 74)
        XCTAssertTrue(refused.stderr.contains("permission denied: role \(role) lacks USAGE on schema essential_feed"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("is not a feed cache"), refused.stderr)

        try server.psql("GRANT USAGE ON SCHEMA essential_feed TO \(role)", database: database)
        let table = sh("feed-cache load < /dev/null", environment: env)
        XCTAssertEqual(table.status, 74)
        XCTAssertTrue(table.stderr.contains("permission denied: role \(role) lacks SELECT on table store"), table.stderr)

        try server.psql("GRANT SELECT ON ALL TABLES IN SCHEMA essential_feed TO \(role)", database: database)
        let load = sh("feed-cache load < /dev/null", environment: env)
        XCTAssertEqual(load.status, 0, load.stderr)
        XCTAssertEqual(load.out, Self.feedA)

        let save = sh("feed-cache save", stdin: Self.feedA, environment: env)
        XCTAssertEqual(save.status, 74)
        XCTAssertTrue(save.stderr.contains("permission denied: role \(role) lacks "), save.stderr)
        XCTAssertTrue(save.stderr.contains("a writer also INSERT, UPDATE and DELETE"), save.stderr)
    }

    /// The README's GRANT lines, run as written once the owner's first save
    /// made the schema: the writer role syncs, the viewer role shows and
    /// loads, and may not save.
    func test_documentedGrants_makeAWriterThatSyncs_andAViewerThatShowsAndLoads() throws {
        let readme = try String(contentsOf: DocumentedRecipeTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let grants = readme.components(separatedBy: "\n").filter { $0.hasPrefix("    GRANT ") }.map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(grants.count, 3, "\(grants)")
        let served = try Served(["--builtin", "demo"], test: self)
        let first = sh(#""$S/feed-sync" --pages 2 --limit 4"#, environment: ["S": AcceptanceTests.scripts, "FEED_BIN": Products.directory,
                       "FEED_BASE_URL": served.base, "XDG_CACHE_HOME": temporaryDirectory(self), "FEED_STORE": store])
        XCTAssertEqual(first.status, 0, first.stderr)
        _ = try? server.psql("CREATE ROLE feed_writer LOGIN")
        _ = try? server.psql("CREATE ROLE feed_viewer LOGIN")
        try server.psql(grants.joined(separator: " "), database: database)
        func env(_ role: String) -> [String: String] {
            ["S": AcceptanceTests.scripts, "FEED_BIN": Products.directory, "FEED_BASE_URL": served.base, "XDG_CACHE_HOME": temporaryDirectory(self),
             "FEED_STORE": "postgresql:///\(database)?host=\(server.directory)&user=\(role)", "LANG": "C", "NO_COLOR": "1"]
        }
        let sync = sh(#""$S/feed-sync" --pages 2 --limit 4"#, environment: env("feed_writer"))
        XCTAssertEqual(sync.status, 0, sync.stderr)
        let show = sh(#""$S/feed-show" --limit 4"#, environment: env("feed_viewer"))
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertEqual(show.stderr, "")
        let load = sh("feed-cache load < /dev/null", environment: env("feed_viewer"))
        XCTAssertEqual(load.status, 0, load.stderr)
        XCTAssertEqual(load.lines.count, 8)
        let save = sh("feed-cache save", stdin: Self.feedA, environment: env("feed_viewer"))
        XCTAssertEqual(save.status, 74, save.stderr)
        // An expired feed the viewer may not delete: the right it lacks is
        // said, not the aborted transaction's next statement.
        let validate = sh("feed-cache --now 2040-01-01T00:00:00Z validate < /dev/null", environment: env("feed_viewer"))
        XCTAssertEqual(validate.status, 74, validate.stderr)
        XCTAssertTrue(validate.stderr.contains("permission denied: role feed_viewer lacks DELETE on table "), validate.stderr)
    }

    func test_loadImages_addsEachStoredImagesData_andTheCacheDate() {
        let env = ["FEED_STORE": store]
        XCTAssertEqual(sh("feed-cache --now 2020-05-20T12:00:00Z save", stdin: Self.feedA, environment: env).status, 0)
        let image = #"{"url":"http://h/image-1","status":200,"body_base64":"iVBORw0KGgo="}"# + "\n"
        XCTAssertEqual(sh("feed-cache save-images", stdin: image, environment: env).status, 0)
        let run = sh("feed-cache --now 2020-05-21T00:00:00Z load --images --cached-at < /dev/null", environment: env)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines, [
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"a description","location":"a location","url":"http://h/image-0","first_cached_at":"2020-05-20T12:00:00Z","cached_at":"2020-05-20T12:00:00Z"}"#,
            #"{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","url":"http://h/image-1","first_cached_at":"2020-05-20T12:00:00Z","image_data_base64":"iVBORw0KGgo=","cached_at":"2020-05-20T12:00:00Z"}"#,
        ])
    }

    /// An image URL is the server's to choose: one longer than a B-tree
    /// index entry can hold (about 2,700 bytes once compressed; this one is
    /// 40 KB of random text) failed the whole `save-images` (74) with
    /// "index row size exceeds btree maximum". A store of version 2 (its
    /// image data keyed by such an index) is read as it is, and the next
    /// write upgrades it, keeping its data.
    /// `image --output FILE` may write in FILE's folder, whatever the store
    /// (confined, a PostgreSQL store's feed-cache wrote only in $TMPDIR:
    /// "permission denied", 74).
    func test_imageOutput_writesTheFileInItsFolder_outsideTheTemporaryFolder() throws {
        let directory = temporaryDirectory(self)
        try FileManager.default.createDirectory(atPath: directory + "/tmp", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/out", withIntermediateDirectories: true)
        let env = ["FEED_STORE": store, "TMPDIR": directory + "/tmp", "O": directory + "/out/image.png"]
        XCTAssertEqual(sh("feed-cache save", stdin: Self.feedA, environment: env).status, 0)
        let image = #"{"url":"http://h/image-1","status":200,"body_base64":"QUJD"}"# + "\n"
        XCTAssertEqual(sh("feed-cache save-images", stdin: image, environment: env).status, 0)
        let run = sh(#"feed-cache image --output "$O" http://h/image-1"#, environment: env)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try String(contentsOfFile: directory + "/out/image.png", encoding: .utf8), "ABC")
    }

    func test_saveImages_ofAnImageURLOfAnyLength_upgradingAVersion2Store() throws {
        let env = ["FEED_STORE": store]
        let long = "http://h/" + (0..<1000).map { _ in UUID().uuidString }.joined()
        let feed = Self.feedA + #"{"id":"B28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","url":"\#(long)"}"# + "\n"
        XCTAssertEqual(sh("feed-cache save", stdin: feed, environment: env).status, 0)
        let image1 = #"{"url":"http://h/image-1","status":200,"body_base64":"QUJD"}"# + "\n"
        XCTAssertEqual(sh("feed-cache save-images", stdin: image1, environment: env).status, 0)
        try server.psql("""
            ALTER TABLE essential_feed.image_data DROP CONSTRAINT image_data_url, ADD PRIMARY KEY (url);
            UPDATE essential_feed.store SET schema_version = 2
            """, database: database)
        XCTAssertEqual(sh("feed-cache image http://h/image-1", environment: env).out, "ABC")
        XCTAssertTrue(sh("feed-cache info", environment: env).out.contains(#""schema_version":2,"#))

        let images = #"{"url":"\#(long)","status":200,"body_base64":"AAEC"}"# + "\n" + #"{"url":"http://h/image-0","status":200,"body_base64":"AwQF"}"# + "\n"
        let run = sh("feed-cache save-images", stdin: images, environment: env)
        XCTAssertEqual(run.status, 0, run.stderr)
        let info = sh("feed-cache info", environment: env).records().first
        XCTAssertEqual(info?["schema_version"] as? Int, 3)
        XCTAssertEqual(info?["image_data_count"] as? Int, 3)
        XCTAssertEqual(try server.psql("SELECT schema_version FROM essential_feed.store", database: database), "3\n")
        XCTAssertEqual(Array(sh("feed-cache image \(quoted(long))", environment: env).out.utf8), [0, 1, 2])
        XCTAssertEqual(sh("feed-cache image http://h/image-1", environment: env).out, "ABC")
        // Each URL once: the same image again replaces its data.
        let again = #"{"url":"\#(long)","status":200,"body_base64":"BgcI"}"# + "\n"
        XCTAssertEqual(sh("feed-cache save-images", stdin: again, environment: env).status, 0)
        XCTAssertEqual(Array(sh("feed-cache image \(quoted(long))", environment: env).out.utf8), [6, 7, 8])
        XCTAssertEqual(try server.psql("SELECT count(*) FROM essential_feed.image_data", database: database), "3\n")
    }

    func test_readsAndDeletes_ofADatabaseWithoutTheStore_createNothing() throws {
        for command in ["load", "validate", "delete", "info", "image http://h/a"] {
            _ = sh("feed-cache --store \(quoted(store)) \(command) < /dev/null")
        }
        XCTAssertEqual(try server.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'essential_feed'", database: database), "0\n")
    }

    /// A URI without a user is the local user's name, as libpq looks it
    /// up (getpwuid: /etc/passwd). Confined, feed-cache could not read
    /// that file, and every user but root (whom glibc knows without it)
    /// got "local user with ID 101 does not exist" (found by the hunt).
    func test_aURIWithoutAUser_connectsAsTheLocalUser_whoIsNotRoot() throws {
        guard getuid() == 0, getpwnam("postgres") != nil else { throw XCTSkip("needs root and a postgres user to run as") }
        guard sh("runuser -u postgres -- feed-cache --help > /dev/null").status == 0 else {
            throw XCTSkip("the postgres user cannot run the tools where they are (a private folder)")
        }
        _ = try? server.psql("CREATE ROLE postgres LOGIN")
        try server.psql("GRANT ALL ON DATABASE \(database) TO postgres")
        let uri = "postgresql:///\(database)?host=\(server.directory)"
        let run = sh(#"printf '%s' "$F" | runuser -u postgres -- env TMPDIR=/tmp feed-cache --store "$S" save && runuser -u postgres -- feed-cache --store "$S" info"#,
                     environment: ["S": uri, "F": Self.feedA])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.out.contains(#""items":2"#), run.out)
    }

    func test_unreachableDatabase_isAStoreError74_withThePasswordHidden() {
        // Port 1 on the loopback: nothing listens there.
        let unreachable = "postgresql://feed:s3cret@127.0.0.1:1/feed?connect_timeout=2"
        for command in ["save", "load", "info"] {
            let run = sh("feed-cache --store \(quoted(unreachable)) \(command)", stdin: Self.feedA)
            XCTAssertEqual(run.status, 74, command + ": " + run.stderr)
            XCTAssertEqual(run.records().first?["error"] as? String, "store", command)
            XCTAssertTrue(run.stderr.contains("postgresql://feed:***@127.0.0.1:1/feed?connect_timeout=2: cannot connect: "), run.stderr)
            XCTAssertFalse(run.stderr.contains("s3cret") || run.out.contains("s3cret"), run.stderr)
        }
        let password = sh("feed-cache --store 'postgresql://127.0.0.1:1/feed?password=s3cret&connect_timeout=2' load < /dev/null")
        XCTAssertEqual(password.status, 74)
        XCTAssertTrue(password.stderr.contains("?password=***&connect_timeout=2"), password.stderr)
        XCTAssertFalse(password.stderr.contains("s3cret") || password.out.contains("s3cret"), password.stderr)
    }

    /// Every message hides a store's password as libpq reads it: a
    /// `password` parameter in the messages of a store that answers
    /// (nothing cached, a save, fallback), one with a space, a name
    /// percent-encoded, and the piece of the URI libpq quotes when it
    /// cannot read it ("invalid percent-encoded token").
    func test_everyMessage_hidesThePasswordAsLibpqReadsIt() {
        let answering = store + "&password=S3cretA"
        let runs = [
            sh("FEED_LOG=info feed-cache --store \(quoted(answering)) load < /dev/null"),
            sh("FEED_LOG=info feed-cache --store \(quoted(answering)) save", stdin: Self.feedA),
            sh("FEED_LOG=info feed-cache --store \(quoted(answering)) fallback < /dev/null"),
            sh("feed-cache --store \(quoted(store + "&pass%77ord=S3cretB")) info"),
            sh("feed-cache --store 'postgresql://feed:S3cret C@127.0.0.1:1/feed?connect_timeout=2' load < /dev/null"),
            sh("feed-cache --store 'postgresql://127.0.0.1:1/feed?connect_timeout=2&password=S3cret D' load < /dev/null"),
            sh("feed-cache --store 'postgresql://feed:50%S3cretE@127.0.0.1:1/feed' load < /dev/null"),
        ]
        XCTAssertFalse(runs[0].stderr.isEmpty)
        for run in runs {
            XCTAssertFalse(run.stderr.contains("S3cret") || run.out.contains("S3cret"), run.out + run.stderr)
        }
        XCTAssertTrue(runs[6].stderr.contains("cannot connect: "), runs[6].stderr)
    }

    func test_fallback_withTheDatabaseUnreachable_writesTheInputsErrorAndExitsWithItsStatus() {
        let unreachable = "postgresql://127.0.0.1:1/feed?connect_timeout=2"
        let error = #"{"error":"connectivity","message":"refused"}"#
        let run = sh("feed-cache --store \(quoted(unreachable)) fallback", stdin: error + "\n")
        XCTAssertEqual(run.status, 69, run.stderr)
        XCTAssertEqual(run.lines.first, error)
        XCTAssertTrue(run.stderr.contains("cannot connect"), run.stderr)
    }

    func test_aSchemaOfTheStoresNameHoldingOtherTables_isRefused74_andLeftAlone() throws {
        try server.psql("CREATE SCHEMA essential_feed; CREATE TABLE essential_feed.notes (note text); INSERT INTO essential_feed.notes VALUES ('theirs')",
                        database: database)
        for command in ["save", "load", "validate", "delete"] {
            let run = sh("feed-cache --store \(quoted(store)) \(command)", stdin: Self.feedA)
            XCTAssertEqual(run.status, 74, command + ": " + run.stderr)
            XCTAssertTrue(run.stderr.contains("the schema essential_feed is not a feed cache of this toolkit's"), run.stderr)
        }
        XCTAssertEqual(try server.psql("SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE nspname = 'essential_feed'",
                                       database: database), "notes\n")
        XCTAssertEqual(try server.psql("TABLE essential_feed.notes", database: database), "theirs\n")
    }

    /// A store of ours that lost a table or a column is damaged: a read
    /// says so (74), and validate or the next save resets it, as the SQLite
    /// store does a damaged file of ours (it was refused as not ours, for
    /// ever; a lost column failed every save).
    func test_aStoreOfOursMissingATableOrAColumn_isResetByValidateOrTheNextSave() throws {
        for (damage, reset) in [("DROP TABLE essential_feed.image_data", "validate"),
                                ("ALTER TABLE essential_feed.feed_image DROP COLUMN data_key", "save")] {
            XCTAssertEqual(sh("feed-cache --store \(quoted(store)) save", stdin: Self.feedA).status, 0)
            try server.psql(damage, database: database)
            let load = sh("feed-cache --store \(quoted(store)) load < /dev/null")
            XCTAssertEqual(load.status, 74, damage)
            XCTAssertTrue(load.stderr.contains("damaged feed cache: "), load.stderr)
            let run = sh("feed-cache --store \(quoted(store)) \(reset)", stdin: Self.feedA)
            XCTAssertEqual(run.status, 0, "\(damage): \(run.stderr)")
            XCTAssertEqual(sh("feed-cache --store \(quoted(store)) save", stdin: Self.feedA).status, 0)
            XCTAssertEqual(sh("feed-cache --store \(quoted(store)) load < /dev/null").out, Self.feedA, damage)
        }
    }

    /// The writes that never reset a store (an append, image data) fail on
    /// a damaged one and leave it as it is, as on a damaged SQLite file
    /// (they reset it, items and image data gone, and exited 0).
    func test_aStoreOfOursMissingAColumn_isNotResetByAnAppendOrSaveImages() throws {
        let image = #"{"url":"http://h/image-0","status":200,"body_base64":"AAEC"}"#
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) save", stdin: Self.feedA).status, 0)
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) save-images", stdin: image + "\n").status, 0)
        let rows = "SELECT (SELECT count(*) FROM essential_feed.feed_image) || ' ' || (SELECT count(*) FROM essential_feed.image_data)"
        let before = try server.psql(rows, database: database)
        XCTAssertNotEqual(before, "0 0\n")
        try server.psql("ALTER TABLE essential_feed.feed_cache DROP COLUMN etag", database: database)
        let more = #"{"id":"3AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://h/image-1"}"#
        for (command, input) in [("save --append", more), ("save-images", image)] {
            let run = sh("feed-cache --store \(quoted(store)) \(command)", stdin: input + "\n")
            XCTAssertEqual(run.status, 74, command + ": " + run.stderr)
            XCTAssertTrue(run.stderr.contains("damaged feed cache: columns missing: feed_cache.etag"), run.stderr)
            XCTAssertEqual(try server.psql(rows, database: database), before, command)
        }
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) delete").status, 0)
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) save --append", stdin: more + "\n").status, 0)
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) load < /dev/null").out, more + "\n")
    }

    func test_aNewerSchemaVersion_isRefused74() throws {
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) save", stdin: Self.feedA).status, 0)
        try server.psql("UPDATE essential_feed.store SET schema_version = 4", database: database)
        let run = sh("feed-cache --store \(quoted(store)) load < /dev/null")
        XCTAssertEqual(run.status, 74)
        XCTAssertTrue(run.stderr.contains("schema is version 4, newer than this release's (3)"), run.stderr)
    }

    /// `info` names the schema version the store is at: 1 until the next
    /// write upgrades it (it said this release's).
    func test_info_namesTheStoresSchemaVersion_untilTheNextWriteUpgradesIt() throws {
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) save", stdin: Self.feedA).status, 0)
        try server.psql("ALTER TABLE essential_feed.image_data DROP CONSTRAINT image_data_url, ADD PRIMARY KEY (url); ALTER TABLE essential_feed.feed_image DROP COLUMN first_cached_seconds; UPDATE essential_feed.store SET schema_version = 1", database: database)
        XCTAssertTrue(sh("feed-cache --store \(quoted(store)) info").out.contains(#""schema_version":1,"#))
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) save", stdin: Self.feedA).status, 0)
        XCTAssertTrue(sh("feed-cache --store \(quoted(store)) info").out.contains(#""schema_version":3,"#))
    }

    func test_writerHoldingTheLock_onAnotherConnection_makesASaveBusy75AfterItsWait() throws {
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) save", stdin: Self.feedA).status, 0)
        // Another host's writer: the advisory lock held by a session of psql for 3 seconds.
        let holder = sh("""
            psql -X -q -h \(quoted(server.directory)) -U \(server.user) -d \(database) \
              -c 'BEGIN' -c 'SELECT pg_advisory_xact_lock(1162241380, 1)' -c 'SELECT pg_sleep(3)' -c 'COMMIT' > /dev/null &
            sleep 0.5
            start=$(date +%s%N)
            printf '%s\\n' '{"id":"166FCDD7-C9F4-420A-B2D6-CE2EAFA3D82F","url":"http://h/image-2"}' | feed-cache --store "$S" --wait 0.5 save
            echo "status $? after $(( ($(date +%s%N) - start) / 1000000 )) ms"
            wait
            """, environment: ["S": store])
        XCTAssertTrue(holder.out.contains("status 75 after "), holder.out + holder.stderr)
        XCTAssertTrue(holder.lines.first?.hasPrefix(#"{"error":"busy","#) == true, holder.out)
        let status = holder.lines.first { $0.hasPrefix("status ") } ?? ""
        let waited = Int(status.split(separator: " ")[safe: 3].map(String.init) ?? "") ?? -1
        XCTAssertGreaterThanOrEqual(waited, 450, holder.out)
        XCTAssertLessThan(waited, 2500, holder.out)
        XCTAssertTrue(holder.stderr.contains("store is busy: still locked by another process after waiting 0.5 s"), holder.stderr)
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) load < /dev/null").out, Self.feedA)
    }

    /// A table another session locked (LOCK TABLE, as a schema upgrade
    /// does) holds readers and writers up to their --wait, then busy (75):
    /// they waited for ever. Told by the SQLSTATE, the server's messages in
    /// German too (the English text was matched: 74).
    func test_aTableLockedByAnotherSession_boundsEveryCommandByItsWait_busy75() throws {
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) save", stdin: Self.feedA).status, 0)
        let errors = temporaryDirectory(self) + "/errors"
        // German messages where the server has them (else its own).
        _ = try? server.psql("ALTER DATABASE \(database) SET lc_messages = 'de_DE.UTF-8'", database: database)
        let run = sh("""
            psql -X -q -h \(quoted(server.directory)) -U \(server.user) -d \(database) \
              -c 'BEGIN' -c 'LOCK TABLE essential_feed.feed_image IN ACCESS EXCLUSIVE MODE' -c 'SELECT pg_sleep(6)' -c 'COMMIT' > /dev/null &
            sleep 0.5
            for command in load info 'save' 'delete'; do
                printf '%s\\n' '{"id":"166FCDD7-C9F4-420A-B2D6-CE2EAFA3D82F","url":"http://h/image-2"}' |
                    timeout 4 feed-cache --store "$S" --wait 0.5 $command > /dev/null 2>> "$E"
                echo "$command $?"
            done
            wait
            """, environment: ["S": store, "E": errors], timeout: 30)
        XCTAssertEqual(run.lines, ["load 75", "info 75", "save 75", "delete 75"], (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) load < /dev/null").out, Self.feedA, "nothing changed")
        // A table locked a moment (as autovacuum does) is no busy store, even at --wait 0: a second at least.
        let moment = sh("""
            psql -X -q -h \(quoted(server.directory)) -U \(server.user) -d \(database) \
              -c 'BEGIN' -c 'LOCK TABLE essential_feed.feed_image IN ACCESS EXCLUSIVE MODE' -c 'SELECT pg_sleep(0.3)' -c 'COMMIT' > /dev/null &
            sleep 0.1
            feed-cache --store "$S" --wait 0 load | wc -l
            wait
            """, environment: ["S": store], timeout: 30)
        XCTAssertEqual(moment.lines, ["2"], moment.stderr)
    }

    func test_writerKilledMidSave_leavesTheOldFeed_andReleasesTheLock() throws {
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) save", stdin: Self.feedA).status, 0)
        // 3 MB of records (past what a save reads before it opens the store), then a pause: kill -9 then.
        let records = (0..<30_000).map { String(format: #"{"id":"%08X-0000-4000-8000-000000000000","url":"http://h/%d"}"#, $0, $0) }
            .joined(separator: "\n") + "\n"
        let input = temporaryDirectory(self) + "/records.ndjson"
        try records.write(toFile: input, atomically: true, encoding: .utf8)
        let run = sh(#"""
            \#(slowInput)
            { cat "$I"; sleep 10; } > "$f" 2> /dev/null & feed-cache --store "$S" save < "$f" & pid=$!
            sleep 1.5; kill -9 $pid; wait $pid; echo "killed $?"
            """#, environment: ["S": store, "I": input], timeout: 30)
        XCTAssertEqual(run.out, "killed 137\n", run.stderr)
        let load = sh("feed-cache --store \(quoted(store)) load < /dev/null")
        XCTAssertEqual(load.out, Self.feedA, load.stderr)
        let next = sh("feed-cache --store \(quoted(store)) --wait 2 save", stdin: records)
        XCTAssertEqual(next.status, 0, "Expected the killed writer's lock released: \(next.stderr)")
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) load < /dev/null").lines.count, 30_000)
    }

    /// The multi-call executable run as `essential-feed feed-cache …` hands
    /// the helper the tool's own arguments.
    func test_multiCallExecutable_runAsEssentialFeedFeedCache_handsThePostgreSQLStoreOver() {
        let beside = Products.path("essential-feed")
        let path = FileManager.default.fileExists(atPath: beside) ? beside : Products.directory + "/../libexec/essential-feed/essential-feed"
        XCTAssertEqual(sh("feed-cache --store \(quoted(store)) save", stdin: Self.feedA).status, 0)
        let run = sh("\(quoted(path)) feed-cache --store \(quoted(store)) load < /dev/null")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.out, Self.feedA)
    }

    func test_withoutItsHelperBesideIt_feedCacheSaysWhatIsMissing_74() throws {
        // A feed-cache copied alone: it cannot find feed-cache-postgresql beside itself.
        let dir = temporaryDirectory(self)
        let copy = dir + "/feed-cache"
        try FileManager.default.copyItem(atPath: URL(fileURLWithPath: Products.path("feed-cache")).resolvingSymlinksInPath().path, toPath: copy)
        let run = sh("\(quoted(copy)) --store \(quoted(store)) load < /dev/null")
        XCTAssertEqual(run.status, 74, run.stderr)
        XCTAssertTrue(run.stderr.contains("a PostgreSQL store needs \(dir)/feed-cache-postgresql, which cannot be run: No such file or directory"), run.stderr)
    }
}

private extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
