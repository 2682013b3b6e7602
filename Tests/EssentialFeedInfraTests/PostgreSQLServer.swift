import Foundation
import XCTest

/// A throwaway PostgreSQL server for the tests: Debian's `initdb` and
/// `pg_ctl` (under /usr/lib/postgresql/N/bin, the newest N) make and start
/// a cluster in a temporary directory, listening on a Unix socket there
/// only, with fsync off; `stop()` ends it and removes the directory. As
/// root, the server runs as the unprivileged `postgres` user (PostgreSQL
/// refuses to run as root), through `runuser`. Where PostgreSQL is not
/// installed, `start()` throws an `XCTSkip` that says so.
final class PostgreSQLServer {
    let directory: String
    let bin: String
    /// The database role the tests connect as (a superuser of the cluster).
    let user = "feed"
    private let owner: (name: String, uid: uid_t, gid: gid_t)?

    /// A connection URI for `database` (libpq's form: the socket's directory as the host).
    func uri(database: String = "postgres") -> String {
        "postgresql:///\(database)?host=\(directory)&user=\(user)"
    }

    static var installed: String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted()
        return versions.reversed().map { "\(root)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }

    static func start() throws -> PostgreSQLServer {
        guard let bin = installed else {
            throw XCTSkip("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; Debian: postgresql-15): the PostgreSQL store's tests are skipped")
        }
        let server = try PostgreSQLServer(bin: bin)
        try server.run(["initdb", "-D", server.directory + "/data", "-U", server.user, "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"])
        try server.run(["pg_ctl", "-D", server.directory + "/data", "-l", server.directory + "/log", "-w", "-t", "60", "-o",
                        "-k \(server.directory) -c listen_addresses='' -c fsync=off -c full_page_writes=off -c synchronous_commit=off", "start"])
        return server
    }

    private init(bin: String) throws {
        self.bin = bin
        let directory = NSTemporaryDirectory() + "pg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        if getuid() == 0 {
            guard let entry = getpwnam("postgres") else {
                throw XCTSkip("running as root without a postgres user to run PostgreSQL as: the PostgreSQL store's tests are skipped")
            }
            owner = ("postgres", entry.pointee.pw_uid, entry.pointee.pw_gid)
            chown(directory, entry.pointee.pw_uid, entry.pointee.pw_gid)
        } else {
            owner = nil
        }
    }

    func stop() {
        _ = try? run(["pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `sql` with psql as the test user; its standard output.
    @discardableResult
    func psql(_ sql: String, database: String = "postgres") throws -> String {
        try run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", directory, "-U", user, "-d", database, "-c", sql], asOwner: false)
    }

    /// Runs one of the server's programs (as the cluster's owner when root);
    /// its output, or a failure with its messages. Through `posix_spawn` and
    /// `waitpid`, its output in files: the server pg_ctl starts keeps the
    /// descriptors it was given, so a pipe would never end.
    @discardableResult
    private func run(_ arguments: [String], asOwner: Bool = true) throws -> String {
        var command = [bin + "/" + arguments[0]] + arguments.dropFirst()
        if asOwner, let owner { command = ["/usr/sbin/runuser", "-u", owner.name, "--"] + command }
        let outPath = directory + "/.out-\(UUID().uuidString)", errPath = outPath + ".err"
        defer {
            unlink(outPath)
            unlink(errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C.UTF-8"
        environment["PGTZ"] = "UTC"
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, command[0], &actions, nil, argv, envp)
        guard code == 0 else { throw NSError(domain: "PostgreSQLServer", code: Int(code), userInfo: [NSLocalizedDescriptionKey: "cannot run \(command[0])"]) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        let exited = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        guard exited == 0 else {
            let log = (try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? ""
            throw NSError(domain: "PostgreSQLServer", code: Int(exited), userInfo: [
                NSLocalizedDescriptionKey: "\(arguments[0]) failed (\(exited)): \(err) \(log.suffix(2000))",
            ])
        }
        return out
    }
}
