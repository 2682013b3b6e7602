import FeedServer
import Foundation
import XCTest

/// Fault specs, the command line and fixture directories.
final class FeedServerConfigurationTests: FeedServerTestCase {
    // MARK: Fault specs

    func test_faultSpec_readsEveryItem() throws {
        let faults = try FeedServerFaults(spec: "delay=1,status=502,truncate=3,reset,drip=4,hang,redirect=5,big=6")

        XCTAssertEqual(faults, FeedServerFaults(delay: 1, status: 502, truncate: 3, reset: true, drip: 4, hang: true, redirect: 5, big: 6))
        XCTAssertEqual(try FeedServerFaults(spec: faults.spec), faults)
        XCTAssertEqual(try FeedServerFaults(spec: ""), FeedServerFaults())
        XCTAssertEqual(try FeedServerFaults(spec: "delay=86400000,drip=86400000"), FeedServerFaults(delay: 86_400_000, drip: 86_400_000))
        XCTAssertTrue(try FeedServerFaults(spec: ",,").isEmpty)
    }

    func test_faultSpec_rejectsUnknownItemsAndBadValues() {
        for spec in ["nope", "delay", "delay=", "delay=1.5", "delay=-3", "status=abc", "status=1000", "hang=yes", "big=1e3", "delay=86400001", "drip=86400001"] {
            XCTAssertThrowsError(try FeedServerFaults(spec: spec), spec)
        }
    }

    func test_faults_overriddenByAnotherSetReplaceOnlyWhatItSets() {
        let global = FeedServerFaults(delay: 100, status: 500, reset: false)
        let request = FeedServerFaults(status: 200, hang: true)

        XCTAssertEqual(global.overridden(by: request), FeedServerFaults(delay: 100, status: 200, hang: true))
    }

    // MARK: Command line

    func test_commandLine_parsesOptionsInAnyOrder() throws {
        XCTAssertEqual(try FeedServeCommand.parse([]), .serve(.init()))
        XCTAssertEqual(
            try FeedServeCommand.parse(["--delay", "5", "fixtures", "--port=8080", "--reset", "--fault", "status=503,big=10"]),
            .serve(.init(port: 8080, fixtures: .directory("fixtures"), faults: .init(delay: 5, status: 503, reset: true, big: 10)))
        )
        XCTAssertEqual(try FeedServeCommand.parse(["--fixtures", "dir"]), .serve(.init(fixtures: .directory("dir"))))
        XCTAssertEqual(try FeedServeCommand.parse(["--builtin", "acceptance"]), .serve(.init(fixtures: .builtin("acceptance"))))
        XCTAssertEqual(try FeedServeCommand.parse(["--", "--odd-dir"]), .serve(.init(fixtures: .directory("--odd-dir"))))
        XCTAssertEqual(
            try FeedServeCommand.parse(["--status", "404", "--truncate", "1", "--drip", "2", "--hang", "--redirect", "3"]),
            .serve(.init(faults: .init(status: 404, truncate: 1, drip: 2, hang: true, redirect: 3)))
        )
    }

    func test_commandLine_helpAndVersion() throws {
        XCTAssertEqual(try FeedServeCommand.parse(["--help"]), .help)
        XCTAssertEqual(try FeedServeCommand.parse(["--port", "1", "-h"]), .help)
        XCTAssertEqual(try FeedServeCommand.parse(["--version"]), .version)
        for topic in ["--port", "--fixtures", "--builtin", "/_fault/", "feed.json", "comments/UUID.json", "images/NAME",
                      "{{base}}", "FEED_LOG", "69", "130"] {
            XCTAssertTrue(FeedServeCommand.usage.contains(topic), topic)
        }
    }

    func test_commandLine_rejectsBadUsage() {
        let bad: [[String]] = [
            ["--bogus"], ["-x"], ["--port"], ["--port", "65536"], ["--port", "-1"], ["--port", "http"],
            ["a", "b"], ["--fixtures", "a", "b"], ["dir", "--builtin", "demo"], ["--builtin", "nope"],
            ["--delay", "soon"], ["--status", "99"], ["--reset=1"], ["--fault", "explode"], [""],
        ]
        for arguments in bad {
            XCTAssertThrowsError(try FeedServeCommand.parse(arguments), "\(arguments)") { error in
                XCTAssertFalse("\(error)".isEmpty)
            }
        }
    }

    // MARK: Fixture directories

