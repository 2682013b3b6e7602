/// The quick way through an array of flat objects, for `JSONStreamReader`:
/// whole objects read straight from the reader's buffer, with plain
/// (unescaped) member names and scalar values, or objects of such members
/// one level down when the nesting limit allows, their members handed to a
/// visitor located, not copied.
///
/// It takes only what it fully checks by the reader's own rules, and stops
/// before anything else (the buffer's end, an array value, an escaped name,
/// invalid JSON, an object the visitor leaves) for the reader's general
/// methods, which read and report it exactly. It never moves the reader: it
/// tells the reader how far it read.
///
/// Its string, number and literal loops are its own, beside the stream
/// reader's: they scan a whole buffer eight and sixteen bytes at a time with
/// no refill or error path, which took the mappers from 36.8 to 10.5
/// instructions per byte (callgrind); the pieces of the grammar that are
/// rules rather than loops (UTF-8 sequence shapes, escapes, `\u` digits,
/// numbers) are `JSONEscapes`', shared. Owning the cursor here rather than
/// in the mapper's own scanner costs feed-map 11.5 → 12.7 and comments-map
/// 11.8 → 13.1 instructions per byte (callgrind, 100k items), the price of
/// the reader validating every name it hands over.
struct JSONFlatObjectScanner {
    /// Whether newlines are blanks (a whole document) or end the line.
    let multiline: Bool
    /// Whether an object's member may itself be an object (of scalars).
    let nesting: Bool
    /// Whether a blank was skipped between tokens (the text is not compact).
    private(set) var sawBlank = false

    /// Reads the objects at the start of `buffer`, elements of an array
    /// (`first` when it has had none yet), until the visitor is full or an
    /// object is not taken; returns the bytes and objects read.
    @inline(__always)
    mutating func run<Visitor: JSONFlatObjectVisitor>(_ buffer: UnsafeBufferPointer<UInt8>, first: Bool, _ visitor: inout Visitor) -> (read: Int, elements: Int) {
        guard let b = buffer.baseAddress else { return (0, 0) }
        let n = buffer.count
        var read = 0
        var elements = 0
        var needComma = !first
        while !visitor.isFull {
            var j = read
            guard skipBlanks(b, &j, n) else { break }
            if needComma {
                guard b[j] == UInt8(ascii: ",") else { break }
                j += 1
                guard skipBlanks(b, &j, n) else { break }
            }
            guard b[j] == UInt8(ascii: "{") else { break }
            visitor.begin()
            guard let end = object(b, j + 1, n, nested: false, &visitor), visitor.end() else { break }
            read = end
            elements += 1
            needComma = true
        }
        return (read, elements)
    }

    /// Reads the members of an object from `from` (after its `{`); returns
    /// the index after its `}`, or nil. Members of a nested object
    /// (`nested`) are scalars only.
    @inline(__always)
    private mutating func object<Visitor: JSONFlatObjectVisitor>(_ b: UnsafePointer<UInt8>, _ from: Int, _ n: Int, nested: Bool, _ visitor: inout Visitor) -> Int? {
        var j = from
        guard skipBlanks(b, &j, n) else { return nil }
        if b[j] == UInt8(ascii: "}") { return j + 1 }
        while true {
            guard b[j] == UInt8(ascii: "\"") else { return nil }
            guard let (name, close) = Self.name(b, j + 1, n) else { return nil }
            j = close + 1
            guard skipBlanks(b, &j, n), b[j] == UInt8(ascii: ":") else { return nil }
            j += 1
            guard skipBlanks(b, &j, n) else { return nil }
            if b[j] == UInt8(ascii: "{") {
                guard !nested, nesting, visitor.enterObject(name),
                      let after = innerObject(b, j + 1, n, &visitor) else { return nil }
                j = after
            } else {
                guard let (value, after) = Self.scalar(b, j, n) else { return nil }
                visitor.member(name, value, nested: nested)
                j = after
            }
            guard skipBlanks(b, &j, n) else { return nil }
            if b[j] == UInt8(ascii: ",") {
                j += 1
                guard skipBlanks(b, &j, n) else { return nil }
                continue
            }
            guard b[j] == UInt8(ascii: "}") else { return nil }
            return j + 1
        }
    }

    /// An object one level down: the same loop, with scalar members only
    /// (written apart so that the outer loop is not recursive and inlines).
    @inline(never)
    private mutating func innerObject<Visitor: JSONFlatObjectVisitor>(_ b: UnsafePointer<UInt8>, _ from: Int, _ n: Int, _ visitor: inout Visitor) -> Int? {
        object(b, from, n, nested: true, &visitor)
    }

    @inline(__always)
    private mutating func skipBlanks(_ b: UnsafePointer<UInt8>, _ j: inout Int, _ n: Int) -> Bool {
        while j < n {
            let c = b[j]
            if c > 0x20 { return true }
            if c == 0x20 || c == 0x09 || c == 0x0D || (multiline && c == 0x0A) {
                j += 1
                sawBlank = true
            } else {
                return false
            }
        }
        return false
    }

    /// Eight bytes' flags (0x80 in each byte) for a quote, a backslash, a
    /// control character or a non-ASCII byte; the lowest flag is exact.
    @inline(__always)
    private static func special(_ x: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = x ^ (ones &* 0x22)
        let slash = x ^ (ones &* 0x5C)
        // (x - 0x20) | x: a byte below 0x20 or from 0x80 (a borrow only
        // ever comes from a flagged byte below, so the lowest flag is exact).
        return ((x &- ones &* 0x20) | x | ((quote &- ones) & ~quote) | ((slash &- ones) & ~slash)) & 0x8080_8080_8080_8080
    }

