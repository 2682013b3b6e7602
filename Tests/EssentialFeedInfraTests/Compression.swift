import CZlib

/// gzip, zlib and raw deflate streams made with the system's zlib, for
/// servers in tests that send compressed bodies.
enum Compression {
    enum Format {
        case gzip, zlib, raw

        var windowBits: Int32 {
            switch self {
            case .gzip: 15 + 16
            case .zlib: 15
            case .raw: -15
            }
        }
    }

    /// `bytes` compressed in `format`.
    static func compress(_ bytes: [UInt8], _ format: Format) -> [UInt8] {
        compress(format, pieces: 1) { _ in bytes }
    }

    /// The pieces `piece(0)`, `piece(1)`, … compressed as one stream,
    /// without holding them all (a large body of zeros is made in pieces).
    static func compress(_ format: Format, pieces: Int, _ piece: (Int) -> [UInt8]) -> [UInt8] {
        var stream = z_stream()
        precondition(feed_deflate_init(&stream, 9, format.windowBits) == Z_OK)
        defer { deflateEnd(&stream) }
        var out: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 1 << 16)
        for index in 0..<pieces {
            var input = piece(index)
            let flush = index == pieces - 1 ? Z_FINISH : Z_NO_FLUSH
            input.withUnsafeMutableBufferPointer { input in
                stream.next_in = input.baseAddress
                stream.avail_in = uInt(input.count)
                repeat {
                    let produced: Int = scratch.withUnsafeMutableBufferPointer { scratch in
                        stream.next_out = scratch.baseAddress
                        stream.avail_out = uInt(scratch.count)
                        _ = deflate(&stream, flush)
                        return scratch.count - Int(stream.avail_out)
                    }
                    out += scratch[..<produced]
                } while stream.avail_out == 0 || (flush == Z_FINISH && stream.avail_in > 0)
            }
        }
        return out
    }
}
