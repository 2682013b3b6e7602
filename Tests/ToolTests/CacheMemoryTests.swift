import Foundation
import XCTest

/// feed-cache keeps its memory bounded whatever the size of the feed: a save
/// streams the records into the store as they are read, a load writes them
/// as the rows are stepped.
final class CacheMemoryTests: XCTestCase {
    /// The bound every filter keeps, in KiB.
    static let limitKiB = 32 * 1024

    func test_saveAndLoadOfAFeedLargerThanTheBound_stayUnder32MiBAndRoundTripByteForByte() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            throw XCTSkip("needs /usr/bin/time (GNU time) to read the peak memory of a process")
        }
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
}

enum StoreFileSize {
    static func of(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
