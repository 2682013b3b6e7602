import CCurl
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import EssentialFeed

/// The transfer engine: one libcurl multi handle, driven by one thread of
/// its own, that runs every request of a client.
///
/// Requests are added as they come and run at most `parallel` at once (the
/// others wait their turn, in order); libcurl keeps the connections open
/// between them, per host, and over TLS speaks HTTP/2 where the server
/// offers it, several transfers multiplexed on one connection. One thread
/// waits on every socket at once (`curl_multi_poll`), so a thousand small
/// requests cost no thread each, as `curl --parallel` does. Completions are
/// called on worker threads, never on the engine's: a completion that
/// blocks (a slow reader of feed-fetch's output) holds no transfer up.
///
/// `@unchecked Sendable`: `waiting`, `multi` and `started` are used with
/// `lock` held; `running` by the engine's thread alone.
final class CurlMulti: @unchecked Sendable {
    /// A request to run: `configure` sets its easy handle up (false: it
    /// is decided already, and is not run), `end` reads its outcome once
    /// libcurl is done with it.
    struct Job {
        let transfer: CurlTransfer
        let configure: (UnsafeMutableRawPointer) -> Bool
        let end: (UnsafeMutableRawPointer, CURLcode) -> Result<HTTPResult, HTTPFailure>
        /// When the request's bound is met (`DispatchTime` nanoseconds), and
        /// its failure then: a request still waiting for its turn fails at
        /// its deadline, not when a place frees.
        var deadline: UInt64
        let timedOut: HTTPFailure
        /// Whether this job was tried again once already after the idle
        /// connections were closed for want of descriptors.
        var retried = false
    }

    private let parallel: Int
    private let lock = Lock()
    private var waiting: [Job] = []
    private var multi: UnsafeMutableRawPointer?
    private var started = false
    private var running: [UnsafeMutableRawPointer: Job] = [:]
    /// Easy handles of ended transfers, reset, for the next ones (the
    /// engine's thread alone): a handle made for each request cost libcurl
    /// a few large blocks (its state, a 100 KiB receive buffer) and glibc a
    /// pass over its free lists for each; malloc took 12% of feed-fetch's
    /// time for 1,000 small files. `curl_easy_reset` sets every option back
    /// as `curl_easy_init` left it, and keeps what is worth keeping: the
    /// buffers, and TLS sessions to resume.
    private var spareHandles: [UnsafeMutableRawPointer] = []

    /// Whether libcurl could be set up, once per process.
    static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    init(parallel: Int) {
        self.parallel = max(1, parallel)
        multi = Self.makeMulti(parallel: self.parallel)
    }

