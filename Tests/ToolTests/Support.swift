import Foundation
import XCTest

/// The built executables, found next to the test bundle (or in `$FEED_BIN`).
enum Products {
    static let directory: String = {
        if let dir = ProcessInfo.processInfo.environment["FEED_BIN"], !dir.isEmpty { return dir }
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = me.deletingLastPathComponent()
        // On some platforms the test binary sits inside a bundle folder.
        for _ in 0..<4 where !FileManager.default.fileExists(atPath: dir.appendingPathComponent("feed-map").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.path
    }()

    static func path(_ tool: String) -> String { directory + "/" + tool }
}

/// What a command printed and how it ended.
struct Run {
    let stdout: Data
    let stderr: String
    let status: Int32

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var lines: [String] { out.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }

    /// Standard output parsed as one JSON object per line.
    func records(file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
        lines.compactMap { text in
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                XCTFail("not a JSON object line: \(text)", file: file, line: line)
                return nil
            }
            return object
        }
    }
}

/// Runs `script` with `/bin/sh -c`, the built tools first on PATH.
///
/// Spawned here rather than through Foundation's `Process`, whose
/// `waitUntilExit` also waits for every process the script left running
/// (one of its sockets leaks into them): a test that left a `sleep 5`
/// behind a killed tool waited those 5 s.
@discardableResult
func sh(
    _ script: String,
    stdin: String? = nil,
    environment: [String: String] = [:],
    timeout: TimeInterval = 60,
    file: StaticString = #filePath,
    line: UInt = #line
) -> Run {
    var env = ProcessInfo.processInfo.environment
    env["PATH"] = Products.directory + ":" + (env["PATH"] ?? "/usr/bin:/bin")
    env.removeValue(forKey: "FEED_BASE_URL")
    env.removeValue(forKey: "FEED_STORE")
    env.removeValue(forKey: "FEED_LOG")
    env.removeValue(forKey: "LANGUAGE")  // a desktop's list would choose the language of every test
    for (k, v) in environment { env[k] = v }
    func pipePair() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0, "pipe: \(errno)")
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }
    let out = pipePair(), err = pipePair()
    let input = stdin == nil ? (read: open("/dev/null", O_RDONLY | O_CLOEXEC), write: Int32(-1)) : pipePair()
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, input.read, 0)
    posix_spawn_file_actions_adddup2(&actions, out.write, 1)
    posix_spawn_file_actions_adddup2(&actions, err.write, 2)
    // And none of this process's others (the tests' servers, XCTest's own),
    // as Foundation's `Process` does (glibc's closefrom action is not in Swift's Glibc).
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
        if let fd = Int32(entry), fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
    }
    // Signals as a shell started from a terminal finds them: default, unblocked.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    var all = sigset_t(), none = sigset_t()
    sigfillset(&all)
    sigemptyset(&none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    let words: [String] = ["/bin/sh", "-c", script]
    let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    let variables: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for pointer in arguments + variables { free(pointer) }
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
    }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, arguments, variables)
    close(input.read)
    close(out.write)
    close(err.write)
    guard spawned == 0 else {
        for fd in [input.write, out.read, err.read] where fd >= 0 { close(fd) }
        XCTFail("cannot run /bin/sh: \(String(cString: strerror(spawned)))", file: file, line: line)
        return Run(stdout: Data(), stderr: "", status: -1)
    }
    if let stdin {
        // A command may end without reading its input (a tool that refuses
        // its store first): the write then fails, and SIGPIPE, by default,
        // ended the test process with no word (one run of the tool tests,
        // on a busy machine, where the write came after the tool had ended).
        // The commands are spawned with every signal at its default.
        signal(SIGPIPE, SIG_IGN)
        let fd = input.write
        DispatchQueue.global().async {
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            try? handle.write(contentsOf: Data(stdin.utf8))
            try? handle.close()
        }
    }
    // Read both pipes concurrently so neither fills up.
    final class Box: @unchecked Sendable { var data = Data() }
    let errBox = Box()
    let errDone = DispatchSemaphore(value: 0)
    let errFD = err.read
    DispatchQueue.global().async {
        errBox.data = FileHandle(fileDescriptor: errFD, closeOnDealloc: true).readDataToEndOfFile()
        errDone.signal()
    }
    let shell = pid
    let timer = DispatchWorkItem {
        XCTFail("timed out after \(timeout) s: \(script)", file: file, line: line)
        killTree(shell)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
    let outData = FileHandle(fileDescriptor: out.read, closeOnDealloc: true).readDataToEndOfFile()
    errDone.wait()
    let errData = errBox.data
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    timer.cancel()
    // As Foundation's `terminationStatus` says it: the exit status, or the signal's number.
    let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
    return Run(stdout: outData, stderr: String(decoding: errData, as: UTF8.self), status: code)
}

