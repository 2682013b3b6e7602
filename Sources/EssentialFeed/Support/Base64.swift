/// Base64 without Foundation's JSON stack (RFC 4648, padding optional).
public enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes `bytes` with padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        append(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The length of `count` bytes once encoded, with padding.
    public static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Two characters for every 12 bits, as they lie in memory (the first
    /// in the low byte): 8 KiB, in the first-level cache.
    private static let pairs: [UInt16] = (0..<4096).map { UInt16(alphabet[$0 >> 6]) | UInt16(alphabet[$0 & 0x3F]) << 8 }

    /// Appends `bytes`, encoded with padding, to `out`: six bytes at a time
    /// (one 8-byte load, four lookups of 12 bits, one 8-byte store) into a
    /// block of 4 KiB on the stack, appended when full, so the record's
    /// memory is written once. An image's body is written this way into its
    /// record: made as a string first (and then escaped), it took 35% of
    /// feed-fetch's time for 100 images of 200 KiB from nginx; a character
    /// at a time from a 64-entry table, into room zeroed first, 30%.
    public static func append(_ bytes: [UInt8], to out: inout [UInt8]) {
        out.reserveCapacity(out.count + encodedCount(bytes.count))
        let block = 4096
        withUnsafeTemporaryAllocation(byteCount: block, alignment: 8) { output in
            pairs.withUnsafeBufferPointer { pairs in
                bytes.withUnsafeBytes { input in
                    let count = input.count
                    var i = 0, o = 0
                    func pair(_ bits: UInt64) -> UInt64 { UInt64(pairs[Int(truncatingIfNeeded: bits & 0xFFF)]) }
                    func emptyBlock() {
                        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: output[..<o]))
                        o = 0
                    }
                    // Twelve bytes a turn (two loads, two stores), then six.
                    while i + 14 <= count {
                        let first = UInt64(bigEndian: input.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                        let second = UInt64(bigEndian: input.loadUnaligned(fromByteOffset: i + 6, as: UInt64.self))
                        let text1 = pair(first >> 52) | pair(first >> 40) << 16 | pair(first >> 28) << 32 | pair(first >> 16) << 48
                        let text2 = pair(second >> 52) | pair(second >> 40) << 16 | pair(second >> 28) << 32 | pair(second >> 16) << 48
                        output.storeBytes(of: text1.littleEndian, toByteOffset: o, as: UInt64.self)
                        output.storeBytes(of: text2.littleEndian, toByteOffset: o + 8, as: UInt64.self)
                        i += 12
                        o += 16
                        if o == block { emptyBlock() }
                    }
                    while i + 8 <= count {
                        if o + 8 > block { emptyBlock() }
                        let chunk = UInt64(bigEndian: input.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                        let text = pair(chunk >> 52) | pair(chunk >> 40) << 16 | pair(chunk >> 28) << 32 | pair(chunk >> 16) << 48
                        output.storeBytes(of: text.littleEndian, toByteOffset: o, as: UInt64.self)
                        i += 6
                        o += 8
                    }
                    while i + 3 <= count {
                        if o + 4 > block { emptyBlock() }
                        let chunk = UInt64(input[i]) << 16 | UInt64(input[i + 1]) << 8 | UInt64(input[i + 2])
                        let text = UInt32(truncatingIfNeeded: pair(chunk >> 12) | pair(chunk) << 16)
                        output.storeBytes(of: text.littleEndian, toByteOffset: o, as: UInt32.self)
                        i += 3
                        o += 4
                    }
                    let left = count - i
                    if left > 0 {
                        if o + 4 > block { emptyBlock() }
                        let chunk = UInt64(input[i]) << 16 | (left > 1 ? UInt64(input[i + 1]) << 8 : 0)
                        let text = pair(chunk >> 12) | pair(chunk) << 16
                        output[o] = UInt8(truncatingIfNeeded: text)
                        output[o + 1] = UInt8(truncatingIfNeeded: text >> 8)
                        output[o + 2] = left > 1 ? UInt8(truncatingIfNeeded: text >> 16) : UInt8(ascii: "=")
                        output[o + 3] = UInt8(ascii: "=")
                        o += 4
                    }
                    emptyBlock()
                }
            }
        }
    }

    public static func decode(_ text: String) -> [UInt8]? {
        decode(Array(text.utf8))
    }

    /// Decodes base64 text given as UTF-8 bytes.
    public static func decode(_ text: [UInt8]) -> [UInt8]? {
        decode(text[...])
    }

    /// Decodes base64 text given as UTF-8 bytes, where they lie (a record's
    /// line: a large image is not copied as text before it is decoded).
    public static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        var padding = 0
        for c in text {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a") + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0") + 52)
            case UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "/"): v = 63
            case UInt8(ascii: "="): padding += 1; continue
            default: return nil
            }
            guard padding == 0 else { return nil }
            accumulator = accumulator << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((accumulator >> UInt32(bits)) & 0xFF))
            }
        }
        // As strict as Foundation's default: whole quanta of four characters.
        guard padding <= 2, text.count % 4 == 0 else { return nil }
        return out
    }
}
