import Foundation
import XCTest

/// The case study's acceptance scenarios, end to end: the scripts and tools
/// against a real feed-serve (the acceptance fixture, 2 items a page) and a
/// real store.
final class AcceptanceTests: XCTestCase {
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts").path
    let ids = ["2AB2AE66-A4B7-4A16-B374-51BBAC8DB086", "A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A", "166FCDD7-C9F4-420A-B2D6-CE2EAFA3D82F"]

    private func environment(_ base: String, _ store: String) -> [String: String] {
        ["FEED_BASE_URL": base, "FEED_STORE": store, "FEED_BIN": Products.directory, "S": Self.scripts,
         "LANG": "en_US.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "NO_COLOR": "1"]
    }

    private func shownImages(_ run: Run, _ base: String) -> [String] {
        run.lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix(base + "/image-") }
    }

    private let loadMore = #"feed-cache load | feed-paginate --limit 2 | feed-fetch | feed-map | feed-cache save --append --tee"#

    func test_onlineLaunchThenLoadMore_thenOfflineLaunchShowsTheCachedFeedAndImages() throws {
        let server = try Served(test: self)
        let store = temporaryDirectory(self) + "/feed.sqlite"
        let env = environment(server.base, store)

        let launch = sh(#""$S/feed-show" --limit 2"#, environment: env)
        XCTAssertEqual(launch.status, 0, launch.stderr)
        XCTAssertEqual(shownImages(launch, server.base), [server.base + "/image-0", server.base + "/image-1"])

        let more = sh(loadMore, environment: env)
        XCTAssertEqual(more.status, 0, more.stderr)
        XCTAssertEqual(more.records().compactMap { $0["id"] as? String }, [ids[2]])
        XCTAssertEqual(shownImages(sh("feed-cache load | feed-view", environment: env), server.base).count, 3)

        let nothingMore = sh(loadMore, environment: env)
        XCTAssertEqual(nothingMore.status, 0, nothingMore.stderr)
        XCTAssertEqual(nothingMore.out, "", "an empty page: nothing more to load")
        XCTAssertEqual(sh("feed-cache load", environment: env).records().compactMap { $0["id"] as? String }, ids)

        // The images, as the app loads them while showing the feed.
        let images = sh("feed-cache load | feed-cache missing-images | feed-fetch - | feed-cache save-images", environment: env)
        XCTAssertEqual(images.status, 0, images.stderr)
        let served = sh(#"curl -s "$FEED_BASE_URL/image-2" | od -An -tx1"#, environment: env).out

        server.stop()

        let offline = sh(#""$S/feed-show" --limit 2"#, environment: env)
        XCTAssertEqual(offline.status, 0, offline.stderr)
        XCTAssertEqual(shownImages(offline, server.base).count, 3, offline.out)
        let cachedBytes = sh(#"feed-cache image "$FEED_BASE_URL/image-2" | od -An -tx1"#, environment: env)
        XCTAssertEqual(cachedBytes.status, 0)
        XCTAssertEqual(cachedBytes.out, served)
        XCTAssertFalse(served.isEmpty)
    }

    func test_offlineLaunchWithAnEmptyCache_showsNoImagesAndTheConnectionError() throws {
        let server = try Served(test: self)
        server.stop()
        let env = environment(server.base, temporaryDirectory(self) + "/feed.sqlite")
        let run = sh(#""$S/feed-show""#, environment: env)
        XCTAssertNotEqual(run.status, 0)
        XCTAssertEqual(shownImages(run, server.base), [])
        XCTAssertTrue(run.out.contains("Couldn't connect to server"), run.out)
    }

    func test_offlineLaunchWithAnExpiredCache_showsTheConnectionError() throws {
        let server = try Served(test: self)
        let env = environment(server.base, temporaryDirectory(self) + "/feed.sqlite")
        sh("feed-fetch | feed-map | feed-cache save --now 2001-01-01T00:00:00Z", environment: env)
        server.stop()
        let run = sh(#""$S/feed-show""#, environment: env)
        XCTAssertEqual(run.status, 69, "the failure shown, the connection's, decides")
        XCTAssertTrue(run.out.contains("Couldn't connect to server"), run.out)
    }

    func test_comments_ofTheFirstImageShowItsMessage() throws {
        let server = try Served(test: self)
        let env = environment(server.base, temporaryDirectory(self) + "/feed.sqlite")
        let run = sh(#""$S/feed-comments" --now 2020-05-21T11:24:59Z \#(ids[0])"#, environment: env)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.out.hasPrefix("Comments\n"), run.out)
        XCTAssertTrue(run.out.contains("a username · 1 day ago"), run.out)
        XCTAssertTrue(run.out.contains("a message"), run.out)
    }

    func test_feedSync_fetchesAllPagesAndImagesSilently() throws {
        let server = try Served(test: self)
        let env = environment(server.base, temporaryDirectory(self) + "/feed.sqlite")
        let run = sh(#""$S/feed-sync" --all --limit 2"#, environment: env)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.out + run.stderr, "", "cron mails only failures")
        let info = sh("feed-cache info", environment: env).records().first
        XCTAssertEqual(info?["items"] as? Int, 3)
        XCTAssertEqual(info?["image_data_count"] as? Int, 3)
    }

    /// A server whose pages never end (ids new on every request) made
    /// `--all` run, and the store grow, for ever: it stops at a bound, the
    /// pages and images it has saved, and says so (cron mails it).
    func test_feedSync_all_stopsAtItsBoundOfPages_andSaysSo() throws {
        let server = try Served(test: self)
        let directory = temporaryDirectory(self)
        for (n, arguments) in ["--all --pages 2 --limit 1", "--pages 2 --all --limit 1"].enumerated() {
            let env = environment(server.base, directory + "/feed-\(n).sqlite")
            let run = sh(#""$S/feed-sync" \#(arguments)"#, environment: env)
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(run.stderr, "feed-sync: --all stopped at its bound of 2 pages (--pages), before the end of the feed\n", arguments)
            let info = sh("feed-cache info", environment: env).records().first
            XCTAssertEqual(info?["items"] as? Int, 2, arguments)
            XCTAssertEqual(info?["image_data_count"] as? Int, 2, arguments)
        }
        // A bound the feed's end comes before: silent.
        let env = environment(server.base, directory + "/whole.sqlite")
        let whole = sh(#""$S/feed-sync" --all --pages 5 --limit 1"#, environment: env)
        XCTAssertEqual(whole.status, 0, whole.stderr)
        XCTAssertEqual(whole.out + whole.stderr, "")
        XCTAssertEqual(sh("feed-cache info", environment: env).records().first?["items"] as? Int, 3)
    }

    func test_feedSync_aFailedFetchKeepsTheCacheAndExitsWithItsStatus() throws {
        let server = try Served(test: self)
        let env = environment(server.base, temporaryDirectory(self) + "/feed.sqlite")
        XCTAssertEqual(sh(#""$S/feed-sync" --limit 2"#, environment: env).status, 0)
        let before = sh("feed-cache load", environment: env).out
        server.stop()
        let run = sh(#""$S/feed-sync" --limit 2"#, environment: env)
        XCTAssertEqual(run.status, 69)
        XCTAssertEqual(sh("feed-cache load", environment: env).out, before)
    }

    func test_feedSync_twoRunsAtOnce_oneWaitsOrGivesUpAndTheCacheStaysWhole() throws {
        let server = try Served(["--builtin", "acceptance", "--delay", "300"], test: self)
        let env = environment(server.base, temporaryDirectory(self) + "/feed.sqlite")
        let run = sh(#""$S/feed-sync" --all --limit 2 & "$S/feed-sync" --all --limit 2 --wait 0 ; b=$?; wait $!; a=$?; echo "$a $b""#,
                     environment: env, timeout: 60)
        let statuses = run.lines.last?.split(separator: " ").map(String.init) ?? []
        XCTAssertEqual(statuses.first, "0", run.out + run.stderr)
        XCTAssertTrue(["0", "75"].contains(statuses.last ?? ""), run.out + run.stderr)
        XCTAssertEqual(sh("feed-cache load", environment: env).records().compactMap { $0["id"] as? String }, ids)
        XCTAssertEqual(sh(#"sqlite3 "$FEED_STORE" 'PRAGMA integrity_check'"#, environment: env).out, "ok\n")
    }

    /// Two symbolic links to one store are one store: a run through the
    /// second waits for the run through the first (gives up at --wait 0
    /// with 75); each link had a lock of its own, and both ran at once.
    func test_feedSync_throughTwoLinksToOneStore_takesOneLock() throws {
        let server = try Served(["--builtin", "acceptance", "--delay", "300"], test: self)
        let d = temporaryDirectory(self)
        var env = environment(server.base, d + "/a/feed.sqlite")
        env["D"] = d
        let run = sh(#"""
            mkdir "$D/a" "$D/b" && ln -s ../a/feed.sqlite "$D/b/one.sqlite" && ln -s "$D/b/one.sqlite" "$D/two.sqlite" &&
            { "$S/feed-sync" --store "$D/b/one.sqlite" --all --limit 2 & } && sleep 1 &&
            { "$S/feed-sync" --store "$D/two.sqlite" --all --limit 2 --wait 0; b=$?; wait $!; a=$?; echo "$a $b"; }
            """#, environment: env, timeout: 60)
        XCTAssertEqual(run.lines.last, "0 75", run.out + run.stderr)
        XCTAssertTrue(run.stderr.contains("another run on"), run.stderr)
        XCTAssertEqual(sh("feed-cache load", environment: env).records().compactMap { $0["id"] as? String }, ids)
    }

    /// A 304 to a request asked for without validators (a first page of
    /// another base URL, or a later page) confirms nothing and ends nothing:
    /// the run fails (65) and the cache keeps its items and images (taken
    /// as an empty last page, it dropped 9 of 12).
    func test_feedSync_a304ToARequestWithoutValidators_failsTheRun_andTheCacheKeepsItsItems() throws {
        let server = try Served(["--builtin", "demo"], test: self)
        let env = environment(server.base, temporaryDirectory(self) + "/feed.sqlite")
        XCTAssertEqual(sh(#""$S/feed-sync" --limit 3 --pages 4"#, environment: env).status, 0)
        let before = sh("feed-cache info", environment: env).records().first
        XCTAssertEqual(before?["items"] as? Int, 12)
        var faulty = env
        faulty["FEED_BASE_URL"] = server.base + "/_fault/status=304"
        let run = sh(#""$S/feed-sync" --limit 3 --pages 2"#, environment: faulty)
        XCTAssertEqual(run.status, 65, run.stderr)
        XCTAssertTrue(run.stderr.contains("304 Not Modified to a request without validators"), run.stderr)
        let after = sh("feed-cache info", environment: env).records().first
        XCTAssertEqual(after?["items"] as? Int, 12)
        XCTAssertEqual(after?["image_data_count"] as? Int, before?["image_data_count"] as? Int)
    }

    func test_scripts_answerHelp() {
        for script in ["feed-sync", "feed-show", "feed-comments", "demo", "install", "test"] {
            let run = sh(#""$S/\#(script)" --help"#, environment: ["S": Self.scripts])
            XCTAssertEqual(run.status, 0, script)
            XCTAssertFalse(run.out.isEmpty, script)
        }
    }
}
