/// The quick way through an items array: items read straight from the
/// stream reader's buffer, their fields located without being copied, and
/// each record written at once into the mapper's record buffer, string
/// content copied as it stands when it needs no escape changed.
///
/// It takes only what it can fully check: an item object lying whole in the
/// buffer, with plain keys and scalar values (and, for comments, an `author`
/// object of scalars), valid JSON by the reader's own rules, that the mapper
/// accepts. At anything else (the buffer's end, a nested array, an escaped
/// key, invalid JSON, an item the mapper rejects) it stops before that item
/// and leaves it to the general path, which reads and reports it exactly.
///
/// Its string, number and literal scanners stay its own, beside the
/// stream reader's: they scan a whole buffer eight and sixteen bytes at a
/// time with no refill or error path, which took the mappers from 36.8 to
/// 10.5 instructions per byte (callgrind); the pieces of the grammar that
/// are rules rather than loops (UTF-8 sequence shapes, `\u` digits, the
/// item names, the item rules) are `JSONEscapes`', `MemberName`'s and the
/// rules' own, shared.
struct FastItems {
    let comments: Bool
    /// Whether newlines are blanks (a whole document) or end the line.
    var multiline: Bool
    /// The rules items are checked against and written by.
    private var feedRule = FeedItemRule()
    private var commentRule = ImageCommentRule()

    init(comments: Bool, multiline: Bool) {
        self.comments = comments
        self.multiline = multiline
    }

    /// Maps the items at the start of `buffer` until `records` holds
    /// `limit` bytes; returns the bytes and items read.
    mutating func run(_ buffer: UnsafeBufferPointer<UInt8>, first: Bool, into records: RecordBuffer, limit: Int) -> (read: Int, elements: Int) {
        guard let b = buffer.baseAddress else { return (0, 0) }
        let n = buffer.count
        var read = 0
        var elements = 0
        var needComma = !first
        while records.count < limit {
            var j = read
            guard skipBlanks(b, &j, n) else { break }
            if needComma {
                guard b[j] == UInt8(ascii: ",") else { break }
                j += 1
                guard skipBlanks(b, &j, n) else { break }
            }
            guard b[j] == UInt8(ascii: "{") else { break }
            guard let end = item(b, j + 1, n, into: records) else { break }
            read = end
            elements += 1
            needComma = true
        }
        return (read, elements)
    }

    // MARK: Scanning

    @inline(__always)
    private func skipBlanks(_ b: UnsafePointer<UInt8>, _ j: inout Int, _ n: Int) -> Bool {
        while j < n {
            let c = b[j]
            if c > 0x20 { return true }
            if c == 0x20 || c == 0x09 || c == 0x0D || (multiline && c == 0x0A) { j += 1 } else { return false }
        }
        return false
    }

