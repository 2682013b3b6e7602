/// Drops the blanks between the tokens of JSON text already known valid,
/// handed over in pieces of any size: what `JSONWriter` writes for a
/// document's value (its source bytes, escapes and number text kept), for a
/// document too large to hold. Pieces go out as runs of the input, so a
/// compact document is copied as it stands.
public struct JSONCompactor {
    private var inString = false
    private var escaped = false

    public init() {}

    /// Calls `emit` with the runs of `input` that stay.
    public mutating func compact(_ input: UnsafeRawBufferPointer, _ emit: (UnsafeRawBufferPointer) -> Void) {
        guard let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let n = input.count
        var i = 0
        var runStart = 0
        while i < n {
            if inString {
                if escaped {
                    escaped = false
                    i += 1
                    continue
                }
                // To the next quote or backslash.
                i = Self.nextQuoteOrBackslash(base, i, n)
                guard i < n else { break }
                if base[i] == UInt8(ascii: "\\") { escaped = true } else { inString = false }
                i += 1
            } else {
                let c = base[i]
                if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                    if i > runStart { emit(UnsafeRawBufferPointer(start: base + runStart, count: i - runStart)) }
                    i += 1
                    while i < n, base[i] == 0x20 || base[i] == 0x0A || base[i] == 0x0D || base[i] == 0x09 { i += 1 }
                    runStart = i
                    continue
                }
                if c == UInt8(ascii: "\"") { inString = true }
                i += 1
            }
        }
        if n > runStart { emit(UnsafeRawBufferPointer(start: base + runStart, count: n - runStart)) }
    }

    /// The index of the next `"` or `\` from `i`, or `n`: eight bytes at a time.
    @inline(__always)
    private static func nextQuoteOrBackslash(_ b: UnsafePointer<UInt8>, _ from: Int, _ n: Int) -> Int {
        var i = from
        let ones: UInt64 = 0x0101_0101_0101_0101
        let raw = UnsafeRawPointer(b)
        while i + 8 <= n {
            let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let quote = x ^ (ones &* 0x22)
            let slash = x ^ (ones &* 0x5C)
            let found = (((quote &- ones) & ~quote) | ((slash &- ones) & ~slash)) & (ones &* 0x80)
            if found != 0 { return i + found.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < n, b[i] != UInt8(ascii: "\"") && b[i] != UInt8(ascii: "\\") { i += 1 }
        return i
    }
}
