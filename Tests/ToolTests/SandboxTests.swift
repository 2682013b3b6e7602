import XCTest

/// Least privilege, proved from outside: each confined tool, while it waits
/// for its input, shows a seccomp filter and no_new_privs in
/// /proc/PID/status; the probe of debug builds (FEED_TEST_SANDBOX_PROBE)
/// is refused a file outside the tool's rules, a socket and a program.
final class SandboxTests: XCTestCase {
    /// The filters: they parse and show what any server sent.
    static let filters: [(name: String, arguments: String)] = [
        ("feed-map", ""), ("comments-map", ""), ("feed-paginate", "--base-url http://h"),
        ("reldate", ""), ("feed-view", ""), ("feed-view", "--format atom"), ("feed-view", "--format html"),
    ]

    /// The status lines of `tool` (and `arguments`) read while it waits
    /// for input on a pipe that stays open.
    private func statusWhileReading(_ tool: String, _ arguments: String, environment: [String: String] = [:]) -> [String: String] {
        status(of: "sleep 3 2> /dev/null | \(tool) \(arguments)", environment: environment)
    }

    /// The status lines of the last process of `pipeline`, half a second after it starts.
    private func status(of pipeline: String, environment: [String: String] = [:]) -> [String: String] {
        let run = sh(#"""
            \#(pipeline) > /dev/null & pid=$!
            sleep 0.5
            grep -E '^(Seccomp|NoNewPrivs):' /proc/$pid/status
            kill $pid
            """#, environment: environment, timeout: 20)
        var fields: [String: String] = [:]
        for line in run.out.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    func test_eachFilter_waitsForItsInputUnderASeccompFilterAndNoNewPrivileges() {
        for (tool, arguments) in Self.filters {
            let status = statusWhileReading(tool, arguments)
            XCTAssertEqual(status["Seccomp"], "2", "\(tool) \(arguments)")
            XCTAssertEqual(status["NoNewPrivs"], "1", "\(tool) \(arguments)")
        }
    }

    func test_FEED_SANDBOX_off_leavesATool_asItWas() {
        let status = statusWhileReading("feed-map", "", environment: ["FEED_SANDBOX": "off"])
        XCTAssertEqual(status["Seccomp"], "0")
        XCTAssertEqual(status["NoNewPrivs"], "0")
        let run = sh("printf '' | feed-map", environment: ["FEED_SANDBOX": "off", "FEED_LOG": "debug"])
        XCTAssertEqual(run.stderr, "feed-map: sandbox: off (FEED_SANDBOX=off)\n")
    }

    /// The probe is compiled into debug builds only; the installed tools are release builds.
    private func skipUnlessTheProbeIsBuiltIn() throws {
        guard ProcessInfo.processInfo.environment["FEED_BIN"] == nil else {
            throw XCTSkip("the probe is in debug builds only")
        }
    }

    /// The probe's three tries, as the tool said them.
    private func probe(_ tool: String, _ arguments: String, environment: [String: String] = [:]) -> [String] {
        var env = environment
        env["FEED_TEST_SANDBOX_PROBE"] = "1"
        let run = sh("printf '' | \(tool) \(arguments)", environment: env)
        return run.stderr.split(separator: "\n").map(String.init).filter { $0.contains("sandbox probe:") }
    }

    func test_eachFilter_isRefusedAFileOutsideItsRules_aSocket_andAProgram() throws {
        try skipUnlessTheProbeIsBuiltIn()
        for (tool, arguments) in Self.filters {
            XCTAssertEqual(probe(tool, arguments), [
                "\(tool): sandbox probe: open /etc/shells: Permission denied",
                "\(tool): sandbox probe: open /etc/shells on the signals' thread: Permission denied",
                "\(tool): sandbox probe: socket: Operation not permitted",
                "\(tool): sandbox probe: io_uring_setup: Operation not permitted",
                "\(tool): sandbox probe: exec /bin/true: Operation not permitted",
                "\(tool): sandbox probe: signal another process: Operation not permitted",
                "\(tool): sandbox probe: chown a file: Operation not permitted",
                "\(tool): sandbox probe: chmod a file 0644: Operation not permitted",
                "\(tool): sandbox probe: fchmod a file 04755: Operation not permitted",
                "\(tool): sandbox probe: fchown a file: Operation not permitted",
                "\(tool): sandbox probe: fcntl F_SETOWN: Operation not permitted",
                "\(tool): sandbox probe: ioctl TIOCSTI: Operation not permitted",
            ], "\(tool) \(arguments)")
        }
    }

    /// The thread that waits for signals, started before the confinement,
    /// is held to the same rules, waiting on a signalfd or in sigwait (it
    /// kept every file: found by the hunt), and still takes a signal.
    func test_theSignalsThread_isConfinedToo_andStillEndsTheToolOnASignal() throws {
        try skipUnlessTheProbeIsBuiltIn()
        XCTAssertEqual(probe("feed-map", "", environment: ["FEED_TEST_NO_SIGNALFD": "1"]).prefix(2), [
            "feed-map: sandbox probe: open /etc/shells: Permission denied",
            "feed-map: sandbox probe: open /etc/shells on the signals' thread: Permission denied",
        ])
        for way in ["", "FEED_TEST_NO_SIGNALFD=1"] {
            let run = sh("sleep 2 | env \(way) feed-map & pid=$!; sleep 0.5; kill -TERM $pid; wait $pid; echo $?")
            XCTAssertEqual(run.out, "143\n", way)
        }
    }

    /// A client reads the authorities and TLS's configuration, not the
    /// servers' private keys kept beside them in /etc/ssl/private (all of
    /// /etc/ssl was readable: found by the hunt).
    func test_feedFetch_readsTheAuthorities_notThePrivateKeysBesideThem() throws {
        try skipUnlessTheProbeIsBuiltIn()
        func probed(_ file: String) -> String? {
            sh("feed-fetch - < /dev/null", environment: ["FEED_TEST_SANDBOX_PROBE": "1", "FEED_TEST_SANDBOX_PROBE_FILE": file])
                .stderr.split(separator: "\n").map(String.init).first { $0.contains("sandbox probe: open") }
        }
        for file in ["/etc/ssl/certs/ca-certificates.crt", "/etc/ssl/openssl.cnf"] where FileManager.default.fileExists(atPath: file) {
            XCTAssertEqual(probed(file), "feed-fetch: sandbox probe: open \(file): allowed")
        }
        guard getuid() == 0, FileManager.default.fileExists(atPath: "/etc/ssl/private") else { throw XCTSkip("needs root and /etc/ssl/private") }
        XCTAssertEqual(probed("/etc/ssl/private"), "feed-fetch: sandbox probe: open /etc/ssl/private: Permission denied")
    }

    /// A credentials file that is a pipe (`NETRC=<(...)`, to keep it off
    /// the disk) has nothing for Landlock to grant, and the rest of the
    /// rules hold: it left Landlock out whole (found by the hunt).
    func test_aNetrcThatIsAPipe_leavesTheRulesInPlace() throws {
        try skipUnlessTheProbeIsBuiltIn()
        let run = sh(#"bash -c 'NETRC=<(printf "machine h login u password p\n") FEED_LOG=debug feed-fetch - < /dev/null'"#,
                     environment: ["FEED_TEST_SANDBOX_PROBE": "1"])
        XCTAssertFalse(run.stderr.contains("not confined by Landlock"), run.stderr)
        XCTAssertTrue(run.stderr.contains("feed-fetch: sandbox probe: open /etc/shells: Permission denied"), run.stderr)
    }

    /// feed-fetch, which connects out, may not connect to an abstract Unix
    /// socket made outside it (Landlock's scope, from ABI 6).
    func test_feedFetch_mayNotConnectToAnAbstractUnixSocketMadeOutsideIt() throws {
        try skipUnlessTheProbeIsBuiltIn()
        let name = "feed-probe-\(UUID().uuidString)"
        let directory = temporaryDirectory(self)
        let listener = sh(#"""
            python3 -c 'import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.bind("\0"+sys.argv[1]); s.listen(8); print("up", flush=True); time.sleep(20)' "$N" > "$T/up" 2> /dev/null < /dev/null & echo $! > "$T/pid"
            for i in $(seq 50); do [ -s "$T/up" ] && break; sleep 0.1; done
            """#, environment: ["N": name, "T": directory])
        XCTAssertEqual(listener.status, 0)
        addTeardownBlock { _ = sh(#"kill $(cat "$T/pid")"#, environment: ["T": directory]) }
        func probed(_ environment: [String: String]) -> String? {
            let run = sh("feed-fetch - < /dev/null", environment: environment.merging(["FEED_TEST_SANDBOX_PROBE": "1", "FEED_TEST_SANDBOX_PROBE_ABSTRACT": name]) { $1 })
            return run.stderr.split(separator: "\n").map(String.init).first { $0.contains("abstract socket") }
        }
        XCTAssertEqual(probed(["FEED_SANDBOX": "off"]), "feed-fetch: sandbox probe: connect an abstract socket: allowed")
        let abi = sh("FEED_LOG=trace feed-fetch - < /dev/null").stderr
        guard let range = abi.range(of: "Landlock ABI "), let version = Int(abi[range.upperBound...].prefix { $0.isNumber }), version >= 6 else {
            throw XCTSkip("a kernel whose Landlock has no scopes (ABI 6): \(abi)")
        }
        XCTAssertEqual(probed([:]), "feed-fetch: sandbox probe: connect an abstract socket: Operation not permitted")
    }

    /// What the rules grant is granted: a file in the temporary folder
    /// (the spools') and the time-zone data.
    func test_aFilter_mayReadItsTemporaryFolderAndTheTimeZoneData() throws {
        try skipUnlessTheProbeIsBuiltIn()
        let dir = temporaryDirectory(self)
        try "x".write(toFile: dir + "/file", atomically: false, encoding: .utf8)
        XCTAssertEqual(probe("feed-map", "", environment: ["TMPDIR": dir, "FEED_TEST_SANDBOX_PROBE_FILE": dir + "/file"]).first,
                       "feed-map: sandbox probe: open \(dir)/file: allowed")
        XCTAssertEqual(probe("reldate", "", environment: ["FEED_TEST_SANDBOX_PROBE_FILE": "/usr/share/zoneinfo/Europe/Berlin"]).first,
                       "reldate: sandbox probe: open /usr/share/zoneinfo/Europe/Berlin: allowed")
    }

    /// A rule whose path cannot be opened for want of a descriptor is not
    /// dropped while the others hold: that would refuse the tool what it
    /// may touch (its spool: "Permission denied"). Landlock is left out
    /// instead, as on a kernel without it (said at debug), and the tool works.
    func test_outOfDescriptorsWhileConfining_leavesLandlockOut_notAToolRefusedItsSpool() throws {
        let directory = temporaryDirectory(self)
        // One response of 50,000 items, past the 2 MiB the mapper holds in memory.
        let script = #"""
            python3 -c '
            import json
            items = [{"id": "%08X-0000-4000-8000-000000000000" % i, "image": "https://a.example/%d.jpg" % i} for i in range(50000)]
            print(json.dumps({"url": "https://a.example/v1/feed", "status": 200, "body": {"items": items}}))' > "$D/in"
            exec < "$D/in" > "$D/out" 2> "$D/err"
            ulimit -n 64
            # Two descriptors left: the signals' signalfd takes one, and one is left for Landlock's ruleset.
            (for ((fd = 3; fd < 62; fd++)); do eval "exec $fd</dev/null"; done
             FEED_LOG=debug TMPDIR="$D" exec feed-map)
            echo $? > "$D/status"
            """#
        let run = sh(#"bash -c "$SCRIPT""#, environment: ["D": directory, "SCRIPT": script])
        XCTAssertEqual(run.status, 0, run.stderr)
        let err = try String(contentsOfFile: directory + "/err", encoding: .utf8)
        XCTAssertEqual(try String(contentsOfFile: directory + "/status", encoding: .utf8), "0\n", err)
        let out = try String(contentsOfFile: directory + "/out", encoding: .utf8)
        XCTAssertEqual(out.split(separator: "\n").count, 50_000, String(out.suffix(300)))
        XCTAssertTrue(err.contains("feed-map: sandbox: not confined by Landlock"), err)
        XCTAssertTrue(err.contains("Too many open files"), err)
    }

    func test_withTheSandboxOff_theProbeIsAllowedEverything() throws {
        try skipUnlessTheProbeIsBuiltIn()
        // io_uring where the kernel lets every process have it.
        let ring = (try? String(contentsOfFile: "/proc/sys/kernel/io_uring_disabled", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == "0"
        XCTAssertEqual(probe("feed-map", "", environment: ["FEED_SANDBOX": "off"]).filter { ring || !$0.contains("io_uring") }, [
            "feed-map: sandbox probe: open /etc/shells: allowed",
            "feed-map: sandbox probe: open /etc/shells on the signals' thread: allowed",
            "feed-map: sandbox probe: socket: allowed",
        ] + (ring ? ["feed-map: sandbox probe: io_uring_setup: allowed"] : []) + [
            "feed-map: sandbox probe: exec /bin/true: allowed",
            "feed-map: sandbox probe: signal another process: allowed",
            "feed-map: sandbox probe: chown a file: allowed",
            "feed-map: sandbox probe: chmod a file 0644: allowed",
            "feed-map: sandbox probe: fchmod a file 04755: allowed",
            "feed-map: sandbox probe: fchown a file: allowed",
            "feed-map: sandbox probe: fcntl F_SETOWN: allowed",
            "feed-map: sandbox probe: ioctl TIOCSTI: Inappropriate ioctl for device",
        ])
    }

    /// Found by tracing the tools' system calls (strace -f): the time zone
    /// of TZ is read from /usr/share/zoneinfo after the confinement, when the
    /// first date is made, by reldate and by feed-view. Confined or not,
    /// they write the same.
    func test_reldateAndFeedView_confined_writeWhatTheyWriteUnconfined_inEveryTimeZone() {
        let comment = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","message":"m","created_at":"2025-11-30T23:30:00Z","username":"u"}"#
        for zone in ["UTC", "Asia/Tokyo", "America/New_York"] {
            for command in ["reldate --now 2026-01-01T00:30:00Z --locale de", "feed-view --kind comments --now 2026-01-01T00:30:00Z"] {
                let confined = sh(command, stdin: comment + "\n", environment: ["TZ": zone])
                let free = sh(command, stdin: comment + "\n", environment: ["TZ": zone, "FEED_SANDBOX": "off"])
                XCTAssertEqual(confined.status, 0, confined.stderr)
                XCTAssertEqual(confined.out, free.out, "\(command) in \(zone)")
            }
        }
    }

    // MARK: The tools with side effects

    func test_feedCache_feedFetch_andFeedServe_runUnderASeccompFilterAndNoNewPrivileges() {
        let store = temporaryDirectory(self) + "/s/feed.sqlite"
        let waiting = [
            statusWhileReading("feed-cache", "--store '\(store)' save"),
            statusWhileReading("feed-fetch", "-"),
            status(of: "feed-serve --port 0"),
        ]
        for (status, tool) in zip(waiting, ["feed-cache", "feed-fetch", "feed-serve"]) {
            XCTAssertEqual(status["Seccomp"], "2", tool)
            XCTAssertEqual(status["NoNewPrivs"], "1", tool)
        }
    }

    /// feed-cache may touch its store's folder (made first for a save) and
    /// nothing else; no socket for a file store, no program.
    func test_feedCache_mayTouchItsStoresFolder_only() throws {
        try skipUnlessTheProbeIsBuiltIn()
        let dir = temporaryDirectory(self)
        let store = dir + "/new/folder/feed.json"
        XCTAssertEqual(probe("feed-cache", "--store '\(store)' save --allow-empty"), [
            "feed-cache: sandbox probe: open /etc/shells: Permission denied",
            "feed-cache: sandbox probe: open /etc/shells on the signals' thread: Permission denied",
            "feed-cache: sandbox probe: socket: Operation not permitted",
            "feed-cache: sandbox probe: io_uring_setup: Operation not permitted",
            "feed-cache: sandbox probe: exec /bin/true: Operation not permitted",
            "feed-cache: sandbox probe: signal another process: Operation not permitted",
            "feed-cache: sandbox probe: chown a file: Operation not permitted",
            "feed-cache: sandbox probe: chmod a file 0644: Operation not permitted",
            "feed-cache: sandbox probe: fchmod a file 04755: Operation not permitted",
            // To the store's owner (the test's user, who made the store's folder).
            "feed-cache: sandbox probe: fchown a file: allowed",
            "feed-cache: sandbox probe: fcntl F_SETOWN: Operation not permitted",
            "feed-cache: sandbox probe: ioctl TIOCSTI: Operation not permitted",
        ])
        try "x".write(toFile: dir + "/new/folder/beside", atomically: false, encoding: .utf8)
        try "x".write(toFile: dir + "/outside", atomically: false, encoding: .utf8)
        let environment = ["TMPDIR": dir + "/new"]
        XCTAssertEqual(probe("feed-cache", "--store '\(store)' load", environment: environment.merging(["FEED_TEST_SANDBOX_PROBE_FILE": dir + "/new/folder/beside"]) { $1 }).first,
                       "feed-cache: sandbox probe: open \(dir)/new/folder/beside: allowed")
        XCTAssertEqual(probe("feed-cache", "--store '\(store)' load", environment: environment.merging(["FEED_TEST_SANDBOX_PROBE_FILE": dir + "/outside"]) { $1 }).first,
                       "feed-cache: sandbox probe: open \(dir)/outside: Permission denied")
    }

    /// With a PostgreSQL store, libpq may read the files its URI's own
    /// parameters name (`passfile=`, `sslrootcert=`, ...), percent-decoded,
    /// wherever they lie, and no other (a passfile outside the folders
    /// allowed was "no password supplied": found by the hunt).
    func test_feedCache_mayReadTheFilesItsPostgreSQLURINames() throws {
        try skipUnlessTheProbeIsBuiltIn()
        let dir = temporaryDirectory(self)
        try FileManager.default.createDirectory(atPath: dir + "/t", withIntermediateDirectories: true)
        for name in ["pass file", "ca.crt", "key", "other"] { try "x".write(toFile: dir + "/" + name, atomically: false, encoding: .utf8) }
        let store = "postgresql://u@127.0.0.1:1/db?passfile=\(dir)/pass%20file&sslrootcert=\(dir)/ca.crt&sslmode=verify-full&sslkey=\(dir)/key"
        for (file, outcome) in [("pass file", "allowed"), ("ca.crt", "allowed"), ("key", "allowed"), ("other", "Permission denied")] {
            XCTAssertEqual(probe("feed-cache", "--store '\(store)' info", environment: ["TMPDIR": dir + "/t", "FEED_TEST_SANDBOX_PROBE_FILE": dir + "/" + file]).first,
                           "feed-cache: sandbox probe: open \(dir)/\(file): \(outcome)")
        }
    }

    /// libpq 15 finds ~/.pgpass, ~/.pg_service.conf and ~/.postgresql in
    /// the password database's home folder, not HOME (they differ under
    /// sudo and systemd): that folder's are readable too (found in review).
    func test_feedCache_mayReadLibpqsFilesInThePasswordDatabasesHome() throws {
        try skipUnlessTheProbeIsBuiltIn()
        guard getuid() == 0, let entry = getpwuid(0), let folder = entry.pointee.pw_dir else { throw XCTSkip("needs root") }
        let home = String(cString: folder)
        let made = !FileManager.default.fileExists(atPath: home + "/.postgresql")
        try FileManager.default.createDirectory(atPath: home + "/.postgresql", withIntermediateDirectories: true)
        try "x".write(toFile: home + "/.postgresql/feed-probe", atomically: false, encoding: .utf8)
        addTeardownBlock {
            try? FileManager.default.removeItem(atPath: home + "/.postgresql/feed-probe")
            if made { try? FileManager.default.removeItem(atPath: home + "/.postgresql") }
        }
        let dir = temporaryDirectory(self)
        let run = probe("feed-cache", "--store 'postgresql://u@127.0.0.1:1/db' info",
                        environment: ["HOME": dir, "TMPDIR": dir, "FEED_TEST_SANDBOX_PROBE_FILE": home + "/.postgresql/feed-probe"])
        XCTAssertEqual(run.first, "feed-cache: sandbox probe: open \(home)/.postgresql/feed-probe: allowed")
    }

    /// And those its service names (`service=` in the URI, else PGSERVICE),
    /// as libpq finds the service: in PGSERVICEFILE, else the system's.
    func test_feedCache_mayReadTheFilesItsPostgreSQLServiceNames() throws {
        try skipUnlessTheProbeIsBuiltIn()
        let dir = temporaryDirectory(self)
        try FileManager.default.createDirectory(atPath: dir + "/t", withIntermediateDirectories: true)
        for name in ["pass", "other"] { try "x".write(toFile: dir + "/" + name, atomically: false, encoding: .utf8) }
        try "# feeds\n[other]\npassfile=\(dir)/other\n[feeds] the feeds' database\nhost=127.0.0.1\nport=1\n  passfile=\(dir)/pass\n".write(toFile: dir + "/services", atomically: false, encoding: .utf8)
        for (store, environment) in [("postgresql:///?service=feeds", [String: String]()), ("postgresql:///db", ["PGSERVICE": "feeds"])] {
            for (file, outcome) in [("pass", "allowed"), ("other", "Permission denied")] {
                let run = probe("feed-cache", "--store '\(store)' info", environment: environment.merging(["PGSERVICEFILE": dir + "/services", "TMPDIR": dir + "/t", "FEED_TEST_SANDBOX_PROBE_FILE": dir + "/" + file]) { $1 })
                XCTAssertEqual(run.first, "feed-cache: sandbox probe: open \(dir)/\(file): \(outcome)", store)
            }
        }
    }

    /// feed-fetch may make sockets (to connect); feed-serve none, its
    /// listening one made before it is confined (it could send datagrams,
    /// and connect through io_uring; found by the hunt); neither io_uring,
    /// a file outside its rules nor a program.
    func test_feedFetch_mayMakeSockets_feedServeNone_andNeitherReadsAFileOutsideItsRulesNorStartsAProgram() throws {
        try skipUnlessTheProbeIsBuiltIn()
        // feed-serve may not even make the file to chown (it writes nothing).
        for (tool, socket, file) in [("feed-fetch -", "allowed", "Operation not permitted"), ("feed-serve --port 0", "Operation not permitted", "Permission denied")] {
            let name = String(tool.prefix { $0 != " " })
            let run = sh("printf '' | \(tool) > /dev/null & pid=$!; sleep 1; kill $pid 2>/dev/null; wait $pid", environment: ["FEED_TEST_SANDBOX_PROBE": "1"])
            let lines = run.stderr.split(separator: "\n").map(String.init).filter { $0.contains("sandbox probe:") }
            XCTAssertEqual(lines, [
                "\(name): sandbox probe: open /etc/shells: Permission denied",
                "\(name): sandbox probe: open /etc/shells on the signals' thread: Permission denied",
                "\(name): sandbox probe: socket: \(socket)",
                "\(name): sandbox probe: io_uring_setup: Operation not permitted",
                "\(name): sandbox probe: exec /bin/true: Operation not permitted",
                "\(name): sandbox probe: signal another process: Operation not permitted",
                "\(name): sandbox probe: chown a file: \(file)",
                "\(name): sandbox probe: chmod a file 0644: \(file)",
                "\(name): sandbox probe: fchmod a file 04755: \(file)",
                "\(name): sandbox probe: fchown a file: \(file)",
                "\(name): sandbox probe: fcntl F_SETOWN: \(file)",
                "\(name): sandbox probe: ioctl TIOCSTI: \(file)",
            ], tool)
        }
        // The loader's cache, which finds the resolver's modules (NSS) that
        // glibc loads at the first name looked up, after the confinement.
        let cache = sh("feed-fetch - < /dev/null", environment: ["FEED_TEST_SANDBOX_PROBE": "1", "FEED_TEST_SANDBOX_PROBE_FILE": "/etc/ld.so.cache"])
        XCTAssertTrue(cache.stderr.contains("feed-fetch: sandbox probe: open /etc/ld.so.cache: allowed"), cache.stderr)
    }
}
