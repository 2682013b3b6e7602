import Foundation
import XCTest

/// feed-cache keeps its memory bounded whatever the size of the feed: a save
/// streams the records into the store as they are read, a load writes them
/// as the rows are stepped.
final class CacheMemoryTests: XCTestCase {
    /// The bound every filter keeps, in KiB.
    static let limitKiB = 32 * 1024

    func test_saveAndLoadOfAFeedLargerThanTheBound_stayUnder32MiBAndRoundTripByteForByte() throws {
        try requireGNUTime()
        let dir = temporaryDirectory(self)
        let store = dir + "/feed.sqlite"
        // 120k records of about 420 bytes: 50 MB, well past the bound, generated here.
        let generate = sh(#"""
            awk 'BEGIN { pad = sprintf("%300s", ""); gsub(/ /, "x", pad); for (i = 0; i < 120000; i++) printf "{\"id\":\"%08X-0000-4000-8000-%012X\",\"description\":\"item %d %s\",\"url\":\"https://images.example.com/feed/%d.jpg\"}\n", i, i, i, pad, i }' > "$D/big"
            """#, environment: ["D": dir])
        XCTAssertEqual(generate.status, 0, generate.stderr)
        XCTAssertGreaterThan(StoreFileSize.of(dir + "/big"), Self.limitKiB * 1024)

        let save = sh(#"/usr/bin/time -f %M -o "$D/save.rss" feed-cache --store "$S" save < "$D/big"; echo $?"#,
                      environment: ["D": dir, "S": store], timeout: 120)
        XCTAssertEqual(save.out, "0\n", save.stderr)
        let load = sh(#"/usr/bin/time -f %M -o "$D/load.rss" feed-cache --store "$S" load > "$D/out"; echo $?; cmp "$D/big" "$D/out" && echo same"#,
                      environment: ["D": dir, "S": store], timeout: 120)
        XCTAssertEqual(load.out, "0\nsame\n", load.stderr)
        // Into a pipe, the records are spooled until the read transaction is over.
        let piped = sh(#"/usr/bin/time -f %M -o "$D/load-piped.rss" feed-cache --store "$S" load | cmp - "$D/big" && echo same"#,
                       environment: ["D": dir, "S": store], timeout: 120)
        XCTAssertEqual(piped.out, "same\n", piped.stderr)

        for command in ["save", "load", "load-piped"] {
            let text = try String(contentsOfFile: "\(dir)/\(command).rss", encoding: .utf8)
            let kib = try XCTUnwrap(text.split(separator: "\n").last.flatMap { Int($0) }, "no peak RSS in \(text)")
            XCTAssertLessThan(kib, Self.limitKiB, "feed-cache \(command) of 50 MB of records peaked at \(kib / 1024) MiB")
        }
    }

    /// A merging save (what feed-show does with the first page, and feed-sync
    /// with each) copies the cached feed to a spool file, not to memory: a
    /// page merged into a cached feed of 50 MB stays under the bound, in
    /// both file stores, and lands where it belongs.
    func test_mergeOfAPageIntoACachedFeedLargerThanTheBound_staysUnder32MiB() throws {
        try requireGNUTime()
        let dir = temporaryDirectory(self)
        let generate = sh(#"""
            awk 'BEGIN { pad = sprintf("%300s", ""); gsub(/ /, "x", pad); for (i = 0; i < 120000; i++) printf "{\"id\":\"%08X-0000-4000-8000-%012X\",\"description\":\"item %d %s\",\"url\":\"https://images.example.com/feed/%d.jpg\"}\n", i, i, i, pad, i }' > "$D/big"
            printf '{"id":"AAAAAAAA-0000-4000-8000-000000000000","url":"https://images.example.com/new.jpg"}\n' > "$D/page"
            sed -n '3,4p' "$D/big" >> "$D/page"
            """#, environment: ["D": dir])
        XCTAssertEqual(generate.status, 0, generate.stderr)
        for name in ["feed.sqlite", "feed.json"] {
            let run = sh(#"""
                feed-cache --store "$S" save < "$D/big" &&
                /usr/bin/time -f %M -o "$D/merge.rss" feed-cache --store "$S" save --merge < "$D/page" &&
                printf '{"id":"BBBBBBBB-0000-4000-8000-000000000000","url":"https://images.example.com/b.jpg"}\n' |
                    /usr/bin/time -f %M -o "$D/after.rss" feed-cache --store "$S" save --merge --after 0000EA60-0000-4000-8000-00000000EA60 &&
                feed-cache --store "$S" load > "$D/out" && wc -l < "$D/out" && cut -c8-15 "$D/out" | sed -n '1,4p;60000,60002p'
                ls -A "$D" | grep -c '^[.]feed-cache-merge'
                """#, environment: ["D": dir, "S": dir + "/" + name], timeout: 120)
            XCTAssertEqual(run.out, "120000\nAAAAAAAA\n00000002\n00000003\n00000004\n0000EA60\nBBBBBBBB\n0000EA61\n0\n", "\(name): \(run.stderr)")
            for step in ["merge", "after"] {
                let text = try String(contentsOfFile: "\(dir)/\(step).rss", encoding: .utf8)
                let kib = try XCTUnwrap(text.split(separator: "\n").last.flatMap { Int($0) }, "no peak RSS in \(text)")
                XCTAssertLessThan(kib, Self.limitKiB, "\(name): save --merge (\(step)) into 50 MB of cached records peaked at \(kib / 1024) MiB")
            }
            try? FileManager.default.removeItem(atPath: dir + "/" + name)
        }
    }

    /// One record of 64 MB (an image of 48 MiB, as base64) through
    /// save-images peaks at about twice the line, not five times: the line
    /// is parsed in the buffer it was read into, the base64 decoded from it
    /// where it lies, SQLite binds the data without a copy, and the JSON
    /// store writes its text piece by piece. A line past FEED_MAX_LINE is
    /// invalid_data, and nothing is stored.
    func test_saveImagesOfA64MBLine_peaksUnderTwiceTheLinePlusTheBound_andFEED_MAX_LINEBoundsALine() throws {
        try requireGNUTime()
        let dir = temporaryDirectory(self)
        let generate = sh(#"""
            printf '{"url":"https://images.example.com/big.png","status":200,"body_base64":"' > "$D/big"
            head -c 50331648 /dev/urandom > "$D/raw"
            base64 -w 0 < "$D/raw" >> "$D/big"
            printf '"}\n' >> "$D/big"
            printf '{"id":"AAAAAAAA-0000-4000-8000-000000000000","url":"https://images.example.com/big.png"}\n' > "$D/feed"
            """#, environment: ["D": dir], timeout: 120)
        XCTAssertEqual(generate.status, 0, generate.stderr)
        let line = StoreFileSize.of(dir + "/big")
        XCTAssertGreaterThan(line, 64 << 20)
        for name in ["feed.sqlite", "feed.json"] {
            let run = sh(#"""
                feed-cache --store "$S" save < "$D/feed" &&
                /usr/bin/time -f %M -o "$D/rss" feed-cache --store "$S" save-images < "$D/big" &&
                feed-cache --store "$S" image --output - https://images.example.com/big.png | cmp - "$D/raw" && echo same
                """#, environment: ["D": dir, "S": dir + "/" + name], timeout: 300)
            XCTAssertEqual(run.out, "same\n", "\(name): \(run.stderr)")
            let text = try String(contentsOfFile: dir + "/rss", encoding: .utf8)
            let kib = try XCTUnwrap(text.split(separator: "\n").last.flatMap { Int($0) }, "no peak RSS in \(text)")
            StressSettings.current.report("save-images line=\(line) store=\(name) peak_kib=\(kib)")
            XCTAssertLessThan(kib, 2 * line / 1024 + Self.limitKiB, "\(name): save-images of a \(line)-byte line peaked at \(kib / 1024) MiB")

            let bounded = sh(#"FEED_MAX_LINE=64M feed-cache --store "$S" delete && FEED_MAX_LINE=64M feed-cache --store "$S" save < "$D/feed" && FEED_MAX_LINE=64M feed-cache --store "$S" save-images < "$D/big""#,
                             environment: ["D": dir, "S": dir + "/" + name], timeout: 120)
            XCTAssertEqual(bounded.status, 65, bounded.stderr)
            XCTAssertTrue(bounded.stderr.contains("feed-cache: stdin:1: line longer than 67108864 bytes (FEED_MAX_LINE)"), bounded.stderr)
            XCTAssertEqual(sh(#"feed-cache --store "$S" image --output /dev/null https://images.example.com/big.png"#, environment: ["S": dir + "/" + name]).status, 66, "nothing stored")
        }
        let wrong = sh("FEED_MAX_LINE=lots feed-map < /dev/null")
        XCTAssertEqual(wrong.status, 64)
        XCTAssertTrue(wrong.stderr.contains("FEED_MAX_LINE takes a number of bytes, optionally with k, M or G, not 'lots'"), wrong.stderr)
        // The largest number there is: no bound, and no overflow (once SIGILL, 132).
        let largest = sh(#"printf '{"created_at":"2020-01-01T00:00:00Z"}\n' | FEED_MAX_LINE=9223372036854775807 reldate --now 2020-01-02T00:00:00Z"#)
        XCTAssertEqual(largest.status, 0, largest.stderr)
        XCTAssertEqual(largest.records().count, 1)
    }

    /// The views of a feed larger than the bound: `load --images` keeps the
    /// records in its spool while the store lends them, `feed-view` writes the
    /// page as the records come and keeps the Atom entries in its spool.
    func test_loadImagesIntoThePageAndTheAtomFeed_ofAFeedLargerThanTheBound_stayUnder32MiB() throws {
        try requireGNUTime()
        let dir = temporaryDirectory(self)
        let store = dir + "/feed.sqlite"
        // 60k records of about 820 bytes (49 MB), and the data of three of their images.
        let generate = sh(#"""
            awk 'BEGIN { pad = sprintf("%700s", ""); gsub(/ /, "x", pad); for (i = 0; i < 60000; i++) printf "{\"id\":\"%08X-0000-4000-8000-%012X\",\"description\":\"item %d %s\",\"url\":\"https://images.example.com/feed/%d.jpg\"}\n", i, i, i, pad, i }' > "$D/big"
            for i in 0 500 59999; do printf '{"url":"https://images.example.com/feed/%d.jpg","status":200,"body_base64":"R0lGODlhAQABAAAAACw="}\n' "$i"; done > "$D/images"
            feed-cache --store "$S" save < "$D/big" && feed-cache --store "$S" save-images < "$D/images"
            """#, environment: ["D": dir, "S": store], timeout: 120)
        XCTAssertEqual(generate.status, 0, generate.stderr)
        let views = sh(#"""
            /usr/bin/time -f %M -o "$D/load.rss" feed-cache --store "$S" load --images --cached-at |
                /usr/bin/time -f %M -o "$D/html.rss" feed-view --format html > "$D/page.html" &&
            feed-cache --store "$S" load --cached-at | /usr/bin/time -f %M -o "$D/atom.rss" feed-view --format atom > "$D/feed.atom" &&
            grep -c 'src="data:image/gif;base64,R0lGODlhAQABAAAAACw="' "$D/page.html" && grep -c '<entry>' "$D/feed.atom"
            """#, environment: ["D": dir, "S": store], timeout: 120)
        XCTAssertEqual(views.out, "3\n60000\n", views.stderr)
        XCTAssertGreaterThan(StoreFileSize.of(dir + "/page.html"), Self.limitKiB * 1024)
        for step in ["load", "html", "atom"] {
            let text = try String(contentsOfFile: "\(dir)/\(step).rss", encoding: .utf8)
            let kib = try XCTUnwrap(text.split(separator: "\n").last.flatMap { Int($0) }, "no peak RSS in \(text)")
            XCTAssertLessThan(kib, Self.limitKiB, "\(step) of 49 MB of records peaked at \(kib / 1024) MiB")
        }
    }

    /// The JSON-file store reads its document with the streaming reader and
    /// writes the next one as the records come: save, load and append of a
    /// feed bigger than the bound stay under it (ids cost 16 bytes each while
    /// saving: 100k of them, 1.6 MiB).
    func test_JSONStore_saveLoadAndAppendOfAFeedLargerThanTheBound_stayUnder32MiB() throws {
        try requireGNUTime()
        let dir = temporaryDirectory(self)
        let store = dir + "/feed.json"
        // 90k records of about 420 bytes (38 MB), then 20k more, half of them already cached.
        let generate = sh(#"""
            awk 'BEGIN { pad = sprintf("%300s", ""); gsub(/ /, "x", pad); for (i = 0; i < 90000; i++) printf "{\"id\":\"%08X-0000-4000-8000-%012X\",\"description\":\"item %d %s\",\"url\":\"https://images.example.com/feed/%d.jpg\"}\n", i, i, i, pad, i }' > "$D/big"
            awk 'BEGIN { for (i = 80000; i < 100000; i++) printf "{\"id\":\"%08X-0000-4000-8000-%012X\",\"url\":\"https://images.example.com/more/%d.jpg\"}\n", i, i, i }' > "$D/more"
            cp "$D/big" "$D/expected"; tail -10000 "$D/more" >> "$D/expected"
            """#, environment: ["D": dir])
        XCTAssertEqual(generate.status, 0, generate.stderr)
        XCTAssertGreaterThan(StoreFileSize.of(dir + "/big"), Self.limitKiB * 1024)

        let env = ["D": dir, "S": store]
        let save = sh(#"/usr/bin/time -f %M -o "$D/save.rss" feed-cache --store "$S" save < "$D/big"; echo $?"#, environment: env, timeout: 120)
        XCTAssertEqual(save.out, "0\n", save.stderr)
        let load = sh(#"/usr/bin/time -f %M -o "$D/load.rss" feed-cache --store "$S" load > "$D/out"; echo $?; cmp "$D/big" "$D/out" && echo same"#,
                      environment: env, timeout: 120)
        XCTAssertEqual(load.out, "0\nsame\n", load.stderr)
        let append = sh(#"/usr/bin/time -f %M -o "$D/append.rss" feed-cache --store "$S" save --append < "$D/more"; echo $?; feed-cache --store "$S" load | cmp - "$D/expected" && echo same"#,
                        environment: env, timeout: 120)
        XCTAssertEqual(append.out, "0\nsame\n", append.stderr)
        let document = try XCTUnwrap(FileManager.default.contents(atPath: store))
        XCTAssertEqual(document.filter { $0 == 0x0A }.count, 1, "Expected the document on one line")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + ".tmp"))

        try assertPeaksUnderTheBound(["save", "load", "append"], in: dir, what: "feed-cache on a JSON store of 38 MB")
    }

    /// save-images stores each image as it is read (into the open
    /// transaction), so memory is bounded by the largest image, not their sum.
    func test_saveImages_ofImagesFarLargerThanTheBoundInTotal_staysUnder32MiB() throws {
        try requireGNUTime()
        let dir = temporaryDirectory(self)
        // 136 images of 256 KiB: 34 MiB of data, 46 MB of lines.
        let image = Data((0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        let body = image.base64EncodedString()
        var lines = ""
        for i in 0..<136 {
            lines += #"{"url":"https://images.example.com/\#(i).jpg","status":200,"headers":{},"body_base64":"\#(body)"}"# + "\n"
        }
        try lines.write(toFile: dir + "/images", atomically: false, encoding: .utf8)
        XCTAssertGreaterThan(StoreFileSize.of(dir + "/images"), Self.limitKiB * 1024)

        for name in ["feed.sqlite", "feed.json"] {
            let env = ["D": dir, "S": dir + "/" + name, "N": name]
            let run = sh(#"/usr/bin/time -f %M -o "$D/$N.rss" feed-cache --store "$S" save-images < "$D/images"; echo $?"#, environment: env, timeout: 120)
            XCTAssertEqual(run.out, "0\n", run.stderr)
            let first = sh(#"feed-cache --store "$S" image https://images.example.com/0.jpg"#, environment: env)
            XCTAssertEqual(first.stdout, image, name)
            let info = sh(#"feed-cache --store "$S" info"#, environment: env)
            XCTAssertTrue(info.out.contains(#""image_data_count":136"#), info.out)
        }
        try assertPeaksUnderTheBound(["feed.sqlite", "feed.json"], in: dir, what: "feed-cache save-images of 34 MiB of images")

        // An invalid line after images streamed into the transaction still stores nothing.
        let bad = sh(#"""
            for S in "$D/other.sqlite" "$D/other.json"; do
              { head -8 "$D/images"; echo '{not json'; } | feed-cache --store "$S" save-images > /dev/null 2>&1; echo $?
              feed-cache --store "$S" info
            done
            """#, environment: ["D": dir], timeout: 120)
        XCTAssertEqual(bad.lines.filter { $0 == "65" }.count, 2, bad.out + bad.stderr)
        XCTAssertEqual(bad.lines.filter { $0.contains(#""image_data_count":0"#) }.count, 2, bad.out)
    }

    /// The JSON-file store's image data goes through an external sort: many
    /// small images stored, more stored onto them, and a new feed keeping
    /// the data of its own images only, each stay under the bound (150k
    /// images took 55 MiB when their URLs were kept in memory).
    func test_JSONStore_saveImagesOfManySmallImages_moreOntoThem_andANewFeed_stayUnder32MiB() throws {
        try requireGNUTime()
        let dir = temporaryDirectory(self)
        let env = ["D": dir, "S": dir + "/feed.json"]
        // 150k image responses (URLs in no sorted order); then 1,000 more, half of them replacing
        // data already stored; then a feed of every other one of the first images.
        let generate = sh(#"""
            \#(Self.imageResponses(0..<150000, number: "(i * 7919) % 150000", base64: "R0lGODlhAQABAAAAACw=")) > "$D/images"
            \#(Self.imageResponses(149500..<150500, base64: "AQID")) > "$D/more"
            \#(Self.feedRecords(0..<150000, step: 2)) > "$D/feed"
            """#, environment: env)
        XCTAssertEqual(generate.status, 0, generate.stderr)

        let run = sh(#"""
            /usr/bin/time -f %M -o "$D/images.rss" feed-cache --store "$S" save-images < "$D/images"; echo $?
            feed-cache --store "$S" info | grep -o '"image_data_count":[0-9]*'
            /usr/bin/time -f %M -o "$D/more.rss" feed-cache --store "$S" save-images < "$D/more"; echo $?
            feed-cache --store "$S" info | grep -o '"image_data_count":[0-9]*'
            feed-cache --store "$S" image https://images.example.com/feed/149999.jpg | od -An -tx1
            feed-cache --store "$S" image https://images.example.com/feed/1.jpg | od -An -tx1
            /usr/bin/time -f %M -o "$D/feed.rss" feed-cache --store "$S" save < "$D/feed"; echo $?
            feed-cache --store "$S" info | grep -o '"image_data_count":[0-9]*'
            feed-cache --store "$S" image https://images.example.com/feed/1.jpg; echo $?
            """#, environment: env, timeout: 300)
        XCTAssertEqual(run.lines, [
            "0", #""image_data_count":150000"#,
            "0", #""image_data_count":150500"#,
            " 01 02 03", " 47 49 46 38 39 61 01 00 01 00 00 00 00 2c",
            "0", #""image_data_count":75000"#,
            "66",
        ], run.stderr)
        try assertPeaksUnderTheBound(["images", "more", "feed"], in: dir, what: "feed-cache on a JSON store of 150k images' data")
    }

    /// A view of a JSON store's feed with its images' data looks each URL
    /// up in one read: each lookup read the document up to the URL, so 20k
    /// images took 16 s in a release build (40k about a minute, 100k hours);
    /// now an index of the image data's places (8 bytes an entry) makes it
    /// linear: the time limit here is 30 s.
    func test_JSONStore_loadImagesOfAFeedOf40kImagesWithData_endsInTime_eachRecordWithItsData() throws {
        try requireGNUTime()
        let dir = temporaryDirectory(self)
        let env = ["D": dir, "S": dir + "/feed.json"]
        let run = sh(#"""
            \#(Self.feedRecords(0..<40000)) > "$D/feed"
            \#(Self.imageResponses(0..<40000, step: 2, base64: "AQID")) > "$D/images"
            feed-cache --store "$S" save < "$D/feed" && feed-cache --store "$S" save-images < "$D/images" || exit 1
            timeout 30 /usr/bin/time -f %M -o "$D/load.rss" feed-cache --store "$S" load --images > "$D/out"; echo $?
            wc -l < "$D/out"; grep -c '"image_data_base64":"AQID"' "$D/out"
            sed -n '39999p' "$D/out"
            """#, environment: env, timeout: 60)
        XCTAssertEqual(run.lines, [
            "0", "40000", "20000",
            #"{"id":"00009C3E-0000-4000-8000-000000009C3E","url":"https://images.example.com/feed/39998.jpg","image_data_base64":"AQID"}"#,
        ], run.stderr)
        try assertPeaksUnderTheBound(["load"], in: dir, what: "feed-cache load --images of a JSON store of 40k images")
    }

    /// An awk command writing feed image records of ids and URLs numbered in
    /// `range` (every `step`-th): `https://images.example.com/feed/N.jpg`.
    private static func feedRecords(_ range: Range<Int>, step: Int = 1) -> String {
        #"awk 'BEGIN { for (i = \#(range.lowerBound); i < \#(range.upperBound); i += \#(step)) printf "{\"id\":\"%08X-0000-4000-8000-%012X\",\"url\":\"https://images.example.com/feed/%d.jpg\"}\n", i, i, i }'"#
    }

    /// An awk command writing image responses (`base64` their data) for the
    /// URLs of `feedRecords`, numbered by `number` of `i` in `range`.
    private static func imageResponses(_ range: Range<Int>, step: Int = 1, number: String = "i", base64: String) -> String {
        #"awk 'BEGIN { for (i = \#(range.lowerBound); i < \#(range.upperBound); i += \#(step)) printf "{\"url\":\"https://images.example.com/feed/%d.jpg\",\"status\":200,\"body_base64\":\"\#(base64)\"}\n", \#(number) }'"#
    }

    /// Skips a test on a machine without GNU time, which reads a process's peak memory.
    private func requireGNUTime() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            throw XCTSkip("needs /usr/bin/time (GNU time) to read the peak memory of a process")
        }
    }

    private func assertPeaksUnderTheBound(_ names: [String], in dir: String, what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for name in names {
            let text = try String(contentsOfFile: "\(dir)/\(name).rss", encoding: .utf8)
            let kib = try XCTUnwrap(text.split(separator: "\n").last.flatMap { Int($0) }, "no peak RSS in \(text)", file: file, line: line)
            XCTAssertLessThan(kib, Self.limitKiB, "\(what): \(name) peaked at \(kib / 1024) MiB", file: file, line: line)
        }
    }
}

enum StoreFileSize {
    static func of(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
