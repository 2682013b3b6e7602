import EssentialFeed

/// Whether a body (feed-fetch's, past its memory bound) is JSON, found out
/// while it arrives: a thread of its own reads a copy of each piece the
/// spool is handed and runs the check a whole body gets (`verdict(of:)`),
/// so that the body's last byte is followed by its record at once rather
/// than by a second reading of the whole spool. Pieces wait in a queue of at most `queueLimit` bytes
/// (the receiving thread waits while it is full); once the check is done
/// (a body that is not JSON is known early), pieces are no longer kept.
public final class BodyCheck: @unchecked Sendable {
    /// What the check found.
    public struct Verdict: Equatable, Sendable {
        public let isJSON: Bool
        /// Where a JSON body's value lies in it, when it has no blanks
        /// between its tokens: it can then be copied as it stands.
        public let compactValue: Range<Int>?

        public init(isJSON: Bool, compactValue: Range<Int>?) {
            self.isJSON = isJSON
            self.compactValue = compactValue
        }
    }

    public static let queueLimit = 1 << 20
    private let condition = Condition()
    private var pieces: [[UInt8]] = []
    /// The next piece for the thread is `pieces[next]`.
    private var next = 0
    private var queued = 0
    /// No more pieces will come.
    private var ended = false
    private var verdict: Verdict?

    /// Starts the thread; nil when no thread could be made.
    public static func start() -> BodyCheck? {
        let check = BodyCheck()
        return startThread { check.run() } ? check : nil
    }

    /// Hands over the body's next bytes (copied).
    public func append(_ bytes: UnsafeRawBufferPointer) {
        condition.lock()
        defer { condition.unlock() }
        while queued >= Self.queueLimit && verdict == nil && !ended { condition.wait() }
        guard verdict == nil && !ended else { return }
        pieces.append(Array(bytes))
        queued += bytes.count
        condition.broadcast()
    }

    /// Whether the verdict is known (before `finish`: the body is not JSON).
    var hasVerdict: Bool {
        condition.lock()
        defer { condition.unlock() }
        return verdict != nil
    }

    /// Says the body is whole and waits for the verdict.
    public func finish() -> Verdict {
        condition.lock()
        defer { condition.unlock() }
        ended = true
        condition.broadcast()
        while verdict == nil { condition.wait() }
        return verdict!
    }

    /// Ends the check of a body given up (a request that failed): the
    /// thread stops at the next piece it asks for.
    public func cancel() {
        condition.lock()
        ended = true
        pieces = []
        next = 0
        queued = 0
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the body `reader` reads is one JSON value (blanks around it
    /// allowed), and where that value lies when it has no blanks inside.
    /// Fails only when the reader's source does.
    public static func verdict(of reader: inout JSONStreamReader) throws(ErrorRecord) -> Verdict {
        reader.multiline = true
        do throws(ErrorRecord) {
            guard try reader.peek() != nil else { return Verdict(isJSON: false, compactValue: nil) }
            let start = reader.offset
            reader.sawBlank = false
            try reader.skipValue()
            let value = reader.sawBlank ? nil : start..<reader.offset
            try reader.finishDocument()
            return Verdict(isJSON: true, compactValue: value)
        } catch where error.kind != .store {
            return Verdict(isJSON: false, compactValue: nil)
        }
    }

    private func run() {
        var reader = JSONStreamReader(source: Pieces(check: self), chunkSize: 256 << 10, maxDepth: Response.maxBodyDepth)
        // The source never fails: a cancelled body just ends.
        let found = (try? Self.verdict(of: &reader)) ?? Verdict(isJSON: false, compactValue: nil)
        condition.lock()
        verdict = found
        pieces = []
        queued = 0
        condition.broadcast()
        condition.unlock()
    }

    /// The next piece, waiting for it; nil at the end of the body.
    private func take() -> [UInt8]? {
        condition.lock()
        defer { condition.unlock() }
        while next == pieces.count && !ended { condition.wait() }
        guard next < pieces.count else { return nil }
        let piece = pieces[next]
        pieces[next] = []
        next += 1
        queued -= piece.count
        if next == pieces.count {
            pieces.removeAll(keepingCapacity: true)
            next = 0
        }
        condition.broadcast()
        return piece
    }

    private struct Pieces: ByteSource {
        let check: BodyCheck
        var piece: [UInt8] = []
        var position = 0

        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ErrorRecord) -> Int {
            while position == piece.count {
                guard let taken = check.take() else { return 0 }
                piece = taken
                position = 0
            }
            let n = min(buffer.count, piece.count - position)
            piece.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
            position += n
            return n
        }
    }
}
