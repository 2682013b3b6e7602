import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The moment a request must be answered by, and the failure when it is not.
struct Deadline: Sendable {
    /// On the monotonic clock (`DispatchTime`'s uptime), in nanoseconds.
    let uptimeNanoseconds: UInt64
    let timeout: Double

    init(timeout: Double, from start: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        self.timeout = timeout
        let nanoseconds = timeout * 1e9
        // Past about 146 years the bound is as good as none.
        uptimeNanoseconds = nanoseconds >= Double(UInt64.max / 2) ? UInt64.max / 2 : start + UInt64(max(0, nanoseconds))
    }

    /// Seconds as messages show them: `30`, `0.5`.
    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    var failure: HTTPFailure {
        HTTPFailure(.timedOut, "timed out after \(Deadline.format(timeout)) s")
    }

    /// The milliseconds left for `poll`, at least 1; throws once none are left.
    func remainingMilliseconds() throws(HTTPFailure) -> Int32 {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now < uptimeNanoseconds else { throw failure }
        let milliseconds = (uptimeNanoseconds - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, UInt64(Int32.max)))
    }

    var dispatchTime: DispatchTime { DispatchTime(uptimeNanoseconds: uptimeNanoseconds) }
}

/// Non-blocking socket calls that wait with `poll` until a deadline.
enum SocketIO {
    static let lost = HTTPFailure(.connectionLost, "connection lost")

    /// Waits until `fd` is ready for `events`, or throws at the deadline.
    static func wait(_ fd: Int32, for events: Int32, until deadline: Deadline) throws(HTTPFailure) {
        while true {
            var entry = pollfd(fd: fd, events: Int16(events), revents: 0)
            let ready = poll(&entry, 1, try deadline.remainingMilliseconds())
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw HTTPFailure(.other, "poll: \(String(cString: strerror(errno)))") }
        }
    }

    /// Sends every byte. A connection closed or reset is `connectionLost`.
    static func send(_ fd: Int32, _ bytes: [UInt8], until deadline: Deadline) throws(HTTPFailure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                offset += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(fd, for: Int32(POLLOUT), until: deadline)
            default: throw lost
            }
        }
    }

    /// Reads at most `count` bytes into `buffer`; 0 at the end of the stream.
    /// A reset is `connectionLost`.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, until deadline: Deadline) throws(HTTPFailure) -> Int {
        while true {
            let received = recv(fd, buffer, count, 0)
            if received >= 0 { return received }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(fd, for: Int32(POLLIN), until: deadline)
            default: throw lost
            }
        }
    }

    /// Resolves `url`'s host (getaddrinfo) and connects to its first address
    /// that accepts; `attach` is given each socket before it connects (so
    /// that a cancellation can shut it down) and returns false when the
    /// request is already decided.
    static func connect(to url: SocketHTTPURL, until deadline: Deadline, attach: (Int32) -> Bool, detach: (Int32) -> Void) throws(HTTPFailure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = url.hostIsNumeric ? AI_NUMERICHOST | AI_NUMERICSERV : AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(url.host, String(url.port), &hints, &list)
        guard status == 0, let list else {
            if status == EAI_MEMORY || status == EAI_SYSTEM {
                throw HTTPFailure(.other, "cannot resolve host: \(String(cString: gai_strerror(status)))")
            }
            throw HTTPFailure(.cannotResolveHost, "cannot resolve host")
        }
        defer { freeaddrinfo(list) }
        var failure = HTTPFailure(.cannotResolveHost, "cannot resolve host")
        var next: UnsafeMutablePointer<addrinfo>? = list
        while let info = next {
            next = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                failure = HTTPFailure(.other, "socket: \(String(cString: strerror(errno)))")
                continue
            }
            guard attach(fd) else {
                close(fd)
                throw HTTPFailure(.cancelled, "cancelled")
            }
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            do throws(HTTPFailure) {
                try connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen, until: deadline)
                return fd
            } catch {
                detach(fd)
                close(fd)
                // Out of time: no other address is tried.
                if error.reason == .timedOut { throw error }
                failure = error
            }
        }
        throw failure
    }

    private static func connect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: socklen_t, until deadline: Deadline) throws(HTTPFailure) {
        var result = Glibc.connect(fd, address, length)
        while result != 0, errno == EINTR { result = Glibc.connect(fd, address, length) }
        var code: Int32 = 0
        if result != 0 {
            guard errno == EINPROGRESS || errno == EALREADY else { throw connectFailure(errno) }
            try wait(fd, for: Int32(POLLOUT), until: deadline)
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { throw connectFailure(errno) }
        }
        if code != 0 { throw connectFailure(code) }
    }

    private static func connectFailure(_ code: Int32) -> HTTPFailure {
        switch code {
        case ECONNREFUSED: HTTPFailure(.refused, "connection refused")
        case ECONNRESET, EPIPE, ECONNABORTED, ESHUTDOWN: lost
        default: HTTPFailure(.other, "cannot connect: \(String(cString: strerror(code)))")
        }
    }
}

