import Foundation
import XCTest

/// A real browser: Debian's headless Chromium, driven over the DevTools
/// protocol on a pipe (`--remote-debugging-pipe`: it reads commands on
/// descriptor 3 and answers on 4, each message JSON ended by a NUL byte),
/// so no port and no WebSocket are needed. A page of its own, opened from a
/// file; scripts the test evaluates run in the inspector's world, which the
/// page's Content-Security-Policy does not govern. scripts/test installs
/// chromium when it is missing and it runs as root; a test without it is
/// skipped, saying so.
final class Browser {
    private let pid: pid_t
    private let commands: Int32
    private let answers: Int32
    private var buffer: [UInt8] = []
    private var nextID = 0
    private var session: String?
    private let profile: String
    /// Events met while waiting for answers, by method.
    private(set) var events: [(method: String, params: [String: Any])] = []

    static var binary: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    init(test: XCTestCase, width: Int = 390, height: Int = 844) throws {
        guard let binary = Self.binary else {
            throw XCTSkip("needs a browser (Debian: chromium; scripts/test installs it as root)")
        }
        profile = temporaryDirectory(test)
        var toBrowser: [Int32] = [0, 0], fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw Failure("cannot make pipes") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, profile + "/browser.log", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        let arguments = [
            binary, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--hide-scrollbars", "--mute-audio", "--user-data-dir=" + profile + "/profile", "--window-size=\(width),\(height)",
            "about:blank",
        ]
        let argv = arguments.map { strdup($0) } + [nil]
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = profile
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, binary, &actions, nil, argv, envp)
        Glibc.close(toBrowser[0])
        Glibc.close(fromBrowser[1])
        guard code == 0 else {
            Glibc.close(toBrowser[1])
            Glibc.close(fromBrowser[0])
            throw Failure("cannot run \(binary): \(String(cString: strerror(code)))")
        }
        self.pid = pid
        commands = toBrowser[1]
        answers = fromBrowser[0]
        _ = fcntl(commands, F_SETFD, FD_CLOEXEC)
        _ = fcntl(answers, F_SETFD, FD_CLOEXEC)
        signal(SIGPIPE, SIG_IGN)
        test.addTeardownBlock { [self] in close() }

        let target = try call("Target.createTarget", ["url": "about:blank"], inSession: false)
        guard let targetID = target["targetId"] as? String else { throw Failure("no target: \(target)") }
        let attached = try call("Target.attachToTarget", ["targetId": targetID, "flatten": true], inSession: false)
        session = attached["sessionId"] as? String
        try call("Page.enable")
        try call("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private var closed = false

    func close() {
        guard !closed else { return }
        closed = true
        _ = try? call("Browser.close", inSession: false, timeout: 5)
        Glibc.close(commands)
        Glibc.close(answers)
        let deadline = Date().addingTimeInterval(5)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            usleep(20_000)
        }
    }

    /// The browser's own messages (for a failing test).
    var log: String { (try? String(contentsOfFile: profile + "/browser.log", encoding: .utf8)) ?? "" }

    /// Sends a command and waits for its answer's result.
    @discardableResult
    func call(_ method: String, _ params: [String: Any] = [:], inSession: Bool = true, timeout: TimeInterval = 30) throws -> [String: Any] {
        nextID += 1
        let id = nextID
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if inSession, let session { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw Failure("the browser is gone (\(method)): \(log.suffix(2000))") }
            sent += n
        }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let answer = try nextMessage(until: deadline, waitingFor: method)
            if answer["id"] as? Int == id {
                if let error = answer["error"] as? [String: Any] { throw Failure("\(method): \(error)") }
                return answer["result"] as? [String: Any] ?? [:]
            }
            if let event = answer["method"] as? String { events.append((event, answer["params"] as? [String: Any] ?? [:])) }
        }
    }

    /// Waits for an event (met already or to come).
    func wait(for method: String, timeout: TimeInterval = 30) throws {
        if let index = events.firstIndex(where: { $0.method == method }) {
            events.remove(at: index)
            return
        }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let message = try nextMessage(until: deadline, waitingFor: method)
            if message["method"] as? String == method { return }
            if let event = message["method"] as? String { events.append((event, message["params"] as? [String: Any] ?? [:])) }
        }
    }

    private func nextMessage(until deadline: Date, waitingFor what: String) throws -> [String: Any] {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let message = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                guard let object = try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any] else { throw Failure("not a message") }
                return object
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw Failure("no answer to \(what) in time: \(log.suffix(2000))") }
            var poller = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left, 1) * 1000))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(answers, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw Failure("the browser closed its pipe (\(what)): \(log.suffix(2000))") }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// Opens `url` in the page and waits until it has loaded.
    func open(_ url: String) throws {
        events.removeAll { $0.method == "Page.loadEventFired" }
        try call("Page.navigate", ["url": url])
        try wait(for: "Page.loadEventFired")
    }

    /// Light or dark, as the reader's system would say.
    func prefer(colorScheme: String) throws {
        try call("Emulation.setEmulatedMedia", ["features": [["name": "prefers-color-scheme", "value": colorScheme]]])
    }

    /// The value of a JavaScript expression, evaluated in the page (awaited
    /// when it is a promise).
    func evaluate(_ expression: String) throws -> Any? {
        let result = try call("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] { throw Failure("\(expression): \(exception)") }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// A PNG of what the page shows (the viewport).
    func screenshot() throws -> Data {
        let result = try call("Page.captureScreenshot", ["format": "png"])
        guard let text = result["data"] as? String, let data = Data(base64Encoded: text) else { throw Failure("no screenshot") }
        return data
    }
}
