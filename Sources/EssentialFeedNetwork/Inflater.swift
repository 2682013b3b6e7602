import CZlib

/// Decodes a `gzip` or `deflate` content coding (RFC 9110, 8.4.1) as the
/// body arrives, on the system's zlib, handing the decoded bytes on in
/// pieces of at most `pieceSize`: memory stays bounded whatever the
/// body's decoded size, so a limit on it stops a compression bomb at the
/// limit.
///
/// `deflate` is meant to be the zlib format; a raw deflate stream, which
/// some servers send under that name, is taken too (as curl and browsers
/// do). Bytes after the end of the compressed stream are ignored, as curl
/// does. A stream that is corrupt, or that the body ends before the end
/// of, is a `badResponse` failure naming the coding (`bad response:
/// corrupt gzip body (…)`, `bad response: gzip body cut short`).
final class Inflater {
    enum Coding: String, Sendable {
        case gzip, deflate

        /// The coding to decode for a response's `Content-Encoding` values
        /// (lower case): gzip, x-gzip or deflate alone; nil for a body
        /// kept as it is (none, identity, or codings not asked for).
        init?(contentCodings: [String]) {
            let codings = contentCodings.filter { $0 != "identity" }
            guard codings.count == 1 else { return nil }
            switch codings[0] {
            case "gzip", "x-gzip": self = .gzip
            case "deflate": self = .deflate
            default: return nil
            }
        }
    }

    static let pieceSize = 64 << 10

    private let coding: Coding
    private var stream = z_stream()
    private var output: UnsafeMutablePointer<UInt8>
    private var ready = false
    private var ended = false
    /// Whether a `deflate` body turned out to be raw deflate.
    private var raw = false
    private var decodedAny = false

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
        guard !ended, let base = input.baseAddress, input.count > 0 else { return }
        if !ready { try start() }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        defer {
            stream.next_in = nil
            stream.avail_in = 0
        }
        while stream.avail_in > 0 {
            stream.next_out = output
            stream.avail_out = uInt(Self.pieceSize)
            let status = inflate(&stream, Z_NO_FLUSH)
            let produced = Self.pieceSize - Int(stream.avail_out)
            if status == Z_DATA_ERROR, coding == .deflate, !raw, !decodedAny, produced == 0 {
                // Not the zlib format: raw deflate, from the start of the body.
                raw = true
                inflateEnd(&stream)
                ready = false
                try start()
                stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(input.count)
                continue
            }
            if produced > 0 {
                decodedAny = true
                try deliver(UnsafeRawBufferPointer(start: output, count: produced))
            }
            switch status {
            case Z_OK:
                continue
            case Z_STREAM_END:
                ended = true
                return
            case Z_BUF_ERROR where produced == 0:
                return  // needs more input
            default:
                throw corrupt(status)
            }
        }
    }

    /// Checks that the compressed stream ended with the body.
    func finish() throws(HTTPFailure) {
        // An empty body has no stream at all (servers send one for an empty resource).
        if ready && !ended {
            throw HTTPResponseHead.bad("\(coding.rawValue) body cut short")
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
        return HTTPResponseHead.bad("corrupt \(coding.rawValue) body (\(detail))")
    }
}
