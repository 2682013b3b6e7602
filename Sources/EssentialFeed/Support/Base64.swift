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

    /// Appends `bytes`, encoded with padding, to `out`, written straight
    /// into the array's new room: `Array.append(contentsOf:)` hands a
    /// sequence's `_copyContents` the room past its last element, so no
    /// byte is zeroed or copied first. An image's body is written this way
    /// into its record. Made as a string first (and then escaped), it took
    /// 35% of feed-fetch's time for 100 images of 200 KiB from nginx; a
    /// character at a time from a 64-entry table, 30%; through a block on
    /// the stack appended when full, 29% with the block's copy, which this
    /// saves: 300 images from nginx in 0.96x that time, with 0.94x the CPU
    /// (farm-bench, 21 pairs).
    public static func append(_ bytes: [UInt8], to out: inout [UInt8]) {
        bytes.withUnsafeBytes { append($0, to: &out) }
    }

    /// Appends the bytes of `input`, encoded with padding, to `out`.
    public static func append(_ input: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(contentsOf: Encoding(input: input))
    }

    /// The encoding of `input` as a sequence that writes itself into the
    /// room it is given (used only within `append`, while `input` lives).
    private struct Encoding: Sequence {
        let input: UnsafeRawBufferPointer

        var underestimatedCount: Int { encodedCount(input.count) }

        func makeIterator() -> IndexingIterator<[UInt8]> {
            let made = [UInt8](unsafeUninitializedCapacity: underestimatedCount) { room, initialized in
                initialized = encode(input, into: UnsafeMutableRawBufferPointer(room))
            }
            return made.makeIterator()
        }

        func _copyContents(initializing room: UnsafeMutableBufferPointer<UInt8>) -> (IndexingIterator<[UInt8]>, Int) {
            // Array's append reserves `underestimatedCount` first, then gives all the room it has.
            precondition(room.count >= underestimatedCount, "Base64.Encoding is for Array.append(contentsOf:) only")
            return ([UInt8]().makeIterator(), encode(input, into: UnsafeMutableRawBufferPointer(room)))
        }
    }

    /// Writes `input` encoded with padding at the start of `output` (room
    /// for `encodedCount(input.count)` bytes at least) and returns how many
    /// bytes it wrote: six input bytes at a time (an 8-byte load, four
    /// lookups of 12 bits, an 8-byte store), four times a turn.
    private static func encode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
        pairs.withUnsafeBufferPointer { pairs in
            let count = input.count
            var i = 0, o = 0
            @inline(__always) func pair(_ bits: UInt64) -> UInt64 { UInt64(pairs[Int(truncatingIfNeeded: bits & 0xFFF)]) }
            @inline(__always) func text(_ six: UInt64) -> UInt64 {
                (pair(six >> 52) | pair(six >> 40) << 16 | pair(six >> 28) << 32 | pair(six >> 16) << 48).littleEndian
            }
            @inline(__always) func load(_ at: Int) -> UInt64 { UInt64(bigEndian: input.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            while i + 26 <= count {
                output.storeBytes(of: text(load(i)), toByteOffset: o, as: UInt64.self)
                output.storeBytes(of: text(load(i + 6)), toByteOffset: o + 8, as: UInt64.self)
                output.storeBytes(of: text(load(i + 12)), toByteOffset: o + 16, as: UInt64.self)
                output.storeBytes(of: text(load(i + 18)), toByteOffset: o + 24, as: UInt64.self)
                i += 24
                o += 32
            }
            while i + 8 <= count {
                output.storeBytes(of: text(load(i)), toByteOffset: o, as: UInt64.self)
                i += 6
                o += 8
            }
            while i + 3 <= count {
                let chunk = UInt64(input[i]) << 16 | UInt64(input[i + 1]) << 8 | UInt64(input[i + 2])
                let text = UInt32(truncatingIfNeeded: pair(chunk >> 12) | pair(chunk) << 16)
                output.storeBytes(of: text.littleEndian, toByteOffset: o, as: UInt32.self)
                i += 3
                o += 4
            }
            let left = count - i
            if left > 0 {
                let chunk = UInt64(input[i]) << 16 | (left > 1 ? UInt64(input[i + 1]) << 8 : 0)
                let text = pair(chunk >> 12) | pair(chunk) << 16
                output[o] = UInt8(truncatingIfNeeded: text)
                output[o + 1] = UInt8(truncatingIfNeeded: text >> 8)
                output[o + 2] = left > 1 ? UInt8(truncatingIfNeeded: text >> 16) : UInt8(ascii: "=")
                output[o + 3] = UInt8(ascii: "=")
                o += 4
            }
            return o
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
