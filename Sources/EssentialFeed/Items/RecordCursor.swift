/// Writes a record's bytes through a pointer into room already reserved:
/// fixed text, an upper-cased UUID and string content in `JSONWriter`'s form.
struct RecordCursor {
    private(set) var pointer: UnsafeMutablePointer<UInt8>

    init(_ pointer: UnsafeMutablePointer<UInt8>) {
        self.pointer = pointer
    }

    @inline(__always)
    mutating func put(_ text: StaticString) {
        pointer.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        pointer += text.utf8CodeUnitCount
    }

    @inline(__always)
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        pointer.update(from: base, count: bytes.count)
        pointer += bytes.count
    }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        pointer.pointee = byte
        pointer += 1
    }

    /// The 36 bytes of a checked UUID with its hex letters in upper case.
    @inline(__always)
    mutating func putUppercasedUUID(_ uuid: UnsafeBufferPointer<UInt8>) {
        let w = pointer
        w.update(from: uuid.baseAddress!, count: 36)
        // Hex letters only: each byte at or above "a" loses 0x20, eight at a time.
        let raw = UnsafeMutableRawPointer(w)
        let ones: UInt64 = 0x0101_0101_0101_0101
        for k in stride(from: 0, to: 32, by: 8) {
            let x = raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)
            let lower = ((x &+ ones &* 0x1F) & (ones &* 0x80)) >> 2
            raw.storeBytes(of: x &- lower, toByteOffset: k, as: UInt64.self)
        }
        for k in 32..<36 where w[k] >= UInt8(ascii: "a") { w[k] &-= 0x20 }
        pointer += 36
    }

    /// String content as `JSONWriter` writes the decoded text: the source
    /// bytes when they hold no escape (then nothing in them needs one), else
    /// each escape rewritten in the writer's form. Never longer than the source.
    @inline(__always)
    mutating func putContent(_ field: ItemField) {
        if field.escaped {
            rewriteEscapes(field.bytes)
        } else {
            put(field.bytes)
        }
    }

    private mutating func rewriteEscapes(_ source: UnsafeBufferPointer<UInt8>) {
        let b = source.baseAddress!
        let end = source.count
        var i = 0
        while i < end {
            // The run up to the next backslash, as it is.
            var k = i
            let ones: UInt64 = 0x0101_0101_0101_0101
            while k + 8 <= end {
                let slash = UnsafeRawPointer(b).loadUnaligned(fromByteOffset: k, as: UInt64.self) ^ (ones &* 0x5C)
                let found = (slash &- ones) & ~slash & (ones &* 0x80)
                if found != 0 {
                    k += found.trailingZeroBitCount >> 3
                    break
                }
                k += 8
            }
            while k < end, b[k] != UInt8(ascii: "\\") { k += 1 }
            if k > i {
                put(UnsafeBufferPointer(start: b + i, count: k - i))
                i = k
                if i == end { break }
            }
            let e = b[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "/"):
                put(e)
            case UInt8(ascii: "u"):
                var scalar = UInt32(JSONEscapes.hex4(b, i))
                i += 4
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    let low = UInt32(JSONEscapes.hex4(b, i + 2))
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                putEscaped(scalar)
            default:  // " \ b f n r t: the writer's own escapes
                put(UInt8(ascii: "\\"))
                put(e)
            }
        }
    }

    /// One decoded scalar, escaped as `JSONWriter.appendEscaped` escapes it.
    @inline(__always)
    private mutating func putEscaped(_ v: UInt32) {
        if let short = JSONWriter.shortEscape(v) {
            put(UInt8(ascii: "\\"))
            put(short)
        } else if v < 0x20 {
            let hex: StaticString = "0123456789abcdef"
            let h = hex.utf8Start
            put("\\u00")
            put(h[Int(v >> 4)])
            put(h[Int(v & 0xF)])
        } else {
            pointer += JSONEscapes.encodeUTF8(v, to: pointer)
        }
    }
}
