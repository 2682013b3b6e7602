// A raw TCP server on 127.0.0.1 that plays scripted HTTP, for what
// FeedServer cannot do: heads cut in the middle, chunked bodies, bodies
// without end, connections counted, closed or reset at chosen moments.
//
// This file lives in EssentialFeedInfraTests and is linked as
// ToolTests/RawSocketServer.swift, so it may use only Foundation, XCTest
// and Glibc.

import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The request heads a server's script noted, from any of its threads.
final class Heads: @unchecked Sendable {
    private let lock = NSLock()
    private var heads: [String] = []
    func append(_ head: String) { lock.withLock { heads.append(head) } }
    var all: [String] { lock.withLock { heads } }
}

/// One accepted connection, handed to the server's script on a thread of its own.
final class RawConnection: @unchecked Sendable {
    let fd: Int32
    /// 0 for the first connection the server accepted, then 1, 2, ...
    let index: Int
    /// Bytes received after the last request head read (touched by the script's thread only).
    private var pending: [UInt8] = []
    /// The first bytes the client sent (touched by the script's thread only).
    private(set) var firstBytes: [UInt8] = []

    init(fd: Int32, index: Int) {
        self.fd = fd
        self.index = index
    }

    /// The port the connection was accepted on (the server's).
    var localPort: UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Reads up to the end of the next request head (an empty line) and
    /// returns the head, e.g. `GET /a HTTP/1.1\r\nHost: …\r\n\r\n`; nil
    /// when the client closes (or sends something else) first.
    func readRequest() -> String? {
        var scratch = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            if let end = Self.endOfHead(pending) {
                let head = pending[..<end]
                pending.removeFirst(end)
                return String(decoding: head, as: UTF8.self)
            }
            guard pending.count < 1 << 20 else { return nil }
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            if firstBytes.isEmpty { firstBytes = Array(scratch[..<min(count, 16)]) }
            pending += scratch[..<count]
        }
    }

    /// Reads and drops whatever arrives, answering nothing, until the client
    /// closes or `seconds` pass.
    func hold(_ seconds: Double) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while case let left = deadline.timeIntervalSinceNow, left > 0 {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(left * 1000) + 1) > 0 else { continue }
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno != EINTR) { return }
        }
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// Sends every byte; false when the client is gone.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends a complete response with a `Content-Length`.
    @discardableResult
    func respond(status: Int = 200, _ body: String, headers: String = "") -> Bool {
        send("HTTP/1.1 \(status) X\r\nContent-Length: \(body.utf8.count)\r\n\(headers)\r\n\(body)")
    }

    /// Makes the close that ends the script a TCP reset.
    func resetOnClose() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }
}

/// Accepts connections on 127.0.0.1 (port 0: one the system chooses) and
/// runs `script` for each on a thread of its own; the connection is closed
/// when the script returns. ``stop()`` closes everything and waits for the
/// scripts to end.
final class RawSocketServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let script: @Sendable (RawConnection) -> Void
    /// Guards every variable below.
    private let state = NSCondition()
    private var acceptedCount = 0
    private var openCount = 0
    private var mostOpen = 0
    private var open: Set<Int32> = []
    private var running = 0
    private var stopped = false

    var base: String { "http://127.0.0.1:\(port)" }
    /// How many connections were accepted so far.
    var accepted: Int { locked { acceptedCount } }
    /// The most connections that were open at once.
    var mostOpenAtOnce: Int { locked { mostOpen } }

    init(script: @escaping @Sendable (RawConnection) -> Void) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(listener, pointer, length) == 0 && listen(listener, 64) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        self.script = script
        running = 1
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit {
        stop()
    }

    private func acceptLoop() {
        defer { locked { running -= 1; state.broadcast() } }
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let connection: RawConnection? = locked {
                guard !stopped else { return nil }
                defer { acceptedCount += 1 }
                open.insert(fd)
                mostOpen = max(mostOpen, open.count)
                running += 1
                return RawConnection(fd: fd, index: acceptedCount)
            }
            guard let connection else {
                close(fd)
                return
            }
            Thread.detachNewThread { [self] in
                script(connection)
                locked {
                    open.remove(fd)
                    close(fd)
                    running -= 1
                    state.broadcast()
                }
            }
        }
    }

    /// Stops accepting, shuts every open connection down (ending the
    /// scripts' reads and writes) and waits up to 5 s for the scripts to end.
    func stop() {
        state.lock()
        defer { state.unlock() }
        guard !stopped else { return }
        stopped = true
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        let deadline = Date(timeIntervalSinceNow: 5)
        while running > 0, state.wait(until: deadline) {}
        close(listener)
    }

    private func locked<T>(_ body: () -> T) -> T {
        state.lock()
        defer { state.unlock() }
        return body()
    }

    // MARK: Scripts

    /// Answers every request on every connection with `body` (keep-alive).
    static func keepAlive(_ body: String = "ok") throws -> RawSocketServer {
        try RawSocketServer { connection in
            while connection.readRequest() != nil {
                guard connection.respond(body) else { return }
            }
        }
    }
}

/// A raw HTTP server on 127.0.0.1 that answers its first connection with a
/// head without `Content-Length` and then body bytes without end (until
/// the client leaves, or 1 GiB), 64 KiB a millisecond at most: a fast
/// network rather than a loopback flood that starves the client's threads.
final class EndlessBodyServer: @unchecked Sendable {
    private let server: RawSocketServer
    private let counter: Counter
    private let left: DispatchSemaphore

    private final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var sent = 0
    }

    var port: UInt16 { server.port }

    /// The body bytes sent so far.
    var sent: Int { counter.lock.withLock { counter.sent } }

    init() throws {
        let counter = Counter()
        let left = DispatchSemaphore(value: 0)
        server = try RawSocketServer { connection in
            guard connection.index == 0 else { return }
            defer { left.signal() }
            guard connection.readRequest() != nil else { return }
            connection.send("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n")
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
            while counter.lock.withLock({ counter.sent }) < 1 << 30 {
                guard connection.send(chunk) else { break }
                counter.lock.withLock { counter.sent += chunk.count }
                usleep(1000)
            }
        }
        self.counter = counter
        self.left = left
    }

    /// Waits until the client closed its end (sending failed).
    func waitUntilClientLeft(timeout: Double) -> Bool {
        left.wait(timeout: .now() + timeout) == .success
    }

    func stop() {
        server.stop()
    }
}
