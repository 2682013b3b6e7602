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
@discardableResult
func sh(
    _ script: String,
    stdin: String? = nil,
    environment: [String: String] = [:],
    timeout: TimeInterval = 60,
    file: StaticString = #filePath,
    line: UInt = #line
) -> Run {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script]
    var env = ProcessInfo.processInfo.environment
    env["PATH"] = Products.directory + ":" + (env["PATH"] ?? "/usr/bin:/bin")
    env.removeValue(forKey: "FEED_BASE_URL")
    env.removeValue(forKey: "FEED_STORE")
    env.removeValue(forKey: "FEED_LOG")
    for (k, v) in environment { env[k] = v }
    process.environment = env
    let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
    process.standardOutput = outPipe
    process.standardError = errPipe
    process.standardInput = stdin == nil ? FileHandle.nullDevice : inPipe
    do { try process.run() } catch {
        XCTFail("cannot run /bin/sh: \(error)", file: file, line: line)
        return Run(stdout: Data(), stderr: "", status: -1)
    }
    if let stdin {
        let handle = inPipe.fileHandleForWriting
        DispatchQueue.global().async {
            handle.write(Data(stdin.utf8))
            try? handle.close()
        }
    }
    // Read both pipes concurrently so neither fills up.
    final class Box: @unchecked Sendable { var data = Data() }
    let errBox = Box()
    let errDone = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        errBox.data = errPipe.fileHandleForReading.readDataToEndOfFile()
        errDone.signal()
    }
    let timer = DispatchWorkItem {
        XCTFail("timed out after \(timeout) s: \(script)", file: file, line: line)
        killTree(process.processIdentifier)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
    let outData = outPipe.fileHandleForReading.readDataToEndOfFile()
    errDone.wait()
    let errData = errBox.data
    process.waitUntilExit()
    timer.cancel()
    return Run(stdout: outData, stderr: String(decoding: errData, as: UTF8.self), status: process.terminationStatus)
}

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