    private static func makeMulti(parallel: Int) -> UnsafeMutableRawPointer? {
        guard initialized, let multi = curl_multi_init() else { return nil }
        // Connections to one host at most as many as requests run at once;
        // HTTP/2 transfers share one connection (libcurl's default).
        feed_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, parallel)
        feed_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(parallel, 8))
        return multi
    }

    /// The engine's thread, once it runs.
    private var engineThread: pthread_t?

    /// Runs `job` when a place is free (`first`: before every job waiting,
    /// as the next step of a request that was running); false when libcurl
    /// cannot be used at all.
    func add(_ job: Job, first: Bool = false) -> Bool {
        let start: Bool? = lock.withLock {
            guard let multi else { return nil }
            if first { waiting.insert(job, at: 0) } else { waiting.append(job) }
            // From a completion (the engine's own thread), the loop takes it
            // next time round: no wake-up to send.
            if engineThread.map({ pthread_equal($0, pthread_self()) == 0 }) ?? true { curl_multi_wakeup(multi) }
            defer { started = true }
            return !started
        }
        guard let start else { return false }
        if start, !startThread({ [self] in loop() }) {
            // Not kept waiting: its transfer is failed by the caller.
            lock.withLock {
                started = false
                waiting.removeAll { $0.transfer === job.transfer }
            }
            return false
        }
        return true
    }

    private func loop() {
        lock.withLock { engineThread = pthread_self() }
        // How long a wait for the sockets may last while transfers run
        // (milliseconds): 1 after a transfer began or ended or the sockets
        // had something, doubled after each wait that lasted that long and
        // found nothing, up to a second. Over HTTP/2, libcurl (7.88) can
        // keep a stream's response, read from the socket with another
        // stream's, without asking to be called again (its data left in
        // the TLS layer, or a stream's end, marks the stream to be drained
        // but sets no timer): no socket becomes ready, and the transfer
        // sits until something else calls libcurl. With the records written
        // in input order, the other transfers wait on that one, so nothing
        // else came: 13 runs of 60 (1,000 small files from nginx) took
        // 1.1 s instead of 0.09, one request waiting out the engine's second.
        // Woken this way, such a stream usually waits a millisecond, at most
        // the current wait; a transfer that waits on a slow server costs
        // ten extra wake-ups, then one a second.
        var idlePoll = 1
        while true {
            // The jobs that fit, in the order they came.
            let (multi, jobs): (UnsafeMutableRawPointer?, [Job]) = lock.withLock {
                let room = max(0, parallel - running.count)
                let taken = Array(waiting.prefix(room))
                waiting.removeFirst(taken.count)
                return (self.multi, taken)
            }
            guard let multi else {
                // libcurl could not be set up again: every request left fails.
                let left = lock.withLock { defer { waiting.removeAll() }; return waiting } + jobs
                for job in left { job.transfer.finish(.failure(HTTPFailure(.other, "cannot start libcurl"))) }
                lock.withLock { started = false }
                return
            }
            for job in jobs { begin(job, on: multi) }
            if !jobs.isEmpty { idlePoll = 1 }
            var active: Int32 = 0
            curl_multi_perform(multi, &active)
            var left: Int32 = 0
            var shortOfDescriptors: [Job] = []
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                      let job = running.removeValue(forKey: easy) else { continue }
                let code = message.pointee.data.result
                idlePoll = 1
                curl_multi_remove_handle(multi, easy)
                let result = job.end(easy, code)
                // A failed transfer's handle is not kept: libcurl (7.88)
                // never clears a handle's last system error, which the next
                // failure on it would read (CURLINFO_OS_ERRNO).
                if code == CURLE_OK { recycle(easy) } else { curl_easy_cleanup(easy) }
                // Out of descriptors with nothing else running: the idle
                // connections libcurl keeps may hold them. Closed (a new
                // multi handle), the job goes once more.
                if case let .failure(failure) = result, failure.reason == .outOfDescriptors, !job.retried {
                    var again = job
                    again.retried = true
                    shortOfDescriptors.append(again)
                    continue
                }
                // A small response completes on the engine's thread: a hop to
                // another thread for each took 1.24x the time for 1,000 small
                // requests. A big one (64 KiB or more) completes on a worker
                // thread, where making its record (base64, 200 KiB in 0.2 ms)
                // runs beside the transfers: on this thread, 100 images of
                // 200 KiB took 1.5x the time. A completion here that blocks
                // (writing to a reader that stopped reading) holds the
                // transfers in flight up: the time it takes is given back to
                // their deadlines, so that a slow reader never makes a
                // request time out.
                let transfer = job.transfer
                if case let .success(response) = result, response.bodyCount >= 64 << 10 {
                    WorkerThreads.shared.run { transfer.finish(result) }
                    continue
                }
                let before = DispatchTime.now().uptimeNanoseconds
                transfer.finish(result)
                let stalled = DispatchTime.now().uptimeNanoseconds - before
                if stalled > 1_000_000 { extendDeadlines(by: stalled) }
            }
            expireRunning(on: multi)
            if !shortOfDescriptors.isEmpty {
                if running.isEmpty { closeIdleConnections() }
                lock.withLock { waiting.insert(contentsOf: shortOfDescriptors, at: 0) }
                continue
            }
            let timeout = expireWaiting()
            // Requests added by the completions above start at once.
            if lock.withLock({ !waiting.isEmpty && running.count < parallel }) { continue }
            var ready: Int32 = 0
            if running.isEmpty {
                curl_multi_poll(multi, nil, 0, Int32(timeout), nil)
                continue
            }
            // Doubled only after a wait that lasted its length: a wake-up
            // (a request added) or libcurl's own timer ends one early, and
            // `ready` counts neither.
            let asked = min(timeout, idlePoll)
            let before = DispatchTime.now().uptimeNanoseconds
            curl_multi_poll(multi, nil, 0, Int32(asked), &ready)
            if ready > 0 {
                idlePoll = 1
            } else if asked == idlePoll, DispatchTime.now().uptimeNanoseconds - before >= UInt64(asked) * 1_000_000 {
                idlePoll = min(idlePoll * 2, 1000)
            }
        }
    }

    /// Moves the deadline of every request, running or waiting, `nanoseconds` later.
    private func extendDeadlines(by nanoseconds: UInt64) {
        for easy in running.keys {
            running[easy]!.deadline += nanoseconds
            running[easy]!.transfer.deadline += nanoseconds
        }
        lock.withLock { for index in waiting.indices { waiting[index].deadline += nanoseconds } }
    }

    /// Ends the running transfers whose deadline has come: timed out.
    private func expireRunning(on multi: UnsafeMutableRawPointer) {
        let now = DispatchTime.now().uptimeNanoseconds
        for (easy, job) in running where job.deadline <= now {
            running.removeValue(forKey: easy)
            curl_multi_remove_handle(multi, easy)
            curl_easy_cleanup(easy)
            job.transfer.finish(.failure(job.timedOut))
        }
    }

    /// Fails the waiting requests whose deadline has come; the milliseconds
    /// until the next deadline, waiting or running (at most a second).
    private func expireWaiting() -> Int {
        let now = DispatchTime.now().uptimeNanoseconds
        var next = now + 1_000_000_000
        for job in running.values { next = min(next, max(job.deadline, now)) }
        let expired: [Job] = lock.withLock {
            var expired: [Job] = []
            waiting.removeAll { job in
                if job.deadline <= now || job.transfer.isDecided {
                    expired.append(job)
                    return true
                }
                next = min(next, job.deadline)
                return false
            }
            return expired
        }
        for job in expired where !job.transfer.isDecided {
            let transfer = job.transfer, failure = job.timedOut
            WorkerThreads.shared.run { transfer.finish(.failure(failure)) }
        }
        return Int((next - now + 999_999) / 1_000_000)
    }

    /// Adds `job` to libcurl, or finishes it at once when it cannot run.
    private func begin(_ job: Job, on multi: UnsafeMutableRawPointer) {
        guard let easy = spareHandles.popLast() ?? curl_easy_init() else {
            let transfer = job.transfer
            WorkerThreads.shared.run { transfer.finish(.failure(HTTPFailure(.other, "cannot start libcurl"))) }
            return
        }
        guard job.configure(easy) else {
            recycle(easy)
            return
        }
        job.transfer.deadline = job.deadline
        job.transfer.timedOut = job.timedOut
        running[easy] = job
        curl_multi_add_handle(multi, easy)
    }

    /// Keeps the handle of an ended transfer for the next, reset (as many
    /// as run at once at most), or frees it.
    private func recycle(_ easy: UnsafeMutableRawPointer) {
        guard spareHandles.count < parallel else {
            curl_easy_cleanup(easy)
            return
        }
        curl_easy_reset(easy)
        spareHandles.append(easy)
    }

    /// Closes every connection libcurl keeps open, by making a new multi
    /// handle (the engine's thread, with no transfer running).
    private func closeIdleConnections() {
        for easy in spareHandles { curl_easy_cleanup(easy) }
        spareHandles.removeAll()
        lock.withLock {
            if let multi { curl_multi_cleanup(multi) }
            multi = Self.makeMulti(parallel: parallel)
        }
    }
}
