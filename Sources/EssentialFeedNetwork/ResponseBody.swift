import EssentialFeed

/// A response body as it arrives: the bytes as sent, or decoded from their
/// content coding, gathered up to `limit` decoded bytes; one more is
/// `bodyTooLarge` at once.
final class ResponseBody {
    private let limit: Int
    private let reportedLimit: Int
    private let inflater: Inflater?
    private(set) var bytes: [UInt8] = []

    /// - Parameters:
    ///   - limit: the most bytes kept;
    ///   - reportedLimit: the limit a failure names (the client's, when
    ///     `limit` is a smaller one of its own);
    ///   - coding: the content coding to decode, if any.
    init(limit: Int, reportedLimit: Int, coding: Inflater.Coding?) {
        self.limit = limit
        self.reportedLimit = reportedLimit
        inflater = coding.map(Inflater.init)
    }

    /// Whether the bytes arrive as they are kept (no decoding).
    var isPlain: Bool { inflater == nil }

    /// Takes the next bytes of the body as sent.
    func write(_ sent: UnsafeRawBufferPointer) throws(HTTPFailure) {
        if let inflater {
            try inflater.decode(sent) { (decoded) throws(HTTPFailure) in try keep(decoded) }
        } else {
            try keep(sent)
        }
    }

    /// Checks the body is whole (a compressed stream ended) and returns it.
    func finish() throws(HTTPFailure) -> [UInt8] {
        try inflater?.finish()
        return bytes
    }

    /// Room for `count` more bytes, or the failure past the limit.
    func reserve(_ count: Int) throws(HTTPFailure) {
        guard count <= limit - bytes.count else { throw Self.tooLarge(reportedLimit) }
        bytes.reserveCapacity(bytes.count + count)
    }

    private func keep(_ piece: UnsafeRawBufferPointer) throws(HTTPFailure) {
        guard piece.count <= limit - bytes.count else { throw Self.tooLarge(reportedLimit) }
        bytes.append(contentsOf: piece)
    }

    static func tooLarge(_ limit: Int) -> HTTPFailure {
        HTTPFailure(.bodyTooLarge, "response body larger than \(counted(limit, "byte"))")
    }
}
