import CCurl
import EssentialFeed

/// One request: the header fields it needs from the response, its body
/// as it arrives (decoded, bounded: ``ResponseBody``), and its outcome,
/// decided once (by the transfer's end, or before it by `cancel()`).
final class CurlTransfer: HTTPClientTask, @unchecked Sendable {
    let request: HTTPRequest
    var url: String { request.url }
    private let limit: Int
    private let spilling: BodySpilling?
    private let completion: @Sendable (Result<HTTPResult, HTTPFailure>) -> Void
    private let lock = Lock()
    private var decided = false
    /// Written by the transfer's thread only.
    private var contentCodings: [String] = []
    /// The last response's `Retry-After`, `ETag` and `Last-Modified`, as sent.
    private(set) var retryAfter: String?
    private(set) var etag: String?
    private(set) var lastModified: String?
    private var body: ResponseBody?
    /// Why the body was refused (the limit, a corrupt stream), if it was.
    private(set) var failure: HTTPFailure?

    init(_ request: HTTPRequest, limit: Int, spilling: BodySpilling?, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) {
        self.request = request
        self.spilling = spilling
        self.limit = limit
        self.completion = completion
    }

    var isDecided: Bool { lock.withLock { decided } }

    /// Takes one header line of a response (libcurl gives every response's,
    /// redirects' included: a status line starts the next).
    func header(_ line: UnsafeRawBufferPointer) {
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            contentCodings = []
            retryAfter = nil
            etag = nil
            lastModified = nil
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return }
        let value = text[text.index(after: colon)...]
        switch text[..<colon].lowercased() {
        case "content-encoding":
            contentCodings += value.split(separator: ",").map { $0.trimmingCharacters(in: " \t\r\n").lowercased() }.filter { !$0.isEmpty }
        case "retry-after":
            retryAfter = value.trimmingCharacters(in: " \t\r\n")
        case "etag":
            // Kept only when it is an entity tag: the next run sends it back.
            etag = HTTPValidators.entityTag(value.trimmingCharacters(in: " \t\r\n"))
        case "last-modified":
            lastModified = HTTPValidators.httpDate(value.trimmingCharacters(in: " \t\r\n"))
        default:
            break
        }
    }

    /// Takes the next bytes of the body as sent; false (stop) when they are
    /// refused.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let body = body ?? ResponseBody(limit: limit, reportedLimit: limit, coding: Inflater.Coding(contentCodings: contentCodings), spilling: spilling)
        self.body = body
        do throws(HTTPFailure) {
            try body.write(bytes)
            return true
        } catch {
            failure = error
            return false
        }
    }

    /// The whole body, once the transfer has ended.
    func finishBody() throws(HTTPFailure) -> (bytes: [UInt8], spilled: SpilledBody?) {
        try body?.finish() ?? ([], nil)
    }

    /// Delivers `result` unless the outcome was decided already.
    func finish(_ result: Result<HTTPResult, HTTPFailure>) {
        guard lock.withLock({ () -> Bool in
            defer { decided = true }
            return !decided
        }) else { return }
        completion(result)
    }

    /// Decides the outcome now (the transfer stops at libcurl's next progress call).
    func cancel() {
        finish(.failure(HTTPFailure(.cancelled, "cancelled")))
    }
}

private extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
