/// A member name as `JSONFlatObjectScanner` found it: its bytes in the
/// buffer and its first sixteen bytes as two little-endian words (zero past
/// the name's end), so that a visitor tells a name it knows by its length
/// and a compare or two.
struct JSONName {
    let bytes: UnsafeBufferPointer<UInt8>
    let word0: UInt64
    let word1: UInt64

    @inline(__always)
    init(bytes: UnsafeBufferPointer<UInt8>, word0: UInt64, word1: UInt64) {
        self.bytes = bytes
        self.word0 = word0
        self.word1 = word1
    }

    /// The name from `start` to `end` in a buffer of `n` bytes at `b`.
    @inline(__always)
    init(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ n: Int) {
        let count = end - start
        bytes = UnsafeBufferPointer(start: b + start, count: count)
        var w0: UInt64 = 0, w1: UInt64 = 0
        if start + 16 <= n {
            let raw = UnsafeRawPointer(b + start)
            w0 = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            w1 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            if count < 8 {
                w0 &= (1 &<< UInt64(8 * count)) &- 1
                w1 = 0
            } else if count < 16 {
                w1 &= (1 &<< UInt64(8 * (count - 8))) &- 1
            }
        } else {
            for i in 0..<min(count, 8) { w0 |= UInt64(b[start + i]) << UInt64(8 * i) }
            if count > 8 { for i in 8..<min(count, 16) { w1 |= UInt64(b[start + i]) << UInt64(8 * (i - 8)) } }
        }
        word0 = w0
        word1 = w1
    }
}