    func test_load_readsFeedCommentsAndImagesFromADirectory() throws {
        let directory = try makeTemporaryDirectory()
        let id = Self.acceptanceIDs[0]
        try write(#"{"items":[{"id":"\#(id)","description":"d","location":null,"image":"{{base}}/cat.png","extra":1}]}"#, to: directory + "/feed.json")
        try write(#"{"items":[{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"m","created_at":"2020-05-20T11:24:59+0000","author":{"username":"u"}}]}"#,
                  to: directory + "/comments/\(id.lowercased()).json")
        try write("meow", to: directory + "/images/cat.png")
        try write("ignored", to: directory + "/images/.DS_Store")

        let fixtures = try FeedServerFixtures.load(directory: directory)
        let (_, port, base) = try makeServer(fixtures: fixtures)

        XCTAssertEqual(fixtures.feed, [.init(id: id, description: "d", image: "{{base}}/cat.png")])
        XCTAssertEqual(fixtures.comments[UUID(uuidString: id)!]?.map(\.username), ["u"])
        XCTAssertEqual(Array(fixtures.images.keys), ["cat.png"])
        XCTAssertEqual(try get("/v1/feed", port: port).text, #"{"items":[{"id":"\#(id)","description":"d","image":"\#(base)/cat.png"}]}"#)
        XCTAssertEqual(try get("/v1/image/\(id)/comments", port: port).items?.count, 1)
        XCTAssertEqual(try get("/cat.png", port: port).text, "meow")
    }

    func test_load_needsOnlyFeedJSON() throws {
        let directory = try makeTemporaryDirectory()
        try write(#"{"items":[]}"#, to: directory + "/feed.json")

        XCTAssertEqual(try FeedServerFixtures.load(directory: directory), FeedServerFixtures())
    }

    func test_load_reportsTheFileAtFault() throws {
        let directory = try makeTemporaryDirectory()
        let valid = #"{"items":[]}"#
        let cases: [(files: [String: String], path: String, kind: FeedServerFixtures.LoadError.Kind, reason: String)] = [
            ([:], "feed.json", .notFound, "no such file"),
            (["feed.json": "{"], "feed.json", .invalid, "not valid JSON"),
            (["feed.json": "[]"], "feed.json", .invalid, "expected an object"),
            (["feed.json": #"{"items":[{"id":"x","image":"i"}]}"#], "feed.json", .invalid, #"items[0]: "id" must be a UUID"#),
            (["feed.json": #"{"items":[{"id":"\#(Self.acceptanceIDs[0])"}]}"#], "feed.json", .invalid, #"items[0]: "image" must be a string"#),
            (["feed.json": #"{"items":[{"id":"\#(Self.acceptanceIDs[0])","image":"i","location":3}]}"#], "feed.json", .invalid, #""location" must be a string"#),
            (["feed.json": #"{"items":[{"id":"\#(Self.acceptanceIDs[0])","image":"i"},{"id":"\#(Self.acceptanceIDs[1])","image":"i"},{"id":"\#(Self.acceptanceIDs[0].lowercased())","image":"i"}]}"#],
             "feed.json", .invalid, #"items[2]: "id" is items[0]'s too"#),
            (["feed.json": valid, "comments/x.json": valid], "comments/x.json", .invalid, "<UUID>.json"),
            (["feed.json": valid, "comments/\(Self.acceptanceIDs[0]).json": #"{"items":[{"id":"\#(Self.acceptanceIDs[1])","message":"m","created_at":"c"}]}"#],
             "comments/\(Self.acceptanceIDs[0]).json", .invalid, #""author" must be an object"#),
        ]
        for (index, example) in cases.enumerated() {
            let root = directory + "/\(index)"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            for (name, text) in example.files { try write(text, to: root + "/" + name) }

            XCTAssertThrowsError(try FeedServerFixtures.load(directory: root), example.path) { error in
                let error = error as? FeedServerFixtures.LoadError
                XCTAssertEqual(error?.path, root + "/" + example.path)
                XCTAssertEqual(error?.kind, example.kind, example.path)
                XCTAssertTrue(error?.description.hasPrefix(root + "/" + example.path + ": ") == true)
                XCTAssertTrue(error?.reason.contains(example.reason) == true, "\(error?.reason ?? "") lacks \(example.reason)")
            }
        }
    }

    func test_load_reportsAMissingDirectory() {
        XCTAssertThrowsError(try FeedServerFixtures.load(directory: "/nonexistent/fixtures")) { error in
            XCTAssertEqual((error as? FeedServerFixtures.LoadError)?.kind, .notFound)
            XCTAssertEqual("\(error)", "/nonexistent/fixtures: no such fixture directory")
        }
    }

    func test_builtin_namesTheTwoSets() {
        XCTAssertEqual(FeedServerFixtures.builtin(named: "demo"), .demo)
        XCTAssertEqual(FeedServerFixtures.builtin(named: "acceptance"), .acceptance)
        XCTAssertNil(FeedServerFixtures.builtin(named: "other"))
        XCTAssertEqual(FeedServerFixtures.demo.feed.count, 12)
        XCTAssertEqual(FeedServerFixtures.acceptance.feed.map(\.id), Self.acceptanceIDs)
    }
}
