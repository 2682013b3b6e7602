import Foundation
import XCTest

/// Passwords in URLs and in ~/.netrc: sent to the server, never shown.
/// The server is CPython's http.server with a handler that requires Basic
/// authorization (alice:secret), serves a feed whose image URLs carry the
/// credentials, and the images.
final class CredentialsTests: XCTestCase {
    private static let server = #"""
    import base64, http.server, json, sys
    expected = "Basic " + base64.b64encode(b"alice:secret").decode()
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args): pass
        def do_GET(self):
            if self.headers.get("Authorization") != expected:
                self.send_response(401); self.send_header("Content-Length", "0"); self.end_headers(); return
            port = self.server.server_address[1]
            if self.path.startswith("/v1/feed"):
                items = [{"id": "2AB2AE66-A4B7-4A16-B374-51BBAC8DB08%d" % i, "image": "http://alice:secret@127.0.0.1:%d/image-%d" % (port, i)} for i in range(2)]
                body = json.dumps({"items": items if "after_id" not in self.path else []}).encode()
            elif self.path.startswith("/image-"):
                body = b"\x89PNG image " + self.path.encode()
            else:
                self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers(); return
            self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
    """#

    /// Starts the server; its port.
    private func startServer() throws -> Int {
        try PythonServer(Self.server, test: self).port
    }

    /// The password is nowhere in standard error, nor in standard output
    /// but in response bodies (the server's own data, passed on as sent:
    /// this server's feed names its image URLs with the password).
    private func assertNoSecret(_ run: Run, file: StaticString = #filePath, line: UInt = #line) {
        let outsideBodies = run.lines.map { $0.components(separatedBy: #","body""#).first ?? $0 }.joined(separator: "\n")
        XCTAssertFalse(outsideBodies.contains("secret"), "stdout shows the password: \(run.out)", file: file, line: line)
        XCTAssertFalse(run.stderr.contains("secret"), "stderr shows the password: \(run.stderr)", file: file, line: line)
    }

    func test_fetch_withAPasswordInTheURL_sendsItAndShowsItNowhere() throws {
        let port = try startServer()
        let url = "http://alice:secret@127.0.0.1:\(port)/v1/feed?limit=2"
        for level in ["error", "info", "debug", "trace"] {
            let run = sh("feed-fetch \(quoted(url)) | feed-map", environment: ["FEED_LOG": level])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(run.lines.count, 2, run.out)
            XCTAssertTrue(run.out.contains("http://alice:secret@127.0.0.1"), "the feed's own image URLs are data, passed on")
            let fetched = sh("feed-fetch \(quoted(url))", environment: ["FEED_LOG": level])
            assertNoSecret(fetched)
            XCTAssertTrue(fetched.out.hasPrefix(#"{"url":"http://alice:***@127.0.0.1:\#(port)/v1/feed?limit=2","status":200"#), fetched.out)
            if level == "debug" { XCTAssertTrue(fetched.stderr.contains("GET http://alice:***@127.0.0.1"), fetched.stderr) }
        }
    }

    /// Nor in the process list (`ps`, /proc/PID/cmdline) once the tool has
    /// started: it was there, for every user of the machine, for as long as
    /// the tool ran (found by the hunt). A PostgreSQL store's helper, run
    /// in feed-cache's place, never shows it (given the store in its
    /// environment: its arguments showed the password again, from its
    /// start until it had masked them: found in review).
    func test_aPasswordOnTheCommandLine_isHiddenFromTheProcessListOnceStarted() throws {
        let server = try Served(test: self)
        let dir = temporaryDirectory(self)
        // Reads a process's command line as often as it can for 1.5 s: the
        // last one, what runs then, and whether the password came back
        // once it had been hidden.
        try #"""
        import os, sys, time
        pid = sys.argv[1]
        hidden = again = False
        last = exe = ""
        end = time.time() + 1.5
        while time.time() < end:
            try:
                text = open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
                exe = os.path.basename(os.readlink("/proc/%s/exe" % pid))
            except OSError:
                break
            if not text:
                break
            if "s3cret" in text:
                again = again or hidden
            else:
                hidden = True
            last = text
            time.sleep(0.001)
        print("%s | %s | %s" % (last, exe, "shown again" if again else "hidden"))
        """#.write(toFile: dir + "/watch.py", atomically: false, encoding: .utf8)
        let run = sh(#"""
            python3 -c 'import socket, time; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(90)' > "$D/port" & hole=$!
            while [ ! -s "$D/port" ]; do sleep 0.01; done
            port=$(cat "$D/port")
            feed-fetch --timeout 60 "http://alice:s3cret@${B#http://}/_fault/delay=60000/v1/feed" > /dev/null 2>&1 & a=$!
            python3 "$D/watch.py" $a
            feed-cache --store="postgresql://alice:s3cret@127.0.0.1:$port/db?connect_timeout=60" load > /dev/null 2>&1 & b=$!
            python3 "$D/watch.py" $b
            feed-cache load --store "postgresql://127.0.0.1:$port/db?password=s3cret&connect_timeout=60" --wait 3 > /dev/null 2>&1 & c=$!
            python3 "$D/watch.py" $c
            feed-fetch --timeout 60 "http://alice:p@${B#http://}/_fault/delay=60000/v1/feed" > /dev/null 2>&1 & d=$!
            python3 "$D/watch.py" $d
            kill $a $b $c $d $hole; wait
            """#, environment: ["B": server.base, "D": dir], timeout: 60)
        XCTAssertEqual(run.lines.count, 4, run.out)
        guard run.lines.count == 4 else { return }
        XCTAssertTrue(run.lines.allSatisfy { $0.hasSuffix("| hidden") }, run.out)
        XCTAssertTrue(run.lines[0].hasPrefix("feed-fetch --timeout 60 http://alice:***@127.0.0.1"), run.out)
        // The helper's own (feed-cache-postgresql; installed, essential-feed-net).
        let helpers = ["feed-cache-postgresql", "essential-feed-net"]
        XCTAssertTrue(helpers.contains { run.lines[1] == "feed-cache load | \($0) | hidden" }, run.out)
        XCTAssertTrue(helpers.contains { run.lines[2] == "feed-cache load --wait 3 | \($0) | hidden" }, run.out)
        XCTAssertTrue(run.lines[3].contains("http://alice:*@127.0.0.1"), "a password shorter than the mask: \(run.out)")
    }

    /// One transfer at a time, so that each request goes out on the handle
    /// the one before it used (feed-fetch keeps them, reset): a URL
    /// without credentials after one with them sends none (401).
    func test_fetch_oneAtATime_sendsEachURLsCredentialsOnlyWithIt() throws {
        let port = try startServer()
        let with = "http://alice:secret@127.0.0.1:\(port)/image-0", without = "http://127.0.0.1:\(port)/image-1"
        let run = sh("feed-fetch --parallel 1 \(quoted(with)) \(quoted(without)) \(quoted(with)) \(quoted(without))")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().compactMap { $0["status"] as? Int }, [200, 401, 200, 401], run.out)
    }

    func test_failures_withAPasswordInTheURL_showItNowhere() throws {
        let refused = sh("feed-fetch 'http://alice:secret@127.0.0.1:9/v1/feed'", environment: ["FEED_LOG": "trace"])
        XCTAssertEqual(refused.status, 69)
        assertNoSecret(refused)
        XCTAssertTrue(refused.out.contains(#""url":"http://alice:***@127.0.0.1:9/v1/feed""#), refused.out)
        XCTAssertTrue(refused.stderr.contains("http://alice:***@127.0.0.1:9/v1/feed"), refused.stderr)

        // A password holding `"`, `<`, `>`, `\` or `` ` `` (libcurl sends it as typed) was shown whole.
        for byte in ["\"", "<", ">", "\\", "`"] {
            let run = sh("feed-fetch \(quoted("http://alice:se\(byte)cret@127.0.0.1:9/v1/feed"))", environment: ["FEED_LOG": "trace"])
            XCTAssertEqual(run.status, 69, byte)
            XCTAssertFalse(run.out.contains("cret") || run.stderr.contains("cret"), "\(byte): \(run.out)\(run.stderr)")
            XCTAssertTrue(run.out.contains(#""url":"http://alice:***@127.0.0.1:9/v1/feed""#), run.out)
        }

        let badBase = sh("feed-fetch --base-url 'http://alice:secret@127.0.0.1:9/x?y=1'")
        XCTAssertEqual(badBase.status, 64)
        assertNoSecret(badBase)

        let view = sh("feed-fetch 'http://alice:secret@127.0.0.1:9/v1/feed' | feed-view", environment: ["NO_COLOR": "1"])
        assertNoSecret(view)
    }

    func test_fetch_takesCredentialsFromNetrc() throws {
        let port = try startServer()
        let dir = temporaryDirectory(self)
        let netrc = dir + "/netrc"
        try "machine 127.0.0.1 login alice password secret\n".write(toFile: netrc, atomically: true, encoding: .utf8)
        let url = "http://127.0.0.1:\(port)/v1/feed?limit=2"

        let without = sh("feed-fetch \(quoted(url))", environment: ["HOME": dir, "NETRC": ""])
        XCTAssertTrue(without.out.contains(#""status":401"#), without.out)

        let viaNETRC = sh("feed-fetch \(quoted(url))", environment: ["NETRC": netrc, "FEED_LOG": "trace"])
        XCTAssertTrue(viaNETRC.out.contains(#""status":200"#), viaNETRC.out)
        assertNoSecret(viaNETRC)

        try FileManager.default.copyItem(atPath: netrc, toPath: dir + "/.netrc")
        let viaHome = sh("feed-fetch \(quoted(url))", environment: ["HOME": dir, "NETRC": ""])
        XCTAssertTrue(viaHome.out.contains(#""status":200"#), viaHome.out)
    }

    /// A redirect on the same host keeps the .netrc credentials (sent
    /// again), but the record's final_url names no login: libcurl writes
    /// the one it took from .netrc into the URL it ended at, and a URL
    /// asked for without one must not gain one in a record.
    func test_fetch_withNetrcCredentials_redirectedOnTheSameHost_namesNoLoginInTheFinalURL() throws {
        let heads = Heads()
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.append(head)
                let sent = head.hasPrefix("GET /first ")
                    ? connection.send("HTTP/1.1 302 Found\r\nLocation: /second\r\nContent-Length: 0\r\n\r\n")
                    : connection.respond("{}")
                guard sent else { return }
            }
        }
        addTeardownBlock { server.stop() }
        let netrc = temporaryDirectory(self) + "/netrc"
        try "machine 127.0.0.1 login alice password secret\n".write(toFile: netrc, atomically: true, encoding: .utf8)
        let run = sh(#"feed-fetch "$B/first""#, environment: ["B": server.base, "NETRC": netrc])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().first?["final_url"] as? String, server.base + "/second", run.out)
        XCTAssertFalse(run.out.contains("alice"), run.out)
        XCTAssertEqual(heads.all.filter { $0.contains("Authorization: Basic ") }.count, 2, "both requests carried the credentials")
    }

    /// feed-sync against a feed whose base and image URLs carry the
    /// password: the images are stored (under the URL as feed-fetch shows
    /// it), found by either form of the URL, kept by the next sync, and the
    /// password is in no output.
    func test_feedSync_storesTheImagesOfAFeedWhoseURLsCarryCredentials() throws {
        let port = try startServer()
        let dir = temporaryDirectory(self)
        let env = ["FEED_BASE_URL": "http://alice:secret@127.0.0.1:\(port)", "FEED_STORE": dir + "/feed.sqlite",
                   "FEED_BIN": Products.directory, "S": AcceptanceTests.scripts, "FEED_LOG": "debug"]
        for _ in 0..<2 {
            let sync = sh(#""$S/feed-sync""#, environment: env)
            XCTAssertEqual(sync.status, 0, sync.stderr)
            assertNoSecret(sync)
            let info = sh("feed-cache info", environment: env).records().first
            XCTAssertEqual(info?["items"] as? Int, 2)
            XCTAssertEqual(info?["image_data_count"] as? Int, 2)
        }
        for url in ["http://alice:secret@127.0.0.1:\(port)/image-1", "http://alice:***@127.0.0.1:\(port)/image-1"] {
            let image = sh("feed-cache image \(quoted(url)) | od -c | head -1", environment: env)
            XCTAssertTrue(image.out.contains("P   N   G"), image.out)
        }
        let missing = sh("feed-cache load | feed-cache missing-images", environment: env)
        XCTAssertEqual(missing.out, "", "every image is cached")
        XCTAssertFalse(try String(contentsOfFile: dir + "/feed.sqlite", encoding: .isoLatin1).contains("secret:"), "no password kept as an image data key")
    }

    /// An error record met on input is passed on as it came, but for a
    /// password in a URL, shown as `***`, as every printed URL (a record
    /// made by hand passed it in clear).
    func test_everyFilter_passesAnErrorRecordOn_withItsPasswordMasked() {
        let error = #"{"error":"connectivity","message":"refused by http://alice:secret@h/x","url":"http://alice:secret@h/v1/feed"}"#
        let masked = #"{"error":"connectivity","message":"refused by http://alice:***@h/x","url":"http://alice:***@h/v1/feed"}"#
        let store = temporaryDirectory(self) + "/feed.sqlite"
        for command in ["feed-map", "comments-map", "feed-fetch", "reldate", "feed-cache --store \(quoted(store)) save", "feed-cache --store \(quoted(store)) save-images",
                        "feed-cache --store \(quoted(store)) fallback"] {
            let run = sh(command, stdin: error + "\n")
            XCTAssertEqual(run.status, 69, "\(command): \(run.stderr)")
            XCTAssertEqual(run.out, masked + "\n", command)
        }
    }
}
