import EssentialFeed
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One GET in flight: its outcome, decided once, by the thread running it
/// or by a cancellation or the deadline from outside.
final class SocketHTTPRequest: HTTPClientTask {
    private struct State {
        var decided = false
        /// The socket in use, shut down by a cancellation to wake the thread waiting on it.
        var socket: Int32 = -1
        /// The fallback's task, after a redirect to https.
        var handedOff: (any HTTPClientTask)?
        var watched = false
    }

    /// The request as asked for (URL and conditions).
    let asked: HTTPRequest
    var url: String { asked.url }
    let deadline: Deadline
    private let pool: ConnectionPool
    private let completion: @Sendable (Result<HTTPResult, HTTPFailure>) -> Void
    private let state = Mutex(State())

    init(_ asked: HTTPRequest, deadline: Deadline, pool: ConnectionPool, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) {
        self.asked = asked
        self.deadline = deadline
        self.pool = pool
        self.completion = completion
    }

    var isDecided: Bool { state.withLock { $0.decided } }

    func cancel() {
        stop(HTTPFailure(.cancelled, "cancelled"))
    }

    /// Decides `failure` unless the outcome is decided, wakes the thread
    /// running the request, and delivers the failure on a global queue.
    func stop(_ failure: HTTPFailure) {
        let (won, handedOff): (Bool, (any HTTPClientTask)?) = state.withLock { state in
            guard !state.decided else { return (false, nil) }
            state.decided = true
            if state.socket >= 0 { shutdown(state.socket, Int32(SHUT_RDWR)) }
            defer { state.handedOff = nil }
            return (true, state.handedOff)
        }
        guard won else { return }
        pool.wake()
        handedOff?.cancel()
        let completion = completion
        DispatchQueue.global().async { completion(.failure(failure)) }
    }

    /// Delivers `result` on this thread unless the outcome is decided.
    func finish(_ result: Result<HTTPResult, HTTPFailure>) {
        let won = state.withLock { state in
            guard !state.decided else { return false }
            state.decided = true
            state.socket = -1
            return true
        }
        if won { completion(result) }
    }

    /// Notes the socket in use; false (and nothing noted) when the outcome is decided.
    func attach(_ fd: Int32) -> Bool {
        state.withLock { state in
            guard !state.decided else { return false }
            state.socket = fd
            return true
        }
    }

    /// Forgets the socket; false when the outcome was decided meanwhile
    /// (the socket may have been shut down: it cannot be reused).
    @discardableResult
    func detach() -> Bool {
        state.withLock { state in
            state.socket = -1
            return !state.decided
        }
    }

    /// Makes the deadline decide the outcome even while the thread is
    /// where no deadline reaches (resolving a name) or gone (handed off).
    func watch() {
        let arm = state.withLock { state in
            guard !state.decided, !state.watched else { return false }
            state.watched = true
            return true
        }
        guard arm else { return }
        let failure = deadline.failure
        DispatchQueue.global().asyncAfter(deadline: deadline.dispatchTime) { [weak self] in self?.stop(failure) }
    }

    /// Lets `fallback` answer `url` in this request's place, within its deadline.
    func handOff(_ url: String, to fallback: any HTTPClient, redirected: Bool) {
        watch()
        var onward = asked
        onward.url = url
        let task = fallback.get(onward) { [self] result in
            finish(result.map { response in
                guard redirected, response.finalURL == nil else { return response }
                return response.answered(from: url)
            })
        }
        let kept = state.withLock { state in
            guard !state.decided else { return false }
            state.handedOff = task
            return true
        }
        if !kept { task.cancel() }
    }
}
