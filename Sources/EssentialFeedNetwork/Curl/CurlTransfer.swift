import CCurl
import EssentialFeed

/// One request: its body as it arrives, and its outcome, decided once
/// (by the transfer's end, or before it by `cancel()`).
final class CurlTransfer: HTTPClientTask, @unchecked Sendable {
    let url: String
    private let limit: Int
    private let completion: @Sendable (Result<HTTPResult, HTTPFailure>) -> Void
    private let lock = Lock()
    private var decided = false
    /// Written by the transfer's thread only.
    private(set) var body: [UInt8] = []
    private(set) var overLimit = false

    init(url: String, limit: Int, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) {
        self.url = url
        self.limit = limit
        self.completion = completion
    }

    var isDecided: Bool { lock.withLock { decided } }

    /// Keeps `bytes`; false (stop) past the limit.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= limit else {
            overLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
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
