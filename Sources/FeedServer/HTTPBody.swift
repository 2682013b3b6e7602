import EssentialFeed

/// A response body: literal bytes and runs of one repeated byte, so that a
/// huge padded body is produced while it is sent rather than held in memory.
struct HTTPBody: Equatable {
    enum Segment: Equatable {
        case bytes([UInt8])
        case repeated(UInt8, count: Int)

        var count: Int {
            switch self {
            case .bytes(let bytes): bytes.count
            case .repeated(_, let count): count
            }
        }
    }

    var segments: [Segment]

    init(_ bytes: [UInt8] = []) { segments = bytes.isEmpty ? [] : [.bytes(bytes)] }
    init(segments: [Segment]) { self.segments = segments }

    var count: Int { segments.reduce(0) { $0 + $1.count } }

    /// All bytes (for tests and small bodies).
    var bytes: [UInt8] {
        segments.flatMap { segment -> [UInt8] in
            switch segment {
            case .bytes(let bytes): bytes
            case .repeated(let byte, let count): [UInt8](repeating: byte, count: count)
            }
        }
    }

    /// Calls `body` with consecutive pieces of at most `chunk` bytes, up to
    /// `limit` bytes in all; stops early and returns false when `body` does.
    func forEachChunk(limit: Int, chunk: Int, _ body: ([UInt8]) -> Bool) -> Bool {
        var left = limit
        for segment in segments where left > 0 {
            switch segment {
            case .bytes(let bytes):
                var offset = 0
                while offset < bytes.count, left > 0 {
                    let size = min(chunk, bytes.count - offset, left)
                    guard body(Array(bytes[offset..<(offset + size)])) else { return false }
                    offset += size
                    left -= size
                }
            case .repeated(let byte, let count):
                var remaining = min(count, left)
                left -= remaining
                let full = [UInt8](repeating: byte, count: min(chunk, remaining))
                while remaining > 0 {
                    let size = min(chunk, remaining)
                    guard body(size == full.count ? full : Array(full[..<size])) else { return false }
                    remaining -= size
                }
            }
        }
        return true
    }
}
