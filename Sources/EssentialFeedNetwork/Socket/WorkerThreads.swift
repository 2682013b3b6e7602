import EssentialFeed

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
        // No thread to be had: the job runs in the caller's.
        if spawn, !startThread({ [self] in work() }) { work() }
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
