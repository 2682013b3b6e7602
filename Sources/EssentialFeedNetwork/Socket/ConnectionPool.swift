import EssentialFeed
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

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

    /// Closes every idle connection (the process is out of descriptors);
    /// the pool stays open. Returns how many it closed.
    @discardableResult
    func closeIdle() -> Int {
        condition.lock()
        defer { condition.unlock() }
        var count = 0
        for (key, host) in hosts where !host.idle.isEmpty {
            for fd in host.idle { close(fd) }
            count += host.idle.count
            hosts[key]?.open -= host.idle.count
            hosts[key]?.idle = []
        }
        if count > 0 { condition.broadcast() }
        return count
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