/// A shell prologue that makes `$f` a FIFO, for input written slowly by a
/// job of its own (`{ …; sleep 5; } > "$f" 2> /dev/null & tool < "$f" &`):
/// `wait` for the tool then waits for the tool alone (in a pipeline it waits
/// for the whole pipeline), and the writer's `sleep`, left behind, holds
/// none of the test's pipes.
let slowInput = #"f=$(mktemp -u); mkfifo "$f"; trap 'rm -f "$f"' EXIT;"#

/// Kills a process and every process below it (read from /proc), so that a
/// hung pipeline cannot keep a test waiting on its pipes.
func killTree(_ root: Int32) {
    var parents: [Int32: Int32] = [:]
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        guard let pid = Int32(entry),
              let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.count > 1, let parent = Int32(fields[1]) { parents[pid] = parent }
    }
    var doomed: Set<Int32> = [root]
    var grew = true
    while grew {
        grew = false
        for (pid, parent) in parents where doomed.contains(parent) && !doomed.contains(pid) {
            doomed.insert(pid)
            grew = true
        }
    }
    for pid in doomed { kill(pid, SIGKILL) }
}

/// Quotes a string for /bin/sh.
func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

/// A fresh temporary directory, removed at the end of the test.
func temporaryDirectory(_ test: XCTestCase) -> String {
    let path = NSTemporaryDirectory() + "essential-feed-tests-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
}

/// A folder `tmp` in `directory` that is a real tmpfs of 64 KiB, unmounted
/// at the end of the test (a full temporary folder); skips the test
/// where no tmpfs can be mounted (not root).
func tinyTemporaryFolder(in directory: String, _ test: XCTestCase) throws -> String {
    let folder = directory + "/tmp"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    guard sh(#"mount -t tmpfs -o size=64k tmpfs "$T" 2> /dev/null"#, environment: ["T": folder]).status == 0 else {
        throw XCTSkip("needs to mount a tmpfs (root)")
    }
    test.addTeardownBlock { _ = sh(#"umount "$T""#, environment: ["T": folder]) }
    return folder
}

/// A `feed-serve` process on 127.0.0.1, stopped at the end of the test.
final class Served: @unchecked Sendable {
    let process = Process()
    let base: String

    init(_ arguments: [String] = ["--builtin", "acceptance"], test: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws {
        process.executableURL = URL(fileURLWithPath: Products.path("feed-serve"))
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line of output is the base URL.
        var bytes: [UInt8] = []
        let handle = out.fileHandleForReading
        while true {
            let chunk = handle.readData(ofLength: 1)
            if chunk.isEmpty || chunk.first == 0x0A { break }
            bytes.append(contentsOf: chunk)
        }
        base = String(decoding: bytes, as: UTF8.self)
        test.addTeardownBlock { [self] in stop() }
        XCTAssertTrue(base.hasPrefix("http://127.0.0.1:"), "feed-serve printed '\(base)'", file: file, line: line)
    }

    /// Stops the server: SIGTERM, then SIGKILL if it is still there after 5 s.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// A Python script serving on 127.0.0.1 (CPython's http.server, a server
/// nobody here wrote), stopped at the end of the test. The script prints
/// its port as its first line.
final class PythonServer: @unchecked Sendable {
    let process = Process()
    let port: Int

    init(_ script: String, test: XCTestCase) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-c", script]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let process = self.process
        test.addTeardownBlock { process.terminate(); process.waitUntilExit() }
        var line: [UInt8] = []
        while let byte = try out.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A { line.append(byte) }
        port = try XCTUnwrap(Int(String(decoding: line, as: UTF8.self)), "the server printed no port")
    }

    /// http.server's own file server, on the current directory.
    static let files = "import http.server as h; s = h.ThreadingHTTPServer((\"127.0.0.1\", 0), h.SimpleHTTPRequestHandler); print(s.server_address[1]); s.serve_forever()"
}
