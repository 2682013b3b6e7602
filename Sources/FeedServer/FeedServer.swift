// Just over 400 lines, one type: the server's listener, connections and
// their lifecycle share one lock and one set of state; the parsing and
// writing of messages live beside it (HTTPRequestHead, HTTPResponse).
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server of the feed API (CONTRACT §4) on 127.0.0.1, for
/// demos, tests and offline development; the engine of `feed-serve`.
///
///     let server = FeedServer(fixtures: .acceptance)
///     let base = try server.start()          // "http://127.0.0.1:PORT"
///     defer { server.stop() }
///
/// Routes, below `BASE` or below a fault prefix `BASE/_fault/SPEC`
/// (see ``FeedServerFaults``):
///
/// - `GET /v1/feed?limit=N[&after_id=UUID]` → 200 `{"items":[...]}`, keyset
///   pagination in fixture order: at most N items (default 10, at most
///   1000) after the item whose id is `after_id` (compared as UUIDs). An
///   `after_id` not in the feed gives an empty page; a `limit` that is not a
///   positive integer or an `after_id` that is not a UUID gives 400.
/// - `GET /v1/image/UUID/comments` → 200 `{"items":[...]}` (no comments: no
///   items); a non-UUID gives 400.
/// - `GET /NAME` → 200 with the bytes of fixture image NAME; else 404.
///
/// `HEAD` is served wherever `GET` is; other methods get 405. Errors have a
/// JSON body `{"error":"not_found","message":"..."}`. Every response has a
/// `Content-Length`; connections persist per HTTP/1.1 (`Connection: close`
/// honoured) and pipelined requests are answered in order. A malformed head
/// gets 400 (an HTTP/1.1 one without a Host field, and any with two, among
/// them), a head over 16 KiB 431 (with the empty lines before it; 414 when
/// its request line reaches past that), a request body over 1 MiB 413, a
/// chunked request body 501; each then closes. A connection closes when no request has arrived
/// whole within `timeout` (30 s) of its start or of its last response.
///
/// Each connection is served on its own thread, at most 256 at a time
/// (further clients wait in the listen backlog). ``stop()`` wakes and closes
/// everything, including delayed, dripping and hanging responses, and returns
/// once every thread is done.
public final class FeedServer: @unchecked Sendable {
    /// Why the server cannot start.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case alreadyStarted
        /// The socket cannot be bound or listened on, e.g. the port is in use.
        case cannotListen(port: UInt16, reason: String)