    /// Scans string content from `i` (after the opening quote); returns the
    /// index of the closing quote, or nil when the string is invalid or runs
    /// past the buffer.
    @inline(__always)
    private static func string(_ b: UnsafePointer<UInt8>, _ from: Int, _ n: Int, _ escaped: inout Bool) -> Int? {
        var i = from
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let raw = UnsafeRawPointer(b)
        while true {
            // Eight bytes at a time up to a quote, a backslash, a control
            // character or a non-ASCII byte; the lowest flag is exact.
            @inline(__always) func special(_ x: UInt64) -> UInt64 {
                let quote = x ^ (ones &* 0x22)
                let slash = x ^ (ones &* 0x5C)
                // (x - 0x20) | x: a byte below 0x20 or from 0x80 (a borrow only
                // ever comes from a flagged byte below, so the lowest flag is exact).
                return ((x &- ones &* 0x20) | x | ((quote &- ones) & ~quote) | ((slash &- ones) & ~slash)) & highs
            }
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

    /// Reads a scalar value at `j` into `field`; returns the index after it,
    /// or nil (a container, invalid, or the buffer's end).
    @inline(__always)
    private static func scalar(_ b: UnsafePointer<UInt8>, _ j: Int, _ n: Int, _ field: inout ItemField) -> Int? {
        switch b[j] {
        case UInt8(ascii: "\""):
            var escaped = false
            guard let close = string(b, j + 1, n, &escaped) else { return nil }
            field = ItemField(kind: .string, bytes: UnsafeBufferPointer(start: b + j + 1, count: close - j - 1), escaped: escaped)
            return close + 1
        case UInt8(ascii: "n"):
            guard j + 4 <= n, b[j + 1] == UInt8(ascii: "u"), b[j + 2] == UInt8(ascii: "l"), b[j + 3] == UInt8(ascii: "l") else { return nil }
            field = ItemField(kind: .null)
            return j + 4
        case UInt8(ascii: "t"):
            guard j + 4 <= n, b[j + 1] == UInt8(ascii: "r"), b[j + 2] == UInt8(ascii: "u"), b[j + 3] == UInt8(ascii: "e") else { return nil }
            field = ItemField(kind: .other)
            return j + 4
        case UInt8(ascii: "f"):
            guard j + 5 <= n, b[j + 1] == UInt8(ascii: "a"), b[j + 2] == UInt8(ascii: "l"), b[j + 3] == UInt8(ascii: "s"),
                  b[j + 4] == UInt8(ascii: "e") else { return nil }
            field = ItemField(kind: .other)
            return j + 5
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            // A number that reaches the buffer's end may go on past it.
            let (after, fault) = JSONEscapes.scanNumber(b, j, n)
            guard fault == nil, after < n else { return nil }
            field = ItemField(kind: .other)
            return after
        default:
            return nil
        }
    }

    /// The item names, recognized with their closing quote straight from the
    /// bytes at `start` (after the opening quote): the name and the index of
    /// the closing quote, or nil for any other key (then scanned and told by
    /// `MemberName`). Each constant is the name and its quote as a
    /// little-endian word, the first eight bytes and the next few;
    /// `FastItemsTests` checks each against `MemberName`. Worth its
    /// constants: a key is told in one or two loads and compares, with no
    /// scan for its closing quote.
    @inline(__always)
    static func knownKey(_ b: UnsafePointer<UInt8>, _ start: Int, _ n: Int) -> (MemberName, Int)? {
        guard start + 16 <= n else { return nil }
        let raw = UnsafeRawPointer(b)
        let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt64.self))
        @inline(__always) func next(_ mask: UInt64) -> UInt64 {
            UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self)) & mask
        }
        if w & 0xFF_FFFF == 0x22_6469 { return (.id, start + 2) }                          // id"
        if w & 0xFFFF_FFFF_FFFF == 0x2265_6761_6D69 { return (.image, start + 5) }          // image"
        if w & 0xFF_FFFF_FFFF_FFFF == 0x22_726F_6874_7561 { return (.author, start + 6) }   // author"
        if w == 0x2265_6761_7373_656D { return (.message, start + 7) }                      // message"
        switch w {
        case 0x6E6F_6974_6163_6F6C: return next(0xFF) == 0x22 ? (.location, start + 8) : nil           // location"
        case 0x656D_616E_7265_7375: return next(0xFF) == 0x22 ? (.username, start + 8) : nil           // username"
        case 0x5F64_6574_6165_7263: return next(0xFF_FFFF) == 0x22_7461 ? (.createdAt, start + 10) : nil  // created_at"
        case 0x7470_6972_6373_6564: return next(0xFFFF_FFFF) == 0x226E_6F69 ? (.description, start + 11) : nil  // description"
        default: return nil
        }
    }

    // MARK: Items

    /// Reads the item whose members start at `from` (after its `{`) and
    /// writes its record; returns the index after its `}`, or nil.
    @inline(__always)
    private mutating func item(_ b: UnsafePointer<UInt8>, _ from: Int, _ n: Int, into records: RecordBuffer) -> Int? {
        var id = ItemField(), a = ItemField(), c = ItemField(), d = ItemField()  // feed: image, description, location; comments: message, created_at, username
        var authorIsObject = false
        var j = from
        guard skipBlanks(b, &j, n) else { return nil }
        if b[j] == UInt8(ascii: "}") {
            j += 1
        } else {
            members: while true {
                guard b[j] == UInt8(ascii: "\"") else { return nil }
                let key: MemberName
                if let (known, close) = Self.knownKey(b, j + 1, n) {
                    key = known
                    j = close + 1
                } else {
                    var escapedKey = false
                    guard let close = Self.string(b, j + 1, n, &escapedKey), !escapedKey else { return nil }
                    key = MemberName(UnsafeBufferPointer(start: b + j + 1, count: close - j - 1))
                    j = close + 1
                }
                guard skipBlanks(b, &j, n), b[j] == UInt8(ascii: ":") else { return nil }
                j += 1
                guard skipBlanks(b, &j, n) else { return nil }
                var other = ItemField()
                switch (comments, key) {
                case (_, .id): guard let after = Self.scalar(b, j, n, &id) else { return nil }; j = after
                case (false, .image), (true, .message): guard let after = Self.scalar(b, j, n, &a) else { return nil }; j = after
                case (false, .description), (true, .createdAt): guard let after = Self.scalar(b, j, n, &c) else { return nil }; j = after
                case (false, .location): guard let after = Self.scalar(b, j, n, &d) else { return nil }; j = after
                case (true, .author):
                    d = ItemField()
                    if b[j] == UInt8(ascii: "{") {
                        authorIsObject = true
                        guard let after = author(b, j + 1, n, &d) else { return nil }
                        j = after
                    } else {
                        authorIsObject = false
                        guard let after = Self.scalar(b, j, n, &other) else { return nil }
                        j = after
                    }
                default: guard let after = Self.scalar(b, j, n, &other) else { return nil }; j = after
                }
                guard skipBlanks(b, &j, n) else { return nil }
                if b[j] == UInt8(ascii: ",") {
                    j += 1
                    guard skipBlanks(b, &j, n) else { return nil }
                    continue members
                }
                guard b[j] == UInt8(ascii: "}") else { return nil }
                j += 1
                break members
            }
        }
        if comments {
            let fields = ImageCommentRule.Fields(id: id, message: a, createdAt: c, username: d, authorIsObject: authorIsObject)
            guard commentRule.check(fields) == nil else { return nil }
            commentRule.write(fields, into: records)
        } else {
            let fields = FeedItemRule.Fields(id: id, image: a, description: c, location: d)
            guard feedRule.check(fields) == nil else { return nil }
            feedRule.write(fields, into: records)
        }
        return j
    }

    /// The members of an `author` object from `from` (after its `{`); the
    /// last `username` goes into `username`. Returns the index after its `}`.
    @inline(__always)
    private func author(_ b: UnsafePointer<UInt8>, _ from: Int, _ n: Int, _ username: inout ItemField) -> Int? {
        var j = from
        guard skipBlanks(b, &j, n) else { return nil }
        if b[j] == UInt8(ascii: "}") { return j + 1 }
        while true {
            guard b[j] == UInt8(ascii: "\"") else { return nil }
            let isUsername: Bool
            if let (known, close) = Self.knownKey(b, j + 1, n) {
                isUsername = known == .username
                j = close + 1
            } else {
                var escapedKey = false
                guard let close = Self.string(b, j + 1, n, &escapedKey), !escapedKey else { return nil }
                isUsername = MemberName(UnsafeBufferPointer(start: b + j + 1, count: close - j - 1)) == .username
                j = close + 1
            }
            guard skipBlanks(b, &j, n), b[j] == UInt8(ascii: ":") else { return nil }
            j += 1
            guard skipBlanks(b, &j, n) else { return nil }
            var other = ItemField()
            guard let after = isUsername ? Self.scalar(b, j, n, &username) : Self.scalar(b, j, n, &other) else { return nil }
            j = after
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
}
