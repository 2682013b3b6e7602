import Foundation
import XCTest

/// A body of any size in bounded memory: feed-fetch spools what it cannot
/// hold and writes the record from the spool, byte for byte what it writes
/// for a small body (JSON with its blanks dropped, or base64).
final class BigBodyToolTests: XCTestCase {
    func test_fetch_ofA60MBJSONBodyAndA20MBBinaryBody_staysUnder32MiB_andWritesTheRecordExactly_toAFileAPipeOrAnAppendedFile() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            throw XCTSkip("needs /usr/bin/time (GNU time) to read the peak memory of a process")
        }
        let nginx = try Nginx(test: self, locations: "location /big/ { gzip off; }")
        try FileManager.default.createDirectory(atPath: nginx.root + "/big", withIntermediateDirectories: true)
        // Pretty-printed JSON (blanks to drop), and bytes that are not JSON.
        let make = sh(#"""
            python3 -c 'import json, os, sys
            items = [{"id": "73A7F70C-75DA-4C2E-B5A3-%012X" % i, "description": "a description of item %d" % i, "image": "https://a-url.com/%d.jpg" % i} for i in range(400000)]
            json.dump({"items": items}, open(sys.argv[1] + "/feed.json", "w"), indent=1)
            open(sys.argv[1] + "/compact.json", "w").write(" " + json.dumps({"items": items}, separators=(",", ":")) + "\n")
            open(sys.argv[1] + "/blob", "wb").write(os.urandom(20 << 20))' "$R/big"
            """#, environment: ["R": nginx.root], timeout: 120)
        XCTAssertEqual(make.status, 0, make.stderr)
        let d = nginx.directory
        let run = sh(#"""
            for f in feed.json compact.json blob; do
                /usr/bin/time -f %M -o "$D/$f.rss" feed-fetch --max-body 1G "$B/big/$f" > "$D/$f.out" || exit 1
            done
            # The compact body again, into a pipe (as in feed-fetch | feed-map)
            # and appended to a file: the same bytes.
            feed-fetch --max-body 1G "$B/big/compact.json" | cat > "$D/piped.out" || exit 1
            printf 'before\n' > "$D/appended.out"
            feed-fetch --max-body 1G "$B/big/compact.json" >> "$D/appended.out" || exit 1
            cmp "$D/compact.json.out" "$D/piped.out" || exit 1
            { printf 'before\n'; cat "$D/compact.json.out"; } | cmp - "$D/appended.out" || exit 1
            python3 -c 'import base64, json, sys
            d = sys.argv[1]
            record = open(d + "/feed.json.out", "rb").read()
            assert record.endswith(b"}\n") and record.count(b"\n") == 1, "one record line"
            value = json.loads(record)
            source = json.load(open(d + "/www/big/feed.json"))
            assert value["status"] == 200 and value["body"] == source
            compact = json.dumps(source, separators=(",", ":")).encode()
            assert record.endswith(b",\"body\":" + compact + b"}\n"), "the body compacted as a small one is"
            assert open(d + "/compact.json.out", "rb").read().endswith(b",\"body\":" + compact + b"}\n"), "a compact body copied"
            blob = json.loads(open(d + "/blob.out", "rb").read())
            assert base64.b64decode(blob["body_base64"]) == open(d + "/www/big/blob", "rb").read()
            print("checked")' "$D"
            tail -n 1 "$D/feed.json.rss"; tail -n 1 "$D/compact.json.rss"; tail -n 1 "$D/blob.rss"
            """#, environment: ["B": nginx.base, "D": d], timeout: 180)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines.first, "checked", run.stderr)
        for (name, line) in zip(["the JSON body", "the compact JSON body", "the binary body"], run.lines.dropFirst()) {
            let kib = try XCTUnwrap(Int(line), run.out)
            XCTAssertLessThan(kib, 32 << 10, "feed-fetch of \(name) peaked at \(kib / 1024) MiB")
        }
    }

    /// One value that is most of the body (a number, a string, a key of 40
    /// MB) is read as it streams by: feed-fetch checking the body and
    /// feed-map skipping the member each held the whole value (149 MB of
    /// memory for a number of 60 MiB, 88 MB for a string).
    func test_fetchAndMap_ofABodyThatIsOneHugeNumberStringOrKey_staysUnder32MiB() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            throw XCTSkip("needs /usr/bin/time (GNU time) to read the peak memory of a process")
        }
        let nginx = try Nginx(test: self, locations: "location /big/ { gzip off; }")
        try FileManager.default.createDirectory(atPath: nginx.root + "/big", withIntermediateDirectories: true)
        let make = sh(#"""
            python3 -c 'import sys
            n = 40 << 20
            d = sys.argv[1]
            open(d + "/number.json", "w").write("{\"items\":[],\"n\":-" + "1" * n + ".5e3}")
            open(d + "/string.json", "w").write("{\"items\":[],\"s\":\"" + "a" * n + "\"}")
            open(d + "/escaped.json", "w", encoding="utf-8").write("{\"items\":[],\"s\":[\"" + "\u00e9\\\"\\u00e9\\ud83d\\ude00" * (n // 24) + "\"]}")
            open(d + "/key.json", "w").write("{\"items\":[],\"" + "k" * n + "\":1}")' "$R/big"
            """#, environment: ["R": nginx.root], timeout: 120)
        XCTAssertEqual(make.status, 0, make.stderr)
        for name in ["number", "string", "escaped", "key"] {
            let run = sh(#"""
                /usr/bin/time -f %M -o "$D/$F.fetch.rss" feed-fetch --max-body 1G "$B/big/$F.json" > "$D/$F.out" || exit 1
                /usr/bin/time -f %M -o "$D/$F.map.rss" feed-map < "$D/$F.out" > "$D/$F.mapped" || exit 2
                python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["status"] == 200 and r["body"] == json.load(open(sys.argv[2]))' \
                    "$D/$F.out" "$R/big/$F.json" || exit 3
                # No item: the page record of nginx's validators alone.
                test "$(wc -l < "$D/$F.mapped")" = 1 && grep -q '^{"page":' "$D/$F.mapped" || exit 4
                tail -n 1 "$D/$F.fetch.rss"; tail -n 1 "$D/$F.map.rss"
                """#, environment: ["B": nginx.base, "D": nginx.directory, "R": nginx.root, "F": name], timeout: 180)
            XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
            for (tool, line) in zip(["feed-fetch", "feed-map"], run.lines) {
                let kib = try XCTUnwrap(Int(line), run.out)
                XCTAssertLessThan(kib, 32 << 10, "\(tool) of a body that is one \(name) peaked at \(kib / 1024) MiB")
            }
        }
    }

    /// A body embedded in its record is one level deeper there: one of 512
    /// levels, which feed-map reads, was embedded, and feed-map refused the
    /// record (513 levels); it goes as body_base64, in memory or spooled.
    func test_fetch_ofABodyOf512Levels_writesItAsBase64_soThatFeedMapReadsTheRecord() throws {
        let nginx = try Nginx(test: self, locations: "location /big/ { gzip off; }")
        try FileManager.default.createDirectory(atPath: nginx.root + "/big", withIntermediateDirectories: true)
        let make = sh(#"""
            python3 -c 'import sys
            for depth in (511, 512):
                for pad in (0, 3 << 20):
                    x = "[" * (depth - 3) + "]" * (depth - 3)
                    open("%s/%d-%d.json" % (sys.argv[1], depth, pad), "w").write("{\"pad\":\"" + "p" * pad + "\",\"items\":[{\"id\":\"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086\",\"image\":\"http://h/0\",\"x\":" + x + "}]}")' "$R/big"
            """#, environment: ["R": nginx.root], timeout: 60)
        XCTAssertEqual(make.status, 0, make.stderr)
        for depth in [511, 512] {
            for pad in [0, 3 << 20] {
                let url = "\(nginx.base)/big/\(depth)-\(pad).json"
                let fetched = sh("feed-fetch \(quoted(url)) | head -c 300")
                XCTAssertTrue(fetched.out.contains(depth == 511 ? #","body":{"# : #","body_base64":""#), "\(depth) levels, \(pad) bytes of padding: \(fetched.out)")
                let mapped = sh("feed-fetch \(quoted(url)) | feed-map")
                XCTAssertEqual(mapped.status, 0, "\(depth) levels, \(pad) bytes of padding: \(mapped.stderr)")
                XCTAssertTrue(mapped.out.hasPrefix(#"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://h/0"}"#), mapped.out)
            }
        }
    }

    /// A reader that stops reading for longer than --timeout does not make
    /// the requests in flight time out: the time feed-fetch spends waiting
    /// to write is not the request's.
    func test_fetch_behindAReaderThatPausesLongerThanTheTimeout_timesNothingOut() throws {
        let nginx = try Nginx(test: self)
        try FileManager.default.createDirectory(atPath: nginx.root + "/images", withIntermediateDirectories: true)
        // 24 bodies of 300 KB: their records fill any pipe and output buffer.
        for index in 0..<24 {
            XCTAssertTrue(FileManager.default.createFile(atPath: nginx.root + "/images/\(index).png",
                                                        contents: Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })))
        }
        let run = sh(#"""
            for i in $(seq 0 23); do echo "$B/images/$i.png"; done |
                feed-fetch --timeout 1 --parallel 8 - | { sleep 3; grep -c '"status":200,'; }
            echo "status ${PIPESTATUS[1]}"
            """#.replacingOccurrences(of: "${PIPESTATUS[1]}", with: "$?"), environment: ["B": nginx.base], timeout: 60)
        XCTAssertEqual(run.lines, ["24", "status 0"], run.stderr)
        XCTAssertFalse(run.stderr.contains("timed out"), run.stderr)
    }

}
