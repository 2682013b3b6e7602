import EssentialFeed
#if canImport(Glibc)
import Glibc
#endif

/// An `HTTPClient` that tries a request again, after a wait, while its
/// outcome is transient (``RetryPolicy``), and delivers the last attempt's
/// outcome. Each attempt is a whole request of the client it wraps (its
/// own timeout). Cancelling stops the attempt in flight or the wait.
public final class RetryingHTTPClient: HTTPClient {
    private let client: any HTTPClient
    private let policy: RetryPolicy
    private let onRetry: @Sendable (_ url: String, _ outcome: Result<HTTPResult, HTTPFailure>, _ wait: Double, _ retry: Int) -> Void

    /// - Parameter onRetry: told before each wait (for a log line).
    public init(
        _ client: any HTTPClient, policy: RetryPolicy,
        onRetry: @escaping @Sendable (_ url: String, _ outcome: Result<HTTPResult, HTTPFailure>, _ wait: Double, _ retry: Int) -> Void = { _, _, _, _ in }
    ) {
        self.client = client
        self.policy = policy
        self.onRetry = onRetry
    }

    @discardableResult
    public func get(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) -> HTTPClientTask {
        let task = RetryTask(completion: completion)
        attempt(request, task, retriesMade: 0, started: Self.monotonic())
        return task
    }

    private func attempt(_ request: HTTPRequest, _ task: RetryTask, retriesMade: Int, started: Double) {
        let inner = client.get(request) { [self] outcome in
            let elapsed = Self.monotonic() - started
            guard let wait = policy.delay(after: outcome, retriesMade: retriesMade, elapsed: elapsed, now: Int(time(nil))) else {
                return task.finish(outcome)
            }
            onRetry(request.url, outcome, wait, retriesMade + 1)
            guard task.waiting() else { return }
            let waiting = runAfter(seconds: wait) { [self] in
                guard task.isLive else { return }
                attempt(request, task, retriesMade: retriesMade + 1, started: started)
            }
            if !waiting { task.finish(outcome) }
        }
        task.started(inner)
    }

    static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

/// The attempts of one request as one task: its outcome delivered once.
final class RetryTask: HTTPClientTask, @unchecked Sendable {
    private let completion: @Sendable (Result<HTTPResult, HTTPFailure>) -> Void
    private let lock = Lock()
    private var decided = false
    private var current: (any HTTPClientTask)?

    init(completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) {
        self.completion = completion
    }

    var isLive: Bool { lock.withLock { !decided } }

    /// Notes the attempt in flight (cancelled at once when the task was).
    func started(_ task: any HTTPClientTask) {
        let cancelled = lock.withLock { () -> Bool in
            if decided { return true }
            current = task
            return false
        }
        if cancelled { task.cancel() }
    }

    /// Between attempts: forgets the finished one; false when cancelled.
    func waiting() -> Bool {
        lock.withLock {
            current = nil
            return !decided
        }
    }

    func finish(_ outcome: Result<HTTPResult, HTTPFailure>) {
        let won = lock.withLock { () -> Bool in
            guard !decided else { return false }
            decided = true
            current = nil
            return true
        }
        if won { completion(outcome) }
    }

    func cancel() {
        let (won, inner) = lock.withLock { () -> (Bool, (any HTTPClientTask)?) in
            guard !decided else { return (false, nil) }
            decided = true
            defer { current = nil }
            return (true, current)
        }
        guard won else { return }
        inner?.cancel()
        completion(.failure(HTTPFailure(.cancelled, "cancelled")))
    }
}
