import Foundation
import XCTest

/// What a server may send that must neither stall feed-fetch nor put
/// something else in a record: a request it holds does not hold the
/// others to the same host, a 304 is no redirect, trailer fields are not
/// the head's, a gzip body is decoded whole, an entity tag that cannot be
/// sent back is not kept, and a reader that leaves ends the tool at once.
final class HostileServerTests: XCTestCase {
    /// A server that holds one request: the others to the same plain-http
    /// host are answered meanwhile (libcurl waited for the first to learn
    /// the connection was HTTP/1.1, and timed them all out with it).
    func test_aRequestTheServerHolds_holdsNoOtherRequestToTheSameHost() throws {
        let server = try Served(test: self)
        let started = Date()
        let run = sh(#"printf '%s\n' "$B/_fault/hang/v1/feed" "$B/v1/feed?limit=1" "$B/v1/feed?limit=2" | feed-fetch --timeout 3"#,
                     environment: ["B": server.base])
        XCTAssertEqual(run.status, 69, run.stderr)
        let records = run.records()
        XCTAssertEqual(records.count, 3, run.out)
        XCTAssertEqual(records.first?["message"] as? String, "timed out after 3 s")
        XCTAssertEqual(records.dropFirst().map { $0["status"] as? Int }, [200, 200], "\(records)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    /// `| head -1` ends feed-fetch at once and quietly, while it still
    /// waits on a request the server holds: not at its timeout, with the
    /// timeout's message on standard error.
    func test_aReaderThatLeaves_endsFeedFetchAtOnceAndQuietly_whileARequestIsHeld() throws {
        let server = try Served(test: self)
        let d = temporaryDirectory(self)
        let started = Date()
        let run = sh(#"""
            printf '%s\n' "$B/v1/feed?limit=1" "$B/_fault/hang/v1/feed" |
                { feed-fetch --timeout 30 2> "$T/err"; echo $? > "$T/status"; } | head -n 1
            """#, environment: ["B": server.base, "T": d])
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(run.records().first?["status"] as? Int, 200, run.out)
        XCTAssertLessThan(seconds, 10, "ended when its reader left, not at --timeout")
        XCTAssertEqual(try String(contentsOfFile: d + "/status", encoding: .utf8), "0\n")
        XCTAssertEqual(try String(contentsOfFile: d + "/err", encoding: .utf8), "", "nothing on standard error")
    }

    /// A 304 that gives a Location is still a 304 (libcurl follows any
    /// 3xx with one): the record is the 304 with its validators, and the
    /// Location's page is never asked.
    func test_a304WithALocation_isThe304_notARedirect() throws {
        let heads = Heads()
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.append(head)
                if head.hasPrefix("GET /other") {
                    guard connection.respond(#"{"other":true}"#) else { return }
                } else {
                    guard connection.send("HTTP/1.1 304 Not Modified\r\nLocation: /other\r\nETag: \"v1\"\r\nContent-Length: 0\r\n\r\n") else { return }
                }
            }
        }
        addTeardownBlock { server.stop() }
        for options in ["", "--max-redirects 0"] {
            let run = sh(#"printf '{"url":"%s/feed","if_none_match":"\\"v1\\""}\n' "$B" | feed-fetch \#(options)"#, environment: ["B": server.base])
            XCTAssertEqual(run.status, 0, run.stderr)
            let record = try XCTUnwrap(run.records().first)
            XCTAssertEqual(record["status"] as? Int, 304, "\(options): \(record)")
            XCTAssertNil(record["final_url"], "\(record)")
            XCTAssertEqual(record["etag"] as? String, "\"v1\"")
            XCTAssertEqual(record["body_base64"] as? String, "")
        }
        XCTAssertEqual(heads.all.filter { $0.hasPrefix("GET /other") }, [], "the Location was not followed")
    }

    /// --max-body holds the body as decoded, the one kept: a gzip body's
    /// size as sent does not count (12 bytes, 31 sent, under a limit of 12
    /// bytes); a plain body its Content-Length shows over the limit is
    /// refused at once, and so is a followed redirect's as sent (libcurl
    /// reads it through: a server could make each request drain data until
    /// its timeout); under the limit, the redirect is followed. A 304 or a
    /// 204 has no body, whatever length it gives. libcurl's own limit held
    /// every response's Content-Length to it, as sent.
    func test_maxBody_holdsTheBodyKept_asDecoded_notARedirectsNorTheCompressedSize() throws {
        let heads = Heads()
        let plain = Array("twelve bytes".utf8)
        let gzipped = try gzip(plain)
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                heads.append(head)
                if head.hasPrefix("GET /target") {
                    guard connection.respond(#"{"ok":true}"#) else { return }
                } else if head.hasPrefix("GET /gzip") {
                    guard connection.send(Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(gzipped.count)\r\n\r\n".utf8) + gzipped) else { return }
                } else if head.hasPrefix("GET /plain") {
                    guard connection.send("HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n") else { return }
                } else if head.hasPrefix("GET /304") || head.hasPrefix("GET /204") {
                    let status = head.hasPrefix("GET /304") ? "304 Not Modified" : "204 No Content"
                    guard connection.send("HTTP/1.1 \(status)\r\nETag: \"v\"\r\nContent-Length: 5000\r\n\r\n") else { return }
                } else if head.hasPrefix("GET /chunked-endless") {
                    // The same without a length: bounded as it is read through.
                    guard connection.send("HTTP/1.1 302 Found\r\nLocation: /target\r\nTransfer-Encoding: chunked\r\n\r\n") else { return }
                    let chunk = "10000\r\n" + String(repeating: "x", count: 65_536) + "\r\n"
                    while connection.send(chunk) {}
                    return
                } else if head.hasPrefix("GET /closing") {
                    // The same with Connection: close: libcurl reads none of
                    // that body (it follows on a new connection), so nothing is refused.
                    let version = head.hasPrefix("GET /closing-1.0") ? "1.0" : "1.1"
                    let close = version == "1.0" ? "" : "Connection: close\r\n"
                    guard connection.send("HTTP/\(version) 302 Found\r\nLocation: /target\r\n\(close)Content-Length: 1000000000000\r\n\r\n") else { return }
                    while connection.send(String(repeating: "x", count: 65_536)) {}
                    return
                } else if head.hasPrefix("GET /endless") {
                    // A redirect whose body would never end: refused at its length, not drained.
                    guard connection.send("HTTP/1.1 302 Found\r\nLocation: /target\r\nContent-Length: 1000000000000\r\n\r\n") else { return }
                    while connection.send(String(repeating: "x", count: 65_536)) {}
                    return
                } else {
                    let body = String(repeating: "x", count: 5000)
                    guard connection.send("HTTP/1.1 302 Found\r\nLocation: /target\r\nContent-Length: 5000\r\n\r\n" + body) else { return }
                }
            }
        }
        addTeardownBlock { server.stop() }
        let moved = sh(#"feed-fetch --max-body 5k "$B/moved""#, environment: ["B": server.base])
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertEqual(moved.records().first?["body"] as? [String: Bool], ["ok": true], moved.out)
        XCTAssertEqual(heads.all.filter { $0.hasPrefix("GET /target") }.count, 1, "the Location was asked")
        let started = Date()
        let endless = sh(#"feed-fetch --max-body 1k --timeout 20 "$B/endless""#, environment: ["B": server.base])
        XCTAssertEqual(endless.status, 65, endless.stderr)
        XCTAssertEqual(endless.records().first?["message"] as? String, "response body larger than 1024 bytes", endless.out)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "refused at its length, not drained to the timeout")
        XCTAssertEqual(heads.all.filter { $0.hasPrefix("GET /target") }.count, 1, "its Location was not asked")
        for path in ["closing", "closing-1.0"] {
            let closing = sh(#"feed-fetch --max-body 1k --timeout 20 "$B/\#(path)""#, environment: ["B": server.base])
            XCTAssertEqual(closing.status, 0, "\(path): \(closing.stderr)")
            XCTAssertEqual(closing.records().first?["body"] as? [String: Bool], ["ok": true], "\(path): \(closing.out)")
        }
        let chunkedStart = Date()
        let chunked = sh(#"feed-fetch --max-body 1M --timeout 20 "$B/chunked-endless""#, environment: ["B": server.base])
        XCTAssertEqual(chunked.status, 65, chunked.stderr)
        XCTAssertEqual(chunked.records().first?["message"] as? String, "response body larger than 1048576 bytes", chunked.out)
        XCTAssertLessThan(Date().timeIntervalSince(chunkedStart), 5, "stopped past the limit, not drained to the timeout")
        for path in ["304", "204"] {
            let bodiless = sh(#"feed-fetch --max-body 1k "$B/\#(path)""#, environment: ["B": server.base])
            XCTAssertEqual(bodiless.status, 0, "\(path): \(bodiless.out) \(bodiless.stderr)")
            XCTAssertEqual(bodiless.records().first?["status"] as? Int, Int(path), bodiless.out)
        }
        XCTAssertGreaterThan(gzipped.count, 12)
        let coded = sh(#"feed-fetch --max-body 12 "$B/gzip""#, environment: ["B": server.base])
        XCTAssertEqual(coded.status, 0, coded.stderr)
        XCTAssertEqual(coded.records().first?["body_base64"] as? String, Data(plain).base64EncodedString(), coded.out)
        let over = sh(#"feed-fetch --max-body 12 "$B/plain""#, environment: ["B": server.base])
        XCTAssertEqual(over.status, 65, over.stderr)
        XCTAssertEqual(over.records().first?["message"] as? String, "response body larger than 12 bytes", over.out)
    }

    /// `bytes` compressed by gzip(1).
    private func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let d = temporaryDirectory(self)
        XCTAssertTrue(FileManager.default.createFile(atPath: d + "/plain", contents: Data(bytes)))
        XCTAssertEqual(sh(#"gzip -n "$D/plain""#, environment: ["D": d]).status, 0)
        return Array(try Data(contentsOf: URL(fileURLWithPath: d + "/plain.gz")))
    }

    /// Trailer fields of a chunked body are not the head's: an ETag there
    /// neither replaces the head's nor stands for a missing one, even
    /// after a trailer field that looks like a status line.
    func test_validatorsInAChunkedBodysTrailer_areNotTheResponses() throws {
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                let etag = head.hasPrefix("GET /a ") ? "ETag: \"head\"\r\n" : ""
                // An empty body (GET /empty): its trailer comes before any body byte.
                let chunks = head.hasPrefix("GET /empty ") ? "" : "c\r\n{\"items\":[]}\r\n"
                let sent = connection.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\(etag)\r\n"
                    + chunks + "0\r\nETag: \"trailer\"\r\nLast-Modified: Tue, 01 Dec 2026 00:00:00 GMT\r\n"
                    // A trailer field that looks like a status line (libcurl
                    // takes any with a colon) starts no new head.
                    + "HTTP/1.1 200 x:y\r\nETag: \"after\"\r\n\r\n")
                guard sent else { return }
            }
        }
        addTeardownBlock { server.stop() }
        let run = sh(#"feed-fetch "$B/a" "$B/b""#, environment: ["B": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        let records = run.records()
        XCTAssertEqual(records.count, 2, run.out)
        XCTAssertEqual(records.first?["etag"] as? String, "\"head\"", "\(records)")
        XCTAssertNil(records.last?["etag"], "\(records)")
        XCTAssertNil(records.first?["last_modified"], "\(records)")
        XCTAssertNil(records.last?["last_modified"], "\(records)")
        XCTAssertTrue(run.lines.allSatisfy { $0.hasSuffix(#","body":{"items":[]}}"#) }, run.out)
        // After an empty body too (the trailer's status-like line began a head, and the response was "connection lost").
        let empty = sh(#"feed-fetch "$B/empty""#, environment: ["B": server.base])
        XCTAssertEqual(empty.status, 0, empty.out + empty.stderr)
        XCTAssertEqual(empty.records().first?["status"] as? Int, 200, empty.out)
        XCTAssertNil(empty.records().first?["etag"], empty.out)
    }

    /// An entity tag with bytes past ASCII (obs-text) could not go back to
    /// the server as it came: it is not kept, rather than kept changed (a
    /// conditional request then never matched).
    func test_anEntityTagWithBytesPastASCII_isNotKept() throws {
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                let etag: [UInt8] = head.hasPrefix("GET /latin") ? Array("ETag: \"caf".utf8) + [0xE9] + Array("\"\r\n".utf8) : Array("ETag: \"cafe\"\r\n".utf8)
                guard connection.send(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n".utf8) + etag + Array("\r\n{}".utf8)) else { return }
            }
        }
        addTeardownBlock { server.stop() }
        let run = sh(#"feed-fetch "$B/latin" "$B/ascii""#, environment: ["B": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        let records = run.records()
        XCTAssertEqual(records.count, 2, run.out)
        XCTAssertNil(records.first?["etag"], "\(records)")
        XCTAssertEqual(records.last?["etag"] as? String, "\"cafe\"")
    }

    /// A date with a year of 17 digits, in Last-Modified or in Retry-After:
    /// once an overflow in the days' arithmetic (SIGILL, 132). It is no
    /// HTTP date: not kept, and no wait of its own.
    func test_aDateWithAYearPastFourDigits_isNoDate() throws {
        let date = "Sun, 06 Nov 99999999999999999 08:49:37 GMT"
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                let status = head.hasPrefix("GET /busy") ? "503 Busy" : "200 OK"
                guard connection.send(Array("HTTP/1.1 \(status)\r\nContent-Length: 2\r\nLast-Modified: \(date)\r\nRetry-After: \(date)\r\n\r\n{}".utf8)) else { return }
            }
        }
        addTeardownBlock { server.stop() }
        let run = sh(#"feed-fetch --retry 1 "$B/ok" "$B/busy""#, environment: ["B": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.records().map { $0["status"] as? Int }, [200, 503])
        XCTAssertNil(run.records().first?["last_modified"], "\(run.records())")
        let asked = sh(#"echo '{"url":"'"$B"'/ok","if_modified_since":"Sun Nov  6 08:49:37 300000000000"}' | feed-fetch"#, environment: ["B": server.base])
        XCTAssertEqual(asked.status, 0, asked.stderr)
        XCTAssertEqual(asked.records().first?["status"] as? Int, 200, "asked without the condition")
        let page = #"{"page":"http://x/v1/feed","status":200,"last_modified":"\#(date)"}"#
        let saved = sh(#"feed-cache --store "$D/s.sqlite" save --allow-empty"#, stdin: page + "\n", environment: ["D": temporaryDirectory(self)])
        XCTAssertLessThan(saved.status, 128, saved.stderr)
    }

    /// A gzip body of two members is the two decoded (gzip(1) reads them
    /// so); the first alone once came out, a short body for a whole one.
    func test_aGzipBodyOfTwoMembers_isDecodedWhole() throws {
        let d = temporaryDirectory(self)
        let made = sh(#"{ printf '{"items":' | gzip -c; printf '[]}' | gzip -c; } > "$D/body""#, environment: ["D": d])
        XCTAssertEqual(made.status, 0, made.stderr)
        let body = try [UInt8](Data(contentsOf: URL(fileURLWithPath: d + "/body")))
        let server = try RawSocketServer { connection in
            while connection.readRequest() != nil {
                let head = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(body.count)\r\n\r\n"
                guard connection.send(Array(head.utf8) + body) else { return }
            }
        }
        addTeardownBlock { server.stop() }
        let run = sh(#"feed-fetch "$B/feed""#, environment: ["B": server.base])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.out.hasSuffix(#","body":{"items":[]}}"# + "\n"), run.out)
    }

    /// Heads past libcurl's own bounds (a line of 1 MiB; 500 KB of
    /// interim heads), a 101 no request asked for, and a trailer that
    /// breaks the chunked framing are the server's fault, said as such
    /// (they were "Out of memory", a record of status 101, "connection
    /// lost" and a message without its "bad response").
    func test_headsPastLibcurlsBounds_anUnasked101_andABrokenTrailer_areBadResponses() throws {
        let server = try RawSocketServer { connection in
            while let head = connection.readRequest() {
                let path = head.split(separator: " ")[1]
                let answer: String
                switch path {
                case "/line": answer = "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 1 << 20) + "\r\nContent-Length: 2\r\n\r\n{}"
                case "/interim": answer = String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 20_000) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"
                case "/switch": answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\nxxxx"
                default: answer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nHTTP/1.1 404 Nope\r\n\r\n"
                }
                connection.send(answer)
                return
            }
        }
        addTeardownBlock { server.stop() }
        let run = sh(#"feed-fetch --timeout 10 "$B/line" "$B/interim" "$B/switch" "$B/trailer""#, environment: ["B": server.base])
        XCTAssertEqual(run.status, 69, run.stderr)
        let messages = run.records().map { $0["message"] as? String ?? "" }
        XCTAssertEqual(messages.count, 4, run.out)
        XCTAssertEqual(Array(messages.prefix(3)), [
            "bad response: response head larger than 65536 bytes",
            "bad response: response head larger than 65536 bytes",
            "bad response: 101 Switching Protocols, not asked for",
        ])
        XCTAssertTrue(messages.last?.hasPrefix("bad response: ") == true, messages.last ?? "")
    }

    /// --timeout bounds a request to its body's last byte, however much of
    /// it each read decodes: gzip members of 100 MB of zeros (100 KB each)
    /// sent as fast as the connection takes them ran 2.6 s past a timeout
    /// of 1 s with --max-body 2G, 18 s with 8G (libcurl hands over many
    /// reads before the engine looks at the clock), spooling gigabytes.
    func test_aTimeout_boundsARequestWhoseBodyDecodesToGigabytes() throws {
        let d = temporaryDirectory(self)
        let make = sh(#"python3 -c 'import gzip, sys; sys.stdout.buffer.write(gzip.compress(bytes(100 << 20), 9))' > "$D/member.gz""#, environment: ["D": d])
        XCTAssertEqual(make.status, 0, make.stderr)
        let member = try [UInt8](Data(contentsOf: URL(fileURLWithPath: d + "/member.gz")))
        let server = try RawSocketServer { connection in
            guard connection.readRequest() != nil,
                  connection.send("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n") else { return }
            while connection.send(member) {}
        }
        addTeardownBlock { server.stop() }
        let started = Date()
        let run = sh("feed-fetch --timeout 1 --max-body 2G \(quoted(server.base + "/feed"))", environment: ["TMPDIR": d])
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(run.status, 69, run.stderr)
        XCTAssertEqual(run.records().first?["message"] as? String, "timed out after 1 s", run.out)
        XCTAssertLessThan(seconds, 2.5)
    }

    func test_aTimeoutPastItsBound_orNotInDecimal_isAUsageError() {
        for value in ["99999999999", "0x10", "1e3"] {
            let run = sh(#"feed-fetch --timeout "$V" http://127.0.0.1:9/"#, environment: ["V": value])
            XCTAssertEqual(run.status, 64, "\(value): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("--timeout takes a positive number of seconds up to 1000000, not '\(value)'"), run.stderr)
        }
    }
}