    /// Scans a member name from `start` (after its opening quote): the name
    /// and the index of its closing quote, or nil when it is escaped,
    /// invalid or runs past the buffer. A plain name shorter than sixteen
    /// bytes, as item names are, is told from the same two loads that find
    /// its end.
    @inline(__always)
    static func name(_ b: UnsafePointer<UInt8>, _ start: Int, _ n: Int) -> (JSONName, Int)? {
        if start + 16 <= n {
            let raw = UnsafeRawPointer(b + start)
            let x = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            let y = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            let sx = special(x)
            if sx != 0 {
                let k = sx.trailingZeroBitCount >> 3
                if b[start + k] == UInt8(ascii: "\"") {
                    let bytes = UnsafeBufferPointer(start: b + start, count: k)
                    return (JSONName(bytes: bytes, word0: x & ((1 &<< UInt64(8 * k)) &- 1), word1: 0), start + k)
                }
            } else {
                let sy = special(y)
                let k = sy.trailingZeroBitCount >> 3
                if sy != 0, b[start + 8 + k] == UInt8(ascii: "\"") {
                    let bytes = UnsafeBufferPointer(start: b + start, count: 8 + k)
                    return (JSONName(bytes: bytes, word0: x, word1: y & ((1 &<< UInt64(8 * k)) &- 1)), start + 8 + k)
                }
            }
        }
        var escaped = false
        guard let close = string(b, start, n, &escaped), !escaped else { return nil }
        return (JSONName(b, start, close, n), close)
    }

    /// Scans string content from `from` (after the opening quote); returns
    /// the index of the closing quote, or nil when the string is invalid or
    /// runs past the buffer.
    @inline(__always)
    static func string(_ b: UnsafePointer<UInt8>, _ from: Int, _ n: Int, _ escaped: inout Bool) -> Int? {
        var i = from
        let raw = UnsafeRawPointer(b)
        while true {
            // Eight bytes at a time up to a special byte.
            scan: do {
                while i + 16 <= n {
                    let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    let y = raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
                    let sx = special(x), sy = special(y)
                    if sx | sy != 0 {
                        i += sx != 0 ? sx.trailingZeroBitCount >> 3 : 8 + sy.trailingZeroBitCount >> 3
                        break scan
                    }
                    i += 16
                }
                if i + 8 <= n {
                    let sx = special(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                    i += sx != 0 ? sx.trailingZeroBitCount >> 3 : 8
                }
            }
            guard i < n else { return nil }
            let c = b[i]
            if c == UInt8(ascii: "\"") { return i }
            if c >= 0x80 {
                let length = JSONEscapes.utf8SequenceLength(b, i, n)
                guard length > 0 else { return nil }
                i += length
            } else if c == UInt8(ascii: "\\") {
                guard i + 1 < n else { return nil }
                escaped = true
                switch b[i + 1] {
                case _ where JSONEscapes.shortEscapeValue(b[i + 1]) != nil:
                    i += 2
                case UInt8(ascii: "u"):
                    guard i + 6 <= n else { return nil }
                    let unit = JSONEscapes.hex4(b, i + 2)  // negative when not hex
                    guard unit >= 0, unit < 0xDC00 || unit >= 0xE000 else { return nil }
                    if unit >= 0xD800 && unit < 0xDC00 {
                        guard i + 12 <= n, b[i + 6] == UInt8(ascii: "\\"), b[i + 7] == UInt8(ascii: "u") else { return nil }
                        let low = JSONEscapes.hex4(b, i + 8)
                        guard low >= 0xDC00, low < 0xE000 else { return nil }
                        i += 12
                    } else {
                        i += 6
                    }
                default:
                    return nil
                }
            } else if c < 0x20 {
                return nil
            } else {
                i += 1  // a plain byte in the last few of the buffer
            }
        }
    }

    /// Reads a scalar value at `j`: the value and the index after it, or
    /// nil (a container, invalid, or the buffer's end).
    @inline(__always)
    static func scalar(_ b: UnsafePointer<UInt8>, _ j: Int, _ n: Int) -> (JSONScalar, Int)? {
        switch b[j] {
        case UInt8(ascii: "\""):
            var escaped = false
            guard let close = string(b, j + 1, n, &escaped) else { return nil }
            return (JSONScalar(kind: .string, bytes: UnsafeBufferPointer(start: b + j + 1, count: close - j - 1), escaped: escaped), close + 1)
        case UInt8(ascii: "n"):
            guard j + 4 <= n, b[j + 1] == UInt8(ascii: "u"), b[j + 2] == UInt8(ascii: "l"), b[j + 3] == UInt8(ascii: "l") else { return nil }
            return (JSONScalar(kind: .null), j + 4)
        case UInt8(ascii: "t"):
            guard j + 4 <= n, b[j + 1] == UInt8(ascii: "r"), b[j + 2] == UInt8(ascii: "u"), b[j + 3] == UInt8(ascii: "e") else { return nil }
            return (JSONScalar(kind: .bool), j + 4)
        case UInt8(ascii: "f"):
            guard j + 5 <= n, b[j + 1] == UInt8(ascii: "a"), b[j + 2] == UInt8(ascii: "l"), b[j + 3] == UInt8(ascii: "s"),
                  b[j + 4] == UInt8(ascii: "e") else { return nil }
            return (JSONScalar(kind: .bool), j + 5)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            // A number that reaches the buffer's end may go on past it.
            let (after, fault) = JSONEscapes.scanNumber(b, j, n)
            guard fault == nil, after < n else { return nil }
            return (JSONScalar(kind: .number), after)
        default:
            return nil
        }
    }
}
