enum JSONEscapes {
    /// The integer written by `text` (an optional minus and digits only),
    /// when it fits in `Int`.
    static func integer(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        var negative = false
        if text.first == UInt8(ascii: "-") { negative = true; i = 1 }
        guard i < text.count else { return nil }
        var value = 0
        while i < text.count {
            let d = text[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(Int(d)) : m.addingReportingOverflow(Int(d))
            guard !o1, !o2 else { return nil }
            value = s
            i += 1
        }
        return value
    }

    /// The shape of a UTF-8 sequence led by `lead` (RFC 3629): how many
    /// continuation bytes follow, and the range the first of them must lie
    /// in (the others lie in 0x80...0xBF). Nil for a byte that cannot lead.
    @inline(__always)
    static func utf8Sequence(_ lead: UInt8) -> (continuations: Int, low: UInt8, high: UInt8)? {
        switch lead {
        case 0xC2...0xDF: return (1, 0x80, 0xBF)
        case 0xE0: return (2, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE, 0xEF: return (2, 0x80, 0xBF)
        case 0xED: return (2, 0x80, 0x9F)
        case 0xF0: return (3, 0x90, 0xBF)
        case 0xF1...0xF3: return (3, 0x80, 0xBF)
        case 0xF4: return (3, 0x80, 0x8F)
        default: return nil
        }
    }

    /// The length of the UTF-8 sequence whose lead byte (0x80 or above) is
    /// `p[i]`, checked against RFC 3629 within `p[i..<n]`: 2 to 4; 0 when
    /// the byte cannot lead; -1 when what follows is not its continuation
    /// (or is cut off at `n`). The one check of the tape parser, the stream
    /// reader and the fast path.
    @inline(__always)
    static func utf8SequenceLength(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Int {
        guard let (continuations, low, high) = utf8Sequence(p[i]) else { return 0 }
        guard i + continuations < n else { return -1 }
        let c1 = p[i + 1]
        guard c1 >= low, c1 <= high else { return -1 }
        if continuations > 1 {
            guard p[i + 2] & 0xC0 == 0x80 else { return -1 }
            if continuations > 2 { guard p[i + 3] & 0xC0 == 0x80 else { return -1 } }
        }
        return continuations + 1
    }

    /// Scans the number at `p[i]` (a `-` or a digit) within `p[i..<n]`:
    /// returns the index after it, or the index of the fault and the fault
    /// (RFC 8259: no leading zero, digits after `.` and in an exponent). The
    /// number rule of the tape parser and the fast path; the stream reader,
    /// which may need a refill at any byte, walks the same rule itself.
    @inline(__always)
    static func scanNumber(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> (end: Int, fault: JSONFault?) {
        var j = i
        @inline(__always) func digit(_ k: Int) -> Bool { k < n && p[k] &- UInt8(ascii: "0") < 10 }
        if p[j] == UInt8(ascii: "-") { j += 1 }
        guard j < n else { return (j, .expectedDigit) }
        if p[j] == UInt8(ascii: "0") {
            j += 1
            if digit(j) { return (j, .leadingZero) }
        } else if digit(j) {
            while digit(j) { j += 1 }
        } else {
            return (j, .expectedDigit)
        }
        if j < n, p[j] == UInt8(ascii: ".") {
            j += 1
            guard digit(j) else { return (j, .expectedFractionDigit) }
            while digit(j) { j += 1 }
        }
        if j < n, p[j] | 0x20 == UInt8(ascii: "e") {
            j += 1
            if j < n, p[j] == UInt8(ascii: "+") || p[j] == UInt8(ascii: "-") { j += 1 }
            guard digit(j) else { return (j, .expectedExponentDigit) }
            while digit(j) { j += 1 }
        }
        return (j, nil)
    }

    /// Decodes the validated escaped content `bytes[start..<end]` of a string.
    static func unescape(_ bytes: [UInt8], _ start: Int, _ end: Int, into out: inout [UInt8]) {
        guard start < end else { return }
        bytes.withUnsafeBufferPointer { unescape($0.baseAddress!, start, end, into: &out) }
    }

    /// Decodes the validated escaped content `bytes[start..<end]` of a string.
    static func unescape(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int, into out: inout [UInt8]) {
        var i = start
        while i < end {
            let b = bytes[i]
            guard b == UInt8(ascii: "\\") else { out.append(b); i += 1; continue }
            let e = bytes[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "u"):
                var scalar = hex4(bytes, i)
                i += 4
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    // Validation guarantees a low surrogate escape follows.
                    let low = hex4(bytes, i + 2)
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(UInt32(scalar), to: &out)
            default: out.append(shortEscapeValue(e) ?? e)  // validated: one of the short escapes
            }
        }
    }

    /// The byte a two-character escape `\e` stands for (`"` `\` `/` `b` `f`
    /// `n` `r` `t`); nil for any other `e` (`u` included).
    @inline(__always)
    static func shortEscapeValue(_ e: UInt8) -> UInt8? {
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): e
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// The value of the four hex digits at `bytes[i]`; negative when one is not hex.
    @inline(__always)
    static func hex4(_ bytes: UnsafePointer<UInt8>, _ i: Int) -> Int {
        var v = 0
        for k in 0..<4 { v = v << 4 | hexValue(bytes[i + k]) }
        return v
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> Int {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(c - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(c - UInt8(ascii: "A") + 10)
        default: return -1
        }
    }

    static func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4) { room in
            let count = encodeUTF8(v, to: room.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: room[0..<count]))
        }
    }

    /// Writes the UTF-8 encoding of scalar `v` at `w`; returns its length (1 to 4).
    @inline(__always)
    static func encodeUTF8(_ v: UInt32, to w: UnsafeMutablePointer<UInt8>) -> Int {
        switch v {
        case 0..<0x80:
            w[0] = UInt8(v)
            return 1
        case 0x80..<0x800:
            w[0] = UInt8(0xC0 | (v >> 6)); w[1] = UInt8(0x80 | (v & 0x3F))
            return 2
        case 0x800..<0x10000:
            w[0] = UInt8(0xE0 | (v >> 12)); w[1] = UInt8(0x80 | ((v >> 6) & 0x3F)); w[2] = UInt8(0x80 | (v & 0x3F))
            return 3
        default:
            w[0] = UInt8(0xF0 | (v >> 18)); w[1] = UInt8(0x80 | ((v >> 12) & 0x3F))
            w[2] = UInt8(0x80 | ((v >> 6) & 0x3F)); w[3] = UInt8(0x80 | (v & 0x3F))
            return 4
        }
    }
}
