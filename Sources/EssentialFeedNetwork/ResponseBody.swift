import EssentialFeed

/// A response body as it arrives: the bytes as sent, or decoded from their
/// content coding, gathered up to `limit` decoded bytes (one more is
/// `bodyTooLarge` at once), in memory or, past the memory bound of
/// `spilling`, in a spill.
final class ResponseBody {
    private let limit: Int
    private let reportedLimit: Int
    /// The content codings' decoders, the first fed the bytes as sent,
    /// each the next one's input.
    private let inflaters: [Inflater]
    /// The bytes each decoder but the last handed on, bounded as the body
    /// is: a layer of codings is hardly larger than what it decodes to, and
    /// unbounded, one between others could make minutes of work from a few
    /// hundred bytes sent (gzip members with nothing in them, nested).
    private var handedOn: [Int]
    private let spilling: BodySpilling?
    private var bytes: [UInt8] = []
    private var spill: (any BodySpill)?
    private(set) var count = 0
    /// Called before each piece is decoded or kept, at every stage: a
    /// failure (the request's deadline met) refuses the body at once.
    private let checkpoint: (() throws(HTTPFailure) -> Void)?

    /// - Parameters:
    ///   - limit: the most bytes kept;
    ///   - reportedLimit: the limit a failure names (the client's, when
    ///     `limit` is a smaller one of its own);
    ///   - codings: the content codings to undo, the last applied first;
    ///   - spilling: where a body past a memory bound goes, if anywhere;
    ///   - checkpoint: called before each piece is decoded or kept.
    init(limit: Int, reportedLimit: Int, codings: [Inflater.Coding] = [], spilling: BodySpilling? = nil,
         checkpoint: (() throws(HTTPFailure) -> Void)? = nil) {
        self.checkpoint = checkpoint
        self.limit = limit
        self.reportedLimit = reportedLimit
        inflaters = codings.map(Inflater.init)
        handedOn = Array(repeating: 0, count: max(0, codings.count - 1))
        self.spilling = spilling
    }

    /// Whether the bytes arrive as they are kept (no decoding).
    var isPlain: Bool { inflaters.isEmpty }

    /// Whether a body of `length` bytes would be kept in memory whole.
    func staysInMemory(_ length: Int) -> Bool {
        spilling.map { length <= $0.memoryLimit } ?? true
    }

    /// Takes the next bytes of the body as sent.
    func write(_ sent: UnsafeRawBufferPointer) throws(HTTPFailure) {
        try decode(sent, from: 0)
    }

    /// Feeds `bytes` to the decoder at `stage`, and what it decodes to the
    /// next; past the last, keeps them.
    private func decode(_ bytes: UnsafeRawBufferPointer, from stage: Int) throws(HTTPFailure) {
        try checkpoint?()
        guard stage < inflaters.count else { return try keep(bytes) }
        if stage > 0 {
            // A coded layer's size: the limit, and a sixteenth more for the codings' own bytes.
            handedOn[stage - 1] += bytes.count
            guard handedOn[stage - 1] <= limit / 16 * 17 + (64 << 10) || limit > Int.max / 2 else { throw Self.tooLarge(reportedLimit) }
        }
        try inflaters[stage].decode(bytes) { (decoded) throws(HTTPFailure) in try decode(decoded, from: stage + 1) }
    }

    /// Checks the body is whole (a compressed stream ended) and returns it:
    /// the bytes in memory, or the spill that holds them.
    func finish() throws(HTTPFailure) -> (bytes: [UInt8], spilled: SpilledBody?) {
        for inflater in inflaters { try inflater.finish() }
        return (bytes, spill.map { SpilledBody(spill: $0, count: count) })
    }

    /// Room for `count` more bytes, or the failure past the limit.
    func reserve(_ more: Int) throws(HTTPFailure) {
        guard more <= limit - count else { throw Self.tooLarge(reportedLimit) }
        if spill == nil, staysInMemory(count + more) { bytes.reserveCapacity(count + more) }
    }

    private func keep(_ piece: UnsafeRawBufferPointer) throws(HTTPFailure) {
        guard piece.count <= limit - count else { throw Self.tooLarge(reportedLimit) }
        count += piece.count
        if let spill {
            try spill.append(piece)
            return
        }
        bytes.append(contentsOf: piece)
        if let spilling, bytes.count > spilling.memoryLimit {
            let made = try spilling.make()
            var failure: HTTPFailure?
            bytes.withUnsafeBytes { all in
                do throws(HTTPFailure) { try made.append(all) } catch { failure = error }
            }
            if let failure { throw failure }
            bytes = []
            spill = made
        }
    }

    static func tooLarge(_ limit: Int) -> HTTPFailure {
        HTTPFailure(.bodyTooLarge, "response body larger than \(counted(limit, "byte"))")
    }
}
