import Foundation
import XCTest

/// feed-fetch asks for gzip and deflate and decodes them, against a real
/// nginx with gzip on; --max-body bounds the decoded size.
final class CompressionToolTests: XCTestCase {
    private func writeFeed(_ nginx: Nginx, items: Int = 40) throws -> Int {
        let items = (0..<items).map { i in
            #"{"id":"73A7F70C-75DA-4C2E-B5A3-EED40DC5\#(String(format: "%04X", i))","description":"a description \#(i)","location":"a location","image":"https://a-url.com/\#(i).jpg"}"#
        }
        let json = #"{"items":["# + items.joined(separator: ",") + "]}\n"
        try json.write(toFile: nginx.root + "/feed.json", atomically: true, encoding: .utf8)
        return json.utf8.count
    }

    func test_fetch_asksForGzip_andDecodesWhatNginxSends() throws {
        let nginx = try Nginx(test: self)
        let size = try writeFeed(nginx)
        let run = sh(#"feed-fetch "$B/feed.json" | feed-map"#, environment: ["B": nginx.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().filter { $0["id"] != nil }.count, 40)
        XCTAssertEqual(run.records().last?["page"] as? String, nginx.base + "/feed.json", "nginx sends an ETag: feed-map ends with a page record")
        let version = sh("feed-fetch --version").out.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
        let line = try XCTUnwrap(nginx.accessLog.first)
        XCTAssertTrue(line.hasPrefix("200 "), line)
        XCTAssertTrue(line.contains(#""feed-fetch/\#(version)" "gzip, deflate""#), line)
        let sent = try XCTUnwrap(Int(line.split(separator: " ")[1]))
        XCTAssertLessThan(sent, size / 3, "nginx sent \(sent) bytes for a \(size)-byte feed")
    }

    func test_fetch_ofACompressionBomb_isInvalidDataAtTheLimit_inBoundedMemoryAndTime() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            throw XCTSkip("needs /usr/bin/time (GNU time) to read the peak memory of a process")
        }
        let nginx = try Nginx(test: self, locations: "location /bomb { add_header Content-Encoding gzip; gzip off; }")
        // 1 GiB of zeros in about 1 MiB of gzip (CPython's zlib).
        let make = sh(#"""
            python3 -c 'import sys, zlib
            c = zlib.compressobj(9, zlib.DEFLATED, 31); out = open(sys.argv[1], "wb"); z = bytes(1 << 20)
            for _ in range(1024): out.write(c.compress(z))
            out.write(c.flush())' "$R/bomb"
            """#, environment: ["R": nginx.root], timeout: 120)
        XCTAssertEqual(make.status, 0, make.stderr)
        let started = Date()
        let run = sh(#"/usr/bin/time -f %M -o "$D/rss" feed-fetch --max-body 16M "$B/bomb"; echo "exit $?"; tail -n 1 "$D/rss""#,
                     environment: ["B": nginx.base, "D": nginx.directory], timeout: 60)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        let lines = run.lines
        XCTAssertTrue(lines.count == 3, run.out)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(record["error"] as? String, "invalid_data")
        XCTAssertEqual(record["message"] as? String, "response body larger than 16777216 bytes")
        XCTAssertEqual(lines[1], "exit 65")
        let kib = try XCTUnwrap(Int(lines[2]))
        XCTAssertLessThan(kib, 64 << 10, "feed-fetch peaked at \(kib / 1024) MiB decoding a gzip bomb to a 16 MiB limit")
    }

    func test_fetch_ofACorruptGzipBody_isAConnectivityErrorThatSaysSo() throws {
        let nginx = try Nginx(test: self, locations: "location /corrupt { add_header Content-Encoding gzip; gzip off; }")
        try Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03] + Array(repeating: 0xFF, count: 64))
            .write(to: URL(fileURLWithPath: nginx.root + "/corrupt"))
        let run = sh(#"feed-fetch "$B/corrupt""#, environment: ["B": nginx.base])
        XCTAssertEqual(run.status, 69, run.stderr)
        let record = try XCTUnwrap(run.records().first)
        XCTAssertEqual(record["error"] as? String, "connectivity")
        XCTAssertTrue((record["message"] as? String)?.hasPrefix("bad response: corrupt gzip body (") == true, run.out)
    }
}
