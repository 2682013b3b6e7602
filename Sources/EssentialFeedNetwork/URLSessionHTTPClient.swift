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
public final class URLSessionHTTPClient: HTTPClient, @unchecked Sendable {
    private let session: URLSession
    private let timeout: Double

    public init(timeout: Double = 30, maxConnectionsPerHost: Int = 8) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        session = URLSession(configuration: configuration)
        self.timeout = timeout
    }

    deinit {
        session.invalidateAndCancel()
    }

    private final class Task: HTTPClientTask, @unchecked Sendable {
        let lock = NSLock()
        var task: URLSessionDataTask?
        var done = false
        var timer: DispatchWorkItem?
        let completion: @Sendable (Result<HTTPResult, HTTPFailure>) -> Void

        init(completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) {
            self.completion = completion
        }

        /// Delivers the first outcome only.
        func finish(_ result: Result<HTTPResult, HTTPFailure>) {
            lock.lock()
            if done { lock.unlock(); return }
            done = true
            timer?.cancel()
            lock.unlock()
            completion(result)
        }

        func cancel() {
            lock.lock()
            let task = self.task
            lock.unlock()
            finish(.failure(HTTPFailure(.cancelled, "cancelled")))
            task?.cancel()
        }
    }

    @discardableResult
    public func get(_ url: String, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) -> HTTPClientTask {
        let handle = Task(completion: completion)
        guard let target = URL(string: url) else {
            handle.finish(.failure(HTTPFailure(.other, "not a valid URL")))
            return handle
        }
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "GET"
        let timeout = self.timeout
        let task = session.dataTask(with: request) { data, response, error in
            if let error {
                handle.finish(.failure(URLSessionHTTPClient.failure(from: error, timeout: timeout)))
                return
            }
            guard let http = response as? HTTPURLResponse else {
                handle.finish(.failure(HTTPFailure(.badResponse, "not an HTTP response")))
                return
            }
            let body = data.map { [UInt8]($0) } ?? []
            // A body shorter than its declared length means the connection dropped mid-body.
            if let declared = http.value(forHTTPHeaderField: "Content-Length").flatMap(Int.init), declared > body.count {
                handle.finish(.failure(HTTPFailure(.connectionLost, "connection lost after \(body.count) of \(declared) bytes")))
                return
            }
            handle.finish(.success(HTTPResult(status: http.statusCode, body: body)))
        }
        let timer = DispatchWorkItem { [weak task] in
            // Deliver the timeout first: cancelling makes the session answer "cancelled".
            handle.finish(.failure(HTTPFailure(.timedOut, "timed out after \(URLSessionHTTPClient.format(timeout)) s")))
            task?.cancel()
        }
        handle.lock.lock()
        handle.task = task
        handle.timer = timer
        handle.lock.unlock()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        task.resume()
        return handle
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
            return HTTPFailure(.other, description.isEmpty ? "\(error)" : description)
        }
    }
}
