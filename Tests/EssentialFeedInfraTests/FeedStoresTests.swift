import Foundation
import XCTest
import EssentialFeed
import EssentialFeedInfra

/// Choosing a store by path, and the default path.
final class FeedStoresTests: XCTestCase {

    func test_open_selectsTheJSONFileStoreForAPathEndingInDotJSON() throws {
        for path in ["/x/feed.json", "/x/FEED.JSON", "relative.json"] {
            let store = try FeedStores.open(path: path, wait: 2.5)
            XCTAssertEqual((store as? JSONFileFeedStore)?.path, path)
            XCTAssertEqual((store as? JSONFileFeedStore)?.wait, 2.5)
        }
    }

    func test_open_selectsTheSQLiteStoreForEveryOtherPath() throws {
        for path in ["/x/feed.sqlite", "/x/feed.db", "/x/feed", "/x/feed.json.bak", "/x/json"] {
            let store = try FeedStores.open(path: path, wait: 1)
            XCTAssertEqual((store as? SQLiteFeedStore)?.path, path)
        }
    }

    func test_open_createsNothing() throws {
        let directory = try StoreTestDirectory()
        defer { directory.remove() }

        _ = try FeedStores.open(path: directory.file("a/feed.sqlite"), wait: 1)
        _ = try FeedStores.open(path: directory.file("b/feed.json"), wait: 1)

        XCTAssertEqual(StoreTestFiles.names(in: directory.path), [])
    }

