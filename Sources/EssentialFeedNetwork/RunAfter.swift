import EssentialFeed
#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` once `seconds` have passed (a retry's wait), on the one
/// thread that runs every such body, started by the first; false when that
/// thread could not be made (then `body` is not run). Bodies due at once
/// run in the order they were given.
///
/// Not Dispatch's `asyncAfter` on a global queue: libdispatch watches its
/// global queues' threads by reading /proc/<thread>/stat once a second and
/// stops the process (SIGILL) when it may not, and a confined tool may not
/// (Landlock grants no /proc). No tool uses those queues.
@discardableResult
func runAfter(seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
    Delays.shared.add(seconds: seconds, body)
}

private final class Delays: @unchecked Sendable {
    static let shared = Delays()
    private let condition = Condition()
    /// By deadline (monotonic seconds), earliest first.
    private var pending: [(deadline: Double, body: @Sendable () -> Void)] = []
    private var running = false

    func add(seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        // At most a day: a retry's wait is bounded far below (`RetryPolicy`).
        let deadline = RetryingHTTPClient.monotonic() + min(max(0, seconds), 86_400)
        condition.lock()
        defer { condition.unlock() }
        if !running {
            guard startThread({ [self] in run() }) else { return false }
            running = true
        }
        let index = pending.lastIndex { $0.deadline <= deadline }.map { $0 + 1 } ?? 0
        pending.insert((deadline, body), at: index)
        if index == 0 { condition.signal() }
        return true
    }

    private func run() {
        condition.lock()
        while true {
            guard let first = pending.first else {
                condition.wait()
                continue
            }
            let left = first.deadline - RetryingHTTPClient.monotonic()
            if left > 0 {
                condition.wait(seconds: left)
                continue
            }
            pending.removeFirst()
            condition.unlock()
            first.body()
            condition.lock()
        }
    }

}