        public var description: String {
            switch self {
            case .alreadyStarted: "the server is already started"
            case let .cannotListen(port, reason): "cannot listen on 127.0.0.1:\(port): \(reason)"
            }
        }
    }

    /// A request as received, before any fault is applied.
    public struct ReceivedRequest: Sendable, Equatable {
        public var method: String
        /// The request target, e.g. `/v1/feed?limit=2`.
        public var target: String
    }

    static let maximumConnections = 256
    static let headLimit = 16 * 1024
    static let bodyLimit = 1 << 20
    /// How long a request may take to arrive whole (its head and body),
    /// from the connection's start or the last response; also how long a
    /// send may wait for the client to read.
    private let timeout: Double

    private let log: (@Sendable (String) -> Void)?
    /// Guards every variable below and signals their changes.
    private let state = NSCondition()
    private var currentFixtures: FeedServerFixtures
    private var currentFaults: FeedServerFaults
    /// Whether the requests are kept (`receivedRequests`, for tests).
    private let recordsRequests: Bool
    private let etags: Bool
    private var received: [ReceivedRequest] = []
    private var listener: Int32 = -1
    private var wakePipe: [Int32] = [-1, -1]
    private var boundPort: UInt16 = 0
    private var running = false
    private var stopping = false
    private var acceptorRunning = false
    private var connections: Set<Int32> = []

    /// - Parameters:
    ///   - fixtures: what to serve.
    ///   - faults: faults applied to every request (default: none).
    ///   - log: called with one line per request (`GET /v1/feed 200 123 bytes 1 ms`), from any thread.
    ///   - recordsRequests: whether every request's method and target is
    ///     kept, for `receivedRequests` (tests); feed-serve keeps none (each
    ///     request's were kept for good: 6,000 requests of 16 KiB targets took
    ///     94 MiB, found by the hunt).
    ///   - etags: whether each 200 carries an ETag, and a request whose
    ///     If-None-Match names it gets 304 (`FeedServerRouter.validated`).
    ///   - timeout: how long a request may take to arrive whole, its head
    ///     and body, from the connection's start or the last response
    ///     (seconds; an idle connection is closed then too). With a bound
    ///     on each read only, a client that sent a byte of its head every
    ///     10 s held its connection for good, and 256 such held every place.
    public init(fixtures: FeedServerFixtures, faults: FeedServerFaults = .init(), log: (@Sendable (String) -> Void)? = nil,
                recordsRequests: Bool = false, etags: Bool = false, timeout: Double = 30) {
        self.currentFixtures = fixtures
        self.currentFaults = faults
        self.log = log
        precondition(timeout > 0 && timeout <= 86_400, "timeout out of range")
        self.recordsRequests = recordsRequests
        self.etags = etags
        self.timeout = timeout
    }

    /// The fixtures served; may be replaced while running (new requests see the new set).
    public var fixtures: FeedServerFixtures {
        get { locked { currentFixtures } }
        set { locked { currentFixtures = newValue } }
    }

    /// The global faults; may be replaced while running.
    public var faults: FeedServerFaults {
        get { locked { currentFaults } }
        set { locked { currentFaults = newValue } }
    }

    /// The port listened on, 0 when not started.
    public var port: UInt16 { locked { running ? boundPort : 0 } }

    /// `http://127.0.0.1:PORT` while running, else nil.
    public var baseURL: String? { locked { running ? "http://127.0.0.1:\(boundPort)" : nil } }

    /// How many client connections are open now.
    public var openConnections: Int { locked { connections.count } }

    /// Every request received so far, in order of arrival, when they are
    /// recorded (`recordsRequests`); else none.
    public var receivedRequests: [ReceivedRequest] { locked { received } }

    /// Binds 127.0.0.1 on `port` (0: one the system chooses), starts serving
    /// and returns the base URL `http://127.0.0.1:PORT` (no trailing slash).
    /// `beforeServing` runs once the socket listens, before any thread
    /// serves (feed-serve confines itself there: it makes no socket after).
    @discardableResult
    public func start(port: UInt16 = 0, beforeServing: () -> Void = {}) throws(Error) -> String {
        state.lock()
        defer { state.unlock() }
        guard !running else { throw .alreadyStarted }

        func failure(_ code: Int32) -> Error { .cannotListen(port: port, reason: String(cString: strerror(code))) }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure(errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && listen(fd, 128) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        var pipeFDs: [Int32] = [-1, -1]
        guard ready, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0, pipe(&pipeFDs) == 0 else {
            let code = errno
            close(fd)
            throw failure(code)
        }

        for end in pipeFDs { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let wake = pipeFDs[0]
        listener = fd
        wakePipe = pipeFDs
        boundPort = UInt16(bigEndian: address.sin_port)
        running = true
        stopping = false
        acceptorRunning = true
        received = []
        beforeServing()
        Thread { [self] in acceptLoop(listener: fd, wake: wake) }.start()
        return "http://127.0.0.1:\(boundPort)"
    }

    /// Stops listening, closes every open connection (ending delays, drips
    /// and hangs at once) and returns when all its threads are done. Does
    /// nothing when not running; the server may be started again.
    public func stop() {
        state.lock()
        defer { state.unlock() }
        while stopping { state.wait() }
        guard running else { return }
        stopping = true
        for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        var byte: UInt8 = 1
        _ = write(wakePipe[1], &byte, 1)
        state.broadcast()
        while acceptorRunning || !connections.isEmpty { state.wait() }
        close(listener)
        close(wakePipe[0])
        close(wakePipe[1])
        listener = -1
        wakePipe = [-1, -1]
        running = false
        stopping = false
        state.broadcast()
    }

    // MARK: - Accepting

    private func acceptLoop(listener: Int32, wake: Int32) {
        defer { locked { acceptorRunning = false; state.broadcast() } }
        while true {
            let stop: Bool = locked {
                while !stopping && connections.count >= Self.maximumConnections { state.wait() }
                return stopping
            }
            if stop { return }

            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, -1) > 0 else { continue }
            if fds[1].revents != 0 { return }
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(errno) { usleep(10_000) }
                continue
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            // Accepted sockets do not inherit O_NONBLOCK on Linux, but be sure.
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) & ~O_NONBLOCK)
            let accepted: Bool = locked {
                guard !stopping else { return false }
                connections.insert(client)
                return true
            }
            guard accepted else { close(client); return }
            Thread { [self] in serve(client) }.start()
        }
    }

    // MARK: - Serving one connection

    private func serve(_ fd: Int32) {
        var graceful = true
        defer { finish(fd, graceful: graceful) }
        configure(fd)
        var buffer: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var deadline = Self.now() + UInt64(timeout * 1e9)

        while true {
            switch HTTPRequestHead.parse(buffer, limit: Self.headLimit) {
            case .incomplete:
                guard receive(fd, into: &buffer, scratch: &scratch, by: deadline) else { return }
            case let .failure(status, message):
                reject(fd, status, message, request: "- -")
                return
            case let .complete(head, consumed):
                buffer.removeFirst(consumed)
                let request = "\(head.method) \(head.target)"
                if head.field("Transfer-Encoding") != nil {
                    return reject(fd, 501, "chunked request bodies are not accepted", request: request)
                }
                guard let length = head.contentLength else {
                    return reject(fd, 400, "malformed Content-Length", request: request)
                }
                guard length <= Self.bodyLimit else {
                    return reject(fd, 413, "request body larger than \(Self.bodyLimit) bytes", request: request)
                }
                var left = length
                while left > 0 {
                    if buffer.isEmpty, !receive(fd, into: &buffer, scratch: &scratch, by: deadline) { return }
                    let count = min(left, buffer.count)
                    buffer.removeFirst(count)
                    left -= count
                }
                switch respond(to: head, on: fd) {
                case .keepOpen:
                    deadline = Self.now() + UInt64(timeout * 1e9)
                    continue
                case .close: return
                case .reset:
                    graceful = false
                    return
                }
            }
        }
    }

    private enum Outcome { case keepOpen, close, reset }

    private func respond(to head: HTTPRequestHead, on fd: Int32) -> Outcome {
        let started = DispatchTime.now()
        let router: FeedServerRouter = locked {
            if recordsRequests { received.append(ReceivedRequest(method: head.method, target: head.target)) }
            return FeedServerRouter(fixtures: currentFixtures, faults: currentFaults, base: "http://127.0.0.1:\(boundPort)", etags: etags)
        }
        let reply = router.reply(to: head)
        let response = reply.response
        let faults = reply.faults
        let request = "\(head.method) \(head.target)"
        func note(_ outcome: String) {
            let milliseconds = (DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000
            let fault = faults.isEmpty ? "" : " [\(faults.spec)]"
            log?("\(request) \(outcome) \(milliseconds) ms\(fault)")
        }

        if faults.reset {
            var option = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
            note("reset")
            return .reset
        }
        if let delay = faults.delay, !pause(milliseconds: delay) { return .close }
        if faults.hang {
            _ = sendAll(fd, response.partialHead())
            note("\(response.status) hang")
            hang(fd)
            return .close
        }

        let bodyCount = head.method == "HEAD" || response.hasNoBody ? 0 : response.body.count
        let sending = min(faults.truncate ?? bodyCount, bodyCount)
        let keepAlive = head.wantsKeepAlive && sending == bodyCount
        let connection: HTTPResponse.Connection = !head.wantsKeepAlive ? .close : head.minorVersion == 0 ? .keepAlive : .persistent
        var pending = response.head(connection: connection)
        var sent = 0
        var ok = true
        if let drip = faults.drip {
            ok = sendAll(fd, pending)
            pending = []
            ok = ok && response.body.forEachChunk(limit: sending, chunk: 1) { byte in
                guard pause(milliseconds: drip), sendAll(fd, byte) else { return false }
                sent += 1
                return true
            }
        } else {
            ok = response.body.forEachChunk(limit: sending, chunk: 64 * 1024) { chunk in
                pending += chunk
                sent += chunk.count
                guard pending.count >= 64 * 1024 else { return true }
                defer { pending = [] }
                return sendAll(fd, pending)
            }
            ok = ok && sendAll(fd, pending)
        }
        let truncated = sending < bodyCount ? " of \(bodyCount)" : ""
        note(ok ? "\(response.status) \(sent)\(truncated) bytes" : "\(response.status) failed after \(sent) bytes")
        return ok && keepAlive ? .keepOpen : .close
    }

    /// Answers a request that cannot be served and closes.
    private func reject(_ fd: Int32, _ status: Int, _ message: String, request: String) {
        let response = HTTPResponse.error(status, message)
        _ = sendAll(fd, response.head(connection: .close) + response.body.bytes)
        log?("\(request) \(status) \(message)")
    }

    // MARK: - Socket helpers

    private func configure(_ fd: Int32) {
        var yes: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        var wait = Self.socketTimeout(nanoseconds: UInt64(timeout * 1e9))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// `nanoseconds` as a socket's timeout: at least a microsecond (0 is none).
    private static func socketTimeout(nanoseconds: UInt64) -> timeval {
        timeval(tv_sec: Int(nanoseconds / 1_000_000_000), tv_usec: max(1, Int(nanoseconds % 1_000_000_000 / 1000)))
    }

    /// Appends what arrives to `buffer`; false on end of stream, error, or
    /// `deadline` (`DispatchTime` nanoseconds) met first.
    private func receive(_ fd: Int32, into buffer: inout [UInt8], scratch: inout [UInt8], by deadline: UInt64) -> Bool {
        while true {
            let now = Self.now()
            guard now < deadline else { return false }
            var wait = Self.socketTimeout(nanoseconds: deadline - now)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += scratch[..<count]
                return true
            }
            if count < 0, errno == EINTR { continue }
            return false
        }
    }

    /// Sends every byte; false when the peer is gone. Never raises SIGPIPE.
    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                offset += count
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Waits; false (at once) when the server is stopping.
    private func pause(milliseconds: Int) -> Bool {
        let deadline = Date(timeIntervalSinceNow: Double(milliseconds) / 1000)
        return locked {
            while !stopping, Date() < deadline { _ = state.wait(until: deadline) }
            return !stopping
        }
    }

    /// Reads and drops whatever the client sends until it closes or the server stops.
    private func hang(_ fd: Int32) {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while !locked({ stopping }) {
            var pending = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pending, 1, 250) > 0 else { continue }
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) { return }
        }
    }

    /// Closes a connection: gracefully (half-close, then drain what the
    /// client still sends for up to a second so it reads the whole
    /// response) or, after a reset fault, at once with a TCP reset.
    private func finish(_ fd: Int32, graceful: Bool) {
        if graceful, shutdown(fd, Int32(SHUT_WR)) == 0 {
            let deadline = DispatchTime.now().uptimeNanoseconds + 1_000_000_000
            var scratch = [UInt8](repeating: 0, count: 4096)
            var drained = 0
            while drained < 1 << 20 {
                let now = DispatchTime.now().uptimeNanoseconds
                guard now < deadline else { break }
                var pending = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pending, 1, Int32((deadline - now) / 1_000_000) + 1) > 0 else { break }
                let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count <= 0 { break }
                drained += count
            }
        }
        locked {
            connections.remove(fd)
            close(fd)
            state.broadcast()
        }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        state.lock()
        defer { state.unlock() }
        return try body()
    }
}