    func test_open_failsWithStoreErrorOnADirectory() throws {
        let directory = try StoreTestDirectory()
        defer { directory.remove() }

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try FeedStores.open(path: directory.path, wait: 1) }),
                       ErrorRecord(.store, "cannot open \(directory.path): is a directory"))
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try FeedStores.open(path: "/x/dir/", wait: 1) })?.kind, .store)
    }

    func test_open_failsWithUsageErrorOnAnEmptyPath() {
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try FeedStores.open(path: "", wait: 1) })?.kind, .usage)
    }

    func test_kind_isChosenByTheDotJSONSuffix() {
        XCTAssertEqual(FeedStores.kind(forPath: "a.json"), .json)
        XCTAssertEqual(FeedStores.kind(forPath: "a.sqlite"), .sqlite)
    }

    func test_defaultPath_prefersFEED_STORE() throws {
        XCTAssertEqual(try FeedStores.defaultPath(environment: ["FEED_STORE": "/s/feed.json", "XDG_CACHE_HOME": "/c", "HOME": "/h"]), "/s/feed.json")
    }

    func test_defaultPath_usesXDG_CACHE_HOMEWhenFEED_STOREIsUnsetOrEmpty() throws {
        XCTAssertEqual(try FeedStores.defaultPath(environment: ["XDG_CACHE_HOME": "/c", "HOME": "/h"]), "/c/essential-feed/feed.sqlite")
        XCTAssertEqual(try FeedStores.defaultPath(environment: ["FEED_STORE": "", "XDG_CACHE_HOME": "/c/", "HOME": "/h"]), "/c/essential-feed/feed.sqlite")
    }

    func test_defaultPath_usesHOMEWhenXDG_CACHE_HOMEIsUnsetEmptyOrRelative() throws {
        XCTAssertEqual(try FeedStores.defaultPath(environment: ["HOME": "/home/me"]), "/home/me/.cache/essential-feed/feed.sqlite")
        XCTAssertEqual(try FeedStores.defaultPath(environment: ["XDG_CACHE_HOME": "", "HOME": "/home/me/"]), "/home/me/.cache/essential-feed/feed.sqlite")
        XCTAssertEqual(try FeedStores.defaultPath(environment: ["XDG_CACHE_HOME": "cache", "HOME": "/home/me"]), "/home/me/.cache/essential-feed/feed.sqlite")
        XCTAssertEqual(try FeedStores.defaultPath(environment: ["HOME": "/"]), "/.cache/essential-feed/feed.sqlite")
    }

    func test_defaultPath_failsWithStoreErrorWithoutAnyOfThem() {
        let error = caughtRecord({ () throws(ErrorRecord) in try FeedStores.defaultPath(environment: ["HOME": ""]) })
        XCTAssertEqual(error?.kind, .store)
        XCTAssertTrue(error?.message.contains("FEED_STORE") ?? false)
    }

    func test_openedStores_runTheCacheUseCasesEndToEnd() throws {
        let directory = try StoreTestDirectory()
        defer { directory.remove() }
        for name in ["feed.sqlite", "feed.json"] {
            let store = try FeedStores.open(path: directory.file("cache/" + name), wait: 1)
            var now = try XCTUnwrap(Timestamp(iso8601: "2024-03-01T10:00:00Z"))
            let loader = LocalFeedLoader(store: store, currentDate: { now })
            let feed = uniqueFeed(count: 3)

            try loader.save(feed)
            now = try XCTUnwrap(Timestamp(iso8601: "2024-03-08T09:59:59Z"))
            XCTAssertEqual(try loader.load().feed, feed, name)
            now = try XCTUnwrap(Timestamp(iso8601: "2024-03-08T10:00:00Z"))
            XCTAssertNil(try loader.load().feed, name)
            XCTAssertNotNil(try store.retrieve(), "\(name): load never deletes")
            XCTAssertEqual(try loader.validateCache(), .deletedExpired(CachedFeedHeader(timestamp: try XCTUnwrap(Timestamp(iso8601: "2024-03-01T10:00:00Z")), count: feed.count)), name)
            XCTAssertNil(try store.retrieve(), name)
        }
    }
    /// A store's passwords, hidden as libpq reads them.
    func test_shown_hidesAPostgreSQLURIsPasswordsAsLibpqReadsThem() {
        let cases = [
            ("postgresql://u:pw@h/db", "postgresql://u:***@h/db"),
            ("postgresql://u:p w@h:5/db?a=1", "postgresql://u:***@h:5/db?a=1"),
            ("postgresql://u@127.0.0.1:1?application_name=me@box&password=secret", "postgresql://u@127.0.0.1:1?application_name=me@box&password=***"),
            ("POSTGRES://h/db?user=u&password=p w&x=1", "POSTGRES://h/db?user=u&password=***&x=1"),
            ("postgresql:///db?host=/s&PASSWORD=pw#f", "postgresql:///db?host=/s&PASSWORD=***"),
            ("postgresql://u:pa%3Fss@host/db", "postgresql://u:***@host/db"),
            ("postgresql://u:pa#ss@host/db?password=a#b&x=1", "postgresql://u:***@host/db?password=***&x=1"),
            ("postgresql:///db?pass%77ord=pw", "postgresql:///db?pass%77ord=***"),
            ("postgresql://h/db?passwords=kept", "postgresql://h/db?passwords=kept"),
            ("/home/u:pw@h/feed.sqlite", "/home/u:pw@h/feed.sqlite"),
        ]
        for (store, shown) in cases {
            XCTAssertEqual(FeedStores.shown(store), shown, store)
            XCTAssertNil(FeedStores.urlProblem(store), store)
        }
        XCTAssertEqual(FeedStores.masking(passwordsOf: "postgresql://u:50%25off@h/db", in: #"invalid token: "50%25off" (50%off)"#),
                       #"invalid token: "***" (***)"#)
    }

    /// A URI libpq would read otherwise than it was written (an unencoded
    /// `@` or `/` of a password, an `&` of a value) is a usage error that
    /// shows none of it; an `@` in a parameter's value, or encoded, is not.
    /// The files a URI's parameters name, found as libpq reads the URI
    /// (with an `@` in an earlier value and no database name too).
    func test_filesNamed_areTheFilesTheURIsParametersName_percentDecoded() {
        XCTAssertEqual(FeedStores.filesNamed(byPostgreSQLURI: "postgresql://u@h:1?application_name=me@box&passfile=/p/pass%20file&sslmode=require&sslrootcert=/c"),
                       ["/p/pass file", "/c"])
        XCTAssertEqual(FeedStores.filesNamed(byPostgreSQLURI: "postgresql://u:pw@h/db?sslkey=%2Fk&sslcrldir=/d&password=x"), ["/k", "/d"])
        XCTAssertEqual(FeedStores.filesNamed(byPostgreSQLURI: "/home/u/feed.sqlite?passfile=/x"), [])
    }

    func test_urlProblem_refusesAPostgreSQLURIWhosePasswordLibpqWouldSplit_withoutShowingIt() throws {
        for store in ["postgresql://feedw:p@ssw0rd@nohost.invalid/db", "postgresql://feedw:S3cr@t/pw@127.0.0.1/db",
                      "postgres://feedw:pa55/word@127.0.0.1", "postgresql://u:p@w?x@host", "postgresql://h/db?password=abc&XYZsecret",
                      "postgresql://host/my@db", "postgresql://localhost?password=p@ss", "postgresql://u:pa?ss@host/db",
                      "postgresql://h?sslmode=disable&password=xx@127.0.0.1:1/"] {
            let problem = try XCTUnwrap(FeedStores.urlProblem(store), store)
            XCTAssertEqual(problem.kind, .usage, store)
            for piece in ["ssw0rd", "S3cr", "t/pw", "pa55", "XYZsecret", "abc", "my@db", "nohost", "127.0.0.1"] {
                XCTAssertFalse(problem.message.contains(piece), "\(store): \(problem.message)")
            }
        }
        for store in ["postgresql://u:p%40ss%2Fw@h:5432/db?application_name=me@box&sslmode=disable", "postgresql:///db?host=/tmp/s",
                      "postgresql://u:pa%3Fss@host/db", "postgresql://h/db?", "postgresql://u@h", "postgres://h/db?a=1&&b=2",
                      "postgresql://u@127.0.0.1:1?application_name=me@box&password=secret"] {
            XCTAssertNil(FeedStores.urlProblem(store), store)
        }
    }
}
