/// Whether bytes are UTF-8 text (RFC 3629), by the rule the JSON readers
/// check: for text a store lends, which SQLite keeps as it was given.
public enum UTF8Text {
    public static func isValid(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = s.baseAddress else { return true }
        let raw = UnsafeRawPointer(p)
        let n = s.count
        var i = 0
        while true {
            // Sixteen, then eight bytes at a time up to one from 0x80, where a sequence starts.
            while i + 16 <= n,
                  (raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)) & 0x8080_8080_8080_8080 == 0 {
                i += 16
            }
            while i + 8 <= n {
                let high = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080
                if high != 0 {
                    i += high.trailingZeroBitCount >> 3
                    break
                }
                i += 8
            }
            while i < n, p[i] < 0x80 { i += 1 }
            guard i < n else { return true }
            let length = JSONEscapes.utf8SequenceLength(p, i, n)
            guard length > 0 else { return false }
            i += length
        }
    }

    public static func isValid(_ s: UnsafeBufferPointer<UInt8>?) -> Bool {
        s.map(isValid) ?? true
    }
}
