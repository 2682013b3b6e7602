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
    private var jobs = FIFO<@Sendable () -> Void>()
    /// Threads not running a job (waiting for one, or starting).
    private var idle = 0

    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let spawn = jobs.count > idle
        if spawn { idle += 1 } else { condition.signal() }
        condition.unlock()
        // No thread to be had: the job runs in the caller's.
        if spawn, !startThread({ [self] in work() }) { work() }
    }

    private func work() {
        condition.lock()
        while true {
            while jobs.isEmpty {
                if !condition.wait(seconds: 30), jobs.isEmpty {
                    idle -= 1
                    condition.unlock()
                    return
                }
            }
            let job = jobs.popFirst()!
            idle -= 1
            condition.unlock()
            job()
            condition.lock()
            idle += 1
        }
    }
}
