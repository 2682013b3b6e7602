import CZlib

/// Decodes a `gzip` or `deflate` content coding (RFC 9110, 8.4.1) as the
/// body arrives, on the system's zlib, handing the decoded bytes on in
/// pieces of at most `pieceSize`: memory stays bounded whatever the
/// body's decoded size, so a limit on it stops a compression bomb at the
/// limit.
///
/// `deflate` is meant to be the zlib format; a raw deflate stream, which
/// some servers send under that name, is taken too (as curl and browsers
/// do), told apart by its first two bytes, in whatever pieces they come.
/// A `gzip` body may hold several members one after another (RFC 1952),
/// as gzip(1) writes when files are joined: each is decoded in turn.
/// Other bytes after the end of the compressed stream are ignored, as curl
/// does. A stream that is corrupt, or that the body ends before the end
/// of, is a `badResponse` failure naming the coding (`bad response:
/// corrupt gzip body (…)`, `bad response: gzip body cut short`).
final class Inflater {
    enum Coding: String, Sendable {
        case gzip, deflate

        /// The codings to undo for a response's `Content-Encoding` values
        /// (lower case, in the order they were applied), the last applied
        /// first: gzip, x-gzip and deflate, up to `maxStack` of them, as
        /// libcurl does; empty for a body kept as it is (none, identity, a
        /// coding not asked for, or more than `maxStack`).
        static func toUndo(contentCodings: [String]) -> [Coding] {
            var undo: [Coding] = []
            for coding in contentCodings.reversed() where coding != "identity" {
                switch coding {
                case "gzip", "x-gzip": undo.append(.gzip)
                case "deflate": undo.append(.deflate)
                default: return []
                }
            }
            return undo.count <= maxStack ? undo : []
        }

        /// The most codings undone one after another (libcurl's bound).
        static let maxStack = 5
    }

    static let pieceSize = 64 << 10

    private let coding: Coding
    private var stream = z_stream()
    private var output: UnsafeMutablePointer<UInt8>
    private var ready = false
    private var ended = false
    /// Whether a `deflate` body turned out to be raw deflate.
    private var raw = false
    /// A `deflate` body's first bytes, kept until there are two: they say
    /// whether it is the zlib format or raw deflate, whatever the pieces
    /// the body arrives in.
    private var head: [UInt8] = []
    /// Whether a `gzip` member has ended and what follows is not known
    /// yet; the first bytes after it, kept until there are two: another
    /// member's magic number (1F 8B), or bytes to ignore.
    private var betweenMembers = false
    private var next: [UInt8] = []

    init(_ coding: Coding) {
        self.coding = coding
        output = .allocate(capacity: Self.pieceSize)
    }

    deinit {
        if ready { inflateEnd(&stream) }
        output.deallocate()
    }

    /// Decodes `input`, calling `deliver` with each decoded piece.
    func decode(_ input: UnsafeRawBufferPointer, _ deliver: (UnsafeRawBufferPointer) throws(HTTPFailure) -> Void) throws(HTTPFailure) {
        guard !ended, input.baseAddress != nil, input.count > 0 else { return }
        if !ready, coding == .deflate {
            // The format, from the first two bytes: a zlib header (RFC 1950:
            // method 8, a window of at most 32 KiB, a check that divides by
            // 31), else raw deflate.
            let taken = min(2 - head.count, input.count)
            head += input[..<taken]
            guard head.count == 2 else { return }
            raw = !(head[0] & 0x0F == 8 && head[0] >> 4 <= 7 && (Int(head[0]) << 8 | Int(head[1])) % 31 == 0)
            try start()
            let first = head
            head = []
            try inflate(kept: first, deliver)
            guard !ended else { return }
            return try inflate(UnsafeRawBufferPointer(rebasing: input[taken...]), deliver)
        }
        if !ready { try start() }
        try inflate(input, deliver)
    }

    /// Feeds `input` to zlib, calling `deliver` with each decoded piece,
    /// member after member of a `gzip` body (a loop, not a call per
    /// member: a body of many small members does not deepen the stack).
    private func inflate(_ input: UnsafeRawBufferPointer, _ deliver: (UnsafeRawBufferPointer) throws(HTTPFailure) -> Void) throws(HTTPFailure) {
        guard input.baseAddress != nil else { return }
        var rest = input[...]
        while !rest.isEmpty && !ended {
            if betweenMembers {
                let taken = min(2 - next.count, rest.count)
                next += rest.prefix(taken)
                rest = rest.dropFirst(taken)
                guard next.count == 2 else { return }
                betweenMembers = false
                guard next == [0x1F, 0x8B] else {
                    ended = true
                    return
                }
                inflateReset(&stream)
                let magic = next
                next = []
                try inflate(kept: magic, deliver)
                continue
            }
            let consumed = try feed(UnsafeRawBufferPointer(rebasing: rest), deliver)
            rest = rest.dropFirst(consumed)
        }
    }

    /// Feeds bytes kept from an earlier piece (a stream's first two) to zlib.
    private func inflate(kept bytes: [UInt8], _ deliver: (UnsafeRawBufferPointer) throws(HTTPFailure) -> Void) throws(HTTPFailure) {
        var failure: HTTPFailure?
        bytes.withUnsafeBytes { pointer in
            do throws(HTTPFailure) { try inflate(pointer, deliver) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Feeds `input` to zlib up to the end of the stream (a `gzip`
    /// member's: then `betweenMembers`), calling `deliver` with each
    /// decoded piece; returns how many bytes of `input` it took.
    private func feed(_ input: UnsafeRawBufferPointer, _ deliver: (UnsafeRawBufferPointer) throws(HTTPFailure) -> Void) throws(HTTPFailure) -> Int {
        guard let base = input.baseAddress, input.count > 0 else { return 0 }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        defer {
            stream.next_in = nil
            stream.avail_in = 0
        }
        while stream.avail_in > 0 {
            stream.next_out = output
            stream.avail_out = uInt(Self.pieceSize)
            let status = CZlib.inflate(&stream, Z_NO_FLUSH)
            let produced = Self.pieceSize - Int(stream.avail_out)
            if produced > 0 {
                try deliver(UnsafeRawBufferPointer(start: output, count: produced))
            }
            switch status {
            case Z_OK:
                continue
            case Z_STREAM_END:
                if coding == .gzip { betweenMembers = true } else { ended = true }
                return input.count - Int(stream.avail_in)
            case Z_BUF_ERROR where produced == 0:
                return input.count  // needs more input
            default:
                throw corrupt(status)
            }
        }
        return input.count
    }

    /// Checks that the compressed stream ended with the body.
    func finish() throws(HTTPFailure) {
        // An empty body has no stream at all (servers send one for an empty resource).
        // One byte after a member is no member: ignored, as other bytes are.
        if betweenMembers { return }
        if (ready && !ended) || !head.isEmpty {
            throw HTTPFailure(.badResponse, "bad response: \(coding.rawValue) body cut short")
        }
    }

    private func start() throws(HTTPFailure) {
        // 15: the largest window; +16: the gzip wrapper; negative: raw deflate.
        let bits: Int32 = coding == .gzip ? 15 + 16 : raw ? -15 : 15
        stream = z_stream()
        guard feed_inflate_init(&stream, bits) == Z_OK else {
            throw HTTPFailure(.other, "cannot start zlib")
        }
        ready = true
    }

    private func corrupt(_ status: Int32) -> HTTPFailure {
        let detail = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
        return HTTPFailure(.badResponse, "bad response: corrupt \(coding.rawValue) body (\(detail))")
    }
}
