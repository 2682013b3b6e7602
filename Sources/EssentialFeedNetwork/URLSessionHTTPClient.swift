import EssentialFeed
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPClient` on FoundationNetworking's `URLSession`.
///
/// Each request is bounded as a whole by `timeout` (not only between bytes),
/// nothing is cached, no cookies are kept, and a body cut short of its
/// `Content-Length` is a failure (`connectionLost`), never a response.
///
/// Redirects are followed up to `maxRedirects`; one more is a failure
/// (`tooManyRedirects`), except that with `maxRedirects` 0 the first 3xx is
/// itself the response. A body longer than `maxBodyBytes` (declared by its
/// `Content-Length` or counted as it arrives) stops the transfer at once:
/// a `bodyTooLarge` failure.
///
/// Tasks report to a session delegate rather than to completion handlers:
/// on FoundationNetworking only a delegate sees the body as it arrives and
/// decides on each redirect. Every cancellation runs on the delegate's
/// serial queue too, and an outcome decided early (timeout, cancel, too
/// large, too many redirects) is delivered once the session has let go of
/// the task: FoundationNetworking traps when a task is cancelled while its
/// completion is being delivered ("Trying to access a behaviour for a task
/// that in not in the registry"), when a redirect is answered after the task
/// was cancelled, and when a connection it still holds ends in the middle
/// of a response head ("Transfer completed, but there's no response"). The
/// last one no client code can prevent when a server does it by itself.
public final class URLSessionHTTPClient: HTTPClient, @unchecked Sendable {
    /// The most redirects a client can be told to follow: FoundationNetworking
    /// gives up by itself after 20.
    public static let maximumRedirects = 20

    private let session: URLSession
    private let delegate: Delegate
    private let queue: OperationQueue
    private let timeout: Double
    private let maxRedirects: Int
    private let maxBodyBytes: Int
    private let netrc: Netrc?

    /// `netrc`: credentials by host, for URLs without `user:password@`
    /// (asked again for the host of each redirect).
    public init(timeout: Double = 30, maxConnectionsPerHost: Int = 8, maxRedirects: Int = 5, maxBodyBytes: Int = 64 << 20, netrc: Netrc? = nil) {
        self.netrc = netrc
        precondition((0...Self.maximumRedirects).contains(maxRedirects), "maxRedirects out of range")
        precondition(maxBodyBytes >= 0, "maxBodyBytes is negative")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        // The client's own timer bounds each request. FoundationNetworking's
        // timer only backs it up: it counts whole seconds (0.5 would be 0,
        // an immediate timeout), so it gets a second more than the bound.
        let backstop = Self.backstop(timeout)
        configuration.timeoutIntervalForRequest = backstop
        configuration.timeoutIntervalForResource = backstop
        // One serial queue: the callbacks of a task arrive in order.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "URLSessionHTTPClient"
        self.queue = queue
        delegate = Delegate(netrc: netrc)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        self.timeout = timeout
        self.maxRedirects = maxRedirects
        self.maxBodyBytes = maxBodyBytes
    }

    deinit {
        // Cancel what still runs the usual way (not `invalidateAndCancel`,
        // which races with completions), then let the session go.
        for request in delegate.all() { request.cancel() }
        session.finishTasksAndInvalidate()
    }

    /// One GET: its outcome, delivered once, and what arrived so far.
    ///
    /// An outcome decided before the task completed (a timeout, a
    /// cancellation, a body too large, too many redirects) is delivered
    /// once the task has let go of its connection: when the session reports
    /// the task complete, or a second later if it never does. So a caller
    /// that goes on (and, say, closes the server) cannot race the session,
    /// which traps when a connection it still holds ends without a response
    /// ("Transfer completed, but there's no response").
    private final class Request: HTTPClientTask, @unchecked Sendable {
        let url: String
        let timeout: Double
        let maxRedirects: Int
        let maxBodyBytes: Int
        private let completion: @Sendable (Result<HTTPResult, HTTPFailure>) -> Void

        private let lock = NSLock()
        private var task: URLSessionDataTask?
        /// The session's delegate queue, where tasks are cancelled.
        private var queue: OperationQueue?
        private var timer: DispatchWorkItem?
        private var outcome: Result<HTTPResult, HTTPFailure>?
        private var delivered = false

        // Touched only on the session's serial delegate queue.
        var body: [UInt8] = []
        var redirects = 0

        init(
            url: String, timeout: Double, maxRedirects: Int, maxBodyBytes: Int,
            completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void
        ) {
            self.url = url
            self.timeout = timeout
            self.maxRedirects = maxRedirects
            self.maxBodyBytes = maxBodyBytes
            self.completion = completion
        }

        func start(_ task: URLSessionDataTask, on queue: OperationQueue, timer: DispatchWorkItem) {
            lock.lock()
            defer { lock.unlock() }
            self.task = task
            self.queue = queue
            self.timer = timer
        }

        /// Whether the outcome is decided (the rest of the transfer is ignored).
        var isDecided: Bool {
            lock.lock()
            defer { lock.unlock() }
            return outcome != nil
        }

        /// Decides the outcome unless it was decided already.
        private func decide(_ result: Result<HTTPResult, HTTPFailure>) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard outcome == nil else { return false }
            outcome = result
            timer?.cancel()
            timer = nil
            return true
        }

        /// Delivers the decided outcome, once.
        private func deliver() {
            lock.lock()
            guard let outcome, !delivered else { return lock.unlock() }
            delivered = true
            lock.unlock()
            completion(outcome)
        }

        /// The task completed with `result`: delivers it, or the outcome
        /// decided before.
        func complete(_ result: @autoclosure () -> Result<HTTPResult, HTTPFailure>) {
            if !isDecided { _ = decide(result()) }
            deliver()
        }

        /// Delivers `failure` at once, when there is no task to wait for.
        func fail(_ failure: HTTPFailure) {
            if decide(.failure(failure)) { deliver() }
        }

        /// Decides `failure` and cancels the task. Only on the delegate queue.
        func abort(_ failure: HTTPFailure) {
            guard decide(.failure(failure)) else { return }
            body = []
            lock.lock()
            let task = self.task
            lock.unlock()
            task?.cancel()
            deliverLater()
        }

        /// Decides `failure` (e.g. too many redirects) for a task that
        /// completes by itself. Only on the delegate queue.
        func decideBeforeCompletion(_ failure: HTTPFailure) {
            guard decide(.failure(failure)) else { return }
            body = []
            deliverLater()
        }

        /// Decides `failure` and cancels the task, from any thread: the
        /// cancellation runs on the delegate queue, where it cannot race
        /// a completion or a redirect being answered.
        func stop(_ failure: HTTPFailure) {
            guard decide(.failure(failure)) else { return }
            lock.lock()
            let task = self.task, queue = self.queue
            lock.unlock()
            guard let task, let queue else { return deliver() }
            queue.addOperation { task.cancel() }
            deliverLater()
        }

        func cancel() {
            stop(HTTPFailure(.cancelled, "cancelled"))
        }

        /// The session reports a cancelled task complete at once; should it
        /// not, the outcome is delivered anyway a second later.
        private func deliverLater() {
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [self] in deliver() }
        }

        var tooLarge: HTTPFailure {
            HTTPFailure(.bodyTooLarge, "response body larger than \(counted(maxBodyBytes, "byte"))")
        }
    }

    /// The session's delegate: routes each callback to its request.
    private final class Delegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private let netrc: Netrc?

        init(netrc: Netrc?) {
            self.netrc = netrc
        }

        private let lock = NSLock()
        private var requests: [Int: Request] = [:]

        func all() -> [Request] {
            lock.lock()
            defer { lock.unlock() }
            return Array(requests.values)
        }

        func register(_ request: Request, for task: URLSessionTask) {
            lock.lock()
            requests[task.taskIdentifier] = request
            lock.unlock()
        }

        private func request(for task: URLSessionTask, removing: Bool = false) -> Request? {
            lock.lock()
            defer { lock.unlock() }
            return removing ? requests.removeValue(forKey: task.taskIdentifier) : requests[task.taskIdentifier]
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest: URLRequest, completionHandler: @Sendable @escaping (URLRequest?) -> Void
        ) {
            // A task is registered from before it starts until it completes.
            // Once its outcome is decided, a cancellation is queued behind
            // this callback: the redirect stays unanswered (answering one of
            // a cancelled task traps: "Received callback for HTTP
            // redirection, but we're not waiting for it").
            guard let request = request(for: task), !request.isDecided else { return }
            if request.redirects < request.maxRedirects {
                request.redirects += 1
                request.body = []
                // Credentials go to the host they are for, never on to another.
                var next = newRequest
                next.setValue(nil, forHTTPHeaderField: "Authorization")
                URLSessionHTTPClient.authorize(&next, netrc)
                return completionHandler(next)
            }
            // Not followed: the 3xx itself completes the task. It is the
            // response when no redirect may be followed at all; past a limit
            // of one or more, the task completes with the failure.
            if request.maxRedirects > 0 {
                request.decideBeforeCompletion(HTTPFailure(.tooManyRedirects, "too many redirects (\(request.maxRedirects))"))
            }
            completionHandler(nil)
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @Sendable @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            completionHandler(.allow)
            guard let request = request(for: dataTask), !request.isDecided else { return }
            request.body = []
            if let http = response as? HTTPURLResponse,
               let declared = http.value(forHTTPHeaderField: "Content-Length").flatMap(Int.init),
               declared > request.maxBodyBytes {
                request.abort(request.tooLarge)
            }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            guard let request = request(for: dataTask), !request.isDecided else { return }
            guard data.count <= request.maxBodyBytes - request.body.count else {
                return request.abort(request.tooLarge)
            }
            request.body.append(contentsOf: data)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            guard let request = request(for: task, removing: true) else { return }
            request.complete(URLSessionHTTPClient.result(of: request, response: task.response, error: error))
        }
    }

    /// The `.netrc` entry of the request's host, unless its URL names a user.
    static func authorize(_ request: inout URLRequest, _ netrc: Netrc?) {
        guard let netrc, let url = request.url, url.user == nil else { return }
        request.setValue(url.host.flatMap { netrc.authorization(forHost: $0) }, forHTTPHeaderField: "Authorization")
    }

    @discardableResult
    public func get(_ url: String, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) -> HTTPClientTask {
        let handle = Request(url: url, timeout: timeout, maxRedirects: maxRedirects, maxBodyBytes: maxBodyBytes, completion: completion)
        guard let target = URL(string: url) else {
            handle.fail(HTTPFailure(.other, "not a valid URL"))
            return handle
        }
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: Self.backstop(timeout))
        request.httpMethod = "GET"
        Self.authorize(&request, netrc)
        let timeout = self.timeout
        let task = session.dataTask(with: request)
        let timer = DispatchWorkItem {
            // Decided first: the session then reports the task cancelled.
            handle.stop(HTTPFailure(.timedOut, "timed out after \(URLSessionHTTPClient.format(timeout)) s"))
        }
        handle.start(task, on: queue, timer: timer)
        delegate.register(handle, for: task)
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        task.resume()
        return handle
    }

    /// The outcome of a finished task.
    private static func result(of request: Request, response: URLResponse?, error: Error?) -> Result<HTTPResult, HTTPFailure> {
        if let error {
            if (error as? URLError)?.code == .httpTooManyRedirects {
                return .failure(HTTPFailure(.tooManyRedirects, "too many redirects (\(request.maxRedirects))"))
            }
            return .failure(failure(from: error, timeout: request.timeout))
        }
        guard let http = response as? HTTPURLResponse else {
            return .failure(HTTPFailure(.badResponse, "not an HTTP response"))
        }
        let body = request.body
        // A body shorter than its declared length means the connection dropped mid-body.
        if let declared = http.value(forHTTPHeaderField: "Content-Length").flatMap(Int.init), declared > body.count {
            return .failure(HTTPFailure(.connectionLost, "connection lost after \(body.count) of \(counted(declared, "byte"))"))
        }
        let finalURL = request.redirects > 0 ? http.url?.absoluteString : nil
        return .success(HTTPResult(status: http.statusCode, body: body, finalURL: finalURL))
    }

    /// FoundationNetworking's own timeout for a bound of `timeout` seconds:
    /// later than the client's timer, in whole seconds (and small enough
    /// for its millisecond count).
    static func backstop(_ timeout: Double) -> Double {
        min(timeout.rounded(.up) + 1, Double(Int32.max / 1000))
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    static func failure(from error: Error, timeout: Double) -> HTTPFailure {
        let code = (error as? URLError)?.code
        switch code {
        case .cannotConnectToHost?: return HTTPFailure(.refused, "connection refused")
        case .cannotFindHost?, .dnsLookupFailed?: return HTTPFailure(.cannotResolveHost, "cannot resolve host")
        case .timedOut?: return HTTPFailure(.timedOut, "timed out after \(format(timeout)) s")
        case .networkConnectionLost?: return HTTPFailure(.connectionLost, "connection lost")
        case .secureConnectionFailed?, .serverCertificateUntrusted?, .serverCertificateHasBadDate?,
             .serverCertificateNotYetValid?, .serverCertificateHasUnknownRoot?, .clientCertificateRejected?,
             .clientCertificateRequired?:
            return HTTPFailure(.tls, "TLS failure: \(error.localizedDescription)")
        case .httpTooManyRedirects?: return HTTPFailure(.tooManyRedirects, "too many redirects")
        case .cancelled?: return HTTPFailure(.cancelled, "cancelled")
        case .badServerResponse?: return HTTPFailure(.badResponse, "bad server response")
        case .notConnectedToInternet?: return HTTPFailure(.other, "not connected to a network")
        default:
            let description = (error as NSError).localizedDescription
            // libcurl's "transfer closed with N bytes remaining to read": the body was cut short.
            if description.contains("transfer closed") || description.contains("remaining to read") {
                return HTTPFailure(.connectionLost, "connection lost: \(description)")
            }
            // libcurl's TLS library speaking for itself (OpenSSL's "wrong version number" to a plain-HTTP port).
            if ["SSL", "TLS", "certificate"].contains(where: description.contains) {
                return HTTPFailure(.tls, "TLS failure: \(description)")
            }
            return HTTPFailure(.other, description.isEmpty ? "\(error)" : description)
        }
    }
}