/// Idle keep-alive connections, per host and port, and a bound on the
/// connections open to each (idle and in use), like URLSession's
/// `httpMaximumConnectionsPerHost`: a request that finds none idle and
/// the bound reached waits for one to come back or close.
///
/// `@unchecked Sendable`: every stored variable is read and written only
/// with `condition` locked.
final class ConnectionPool: @unchecked Sendable {
    /// A connection to use: an idle one (which may have been closed by the
    /// server meanwhile) or permission to open a new one.
    enum Lease {
        case idle(Int32)
        case fresh
    }

    private struct Host {
        var idle: [Int32] = []
        var open = 0
    }

    let limit: Int
    private let condition = Condition()
    private var hosts: [String: Host] = [:]
    private var closed = false

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// A connection to `key`: the most recently used idle one unless
    /// `fresh`, else a new one once the bound allows.
    func lease(_ key: String, fresh: Bool, until deadline: Deadline, isDecided: () -> Bool) throws(HTTPFailure) -> Lease {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if isDecided() { throw HTTPFailure(.cancelled, "cancelled") }
            var host = hosts[key] ?? Host()
            if !fresh, let fd = host.idle.popLast() {
                hosts[key] = host
                return .idle(fd)
            }
            if host.open < limit {
                host.open += 1
                hosts[key] = host
                return .fresh
            }
            if fresh, let fd = host.idle.first {
                // Make room for the new connection.
                host.idle.removeFirst()
                host.open -= 1
                hosts[key] = host
                close(fd)
                continue
            }
            // Woken by a connection given back, a cancellation, or the deadline (then the loop throws).
            let milliseconds = try deadline.remainingMilliseconds()
            condition.wait(seconds: Double(milliseconds) / 1000)
        }
    }

    /// Gives a leased connection back: kept idle when `reusable` (and the
    /// pool is open), else closed. `fd` -1: the new connection never opened.
    func giveBack(_ key: String, _ fd: Int32, reusable: Bool) {
        condition.lock()
        defer { condition.unlock() }
        var host = hosts[key] ?? Host()
        if reusable, !closed, fd >= 0 {
            host.idle.append(fd)
        } else {
            if fd >= 0 { close(fd) }
            host.open -= 1
        }
        hosts[key] = host
        condition.signal()
    }

    /// Wakes the requests waiting for a connection, e.g. after one was cancelled.
    func wake() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Closes every idle connection; connections given back later are closed too.
    func closeAll() {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        for (key, host) in hosts {
            for fd in host.idle { close(fd) }
            hosts[key]?.open -= host.idle.count
            hosts[key]?.idle = []
        }
    }
}

/// Threads that run blocking jobs, one job at a time each: as many threads
/// as jobs have run at once, each waiting for the next job after its last,
/// and leaving after 30 s without one. Shared by every client, so a
/// process that makes many clients does not make many threads.
///
/// `@unchecked Sendable`: every stored variable is read and written only
/// with `condition` locked.
final class WorkerThreads: @unchecked Sendable {
    static let shared = WorkerThreads()

    private let condition = Condition()
    private var jobs: [@Sendable () -> Void] = []
    private var first = 0
    /// Threads not running a job (waiting for one, or starting).
    private var idle = 0

    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let spawn = jobs.count - first > idle
        if spawn { idle += 1 } else { condition.signal() }
        condition.unlock()
        if spawn { startThread { [self] in work() } }
    }

    private func work() {
        condition.lock()
        while true {
            while first == jobs.count {
                if !condition.wait(seconds: 30), first == jobs.count {
                    idle -= 1
                    condition.unlock()
                    return
                }
            }
            let job = jobs[first]
            first += 1
            if first == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                first = 0
            } else if first >= 64, first * 2 >= jobs.count {
                jobs.removeFirst(first)
                first = 0
            }
            idle -= 1
            condition.unlock()
            job()
            condition.lock()
            idle += 1
        }
    }
}
