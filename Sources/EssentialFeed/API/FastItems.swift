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
struct FastItems {
    /// A located value.
    struct Span {
        enum Kind: UInt8 { case absent, string, null, other }
        var start = 0
        var end = 0
        var kind = Kind.absent
        var escaped = false
    }

    let comments: Bool
    /// Whether newlines are blanks (a whole document) or end the line.
    var multiline: Bool
    /// For content that must be decoded first (escapes): reused.
    var scratch: [UInt8] = []
    var dateText: [UInt8] = []
    var dateOut: [UInt8] = []

    init(comments: Bool, multiline: Bool) {
        self.comments = comments
        self.multiline = multiline
        scratch.reserveCapacity(256)
        dateText.reserveCapacity(64)
        dateOut.reserveCapacity(64)
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
            let start = j
            guard let end = item(b, j + 1, n, start: start, into: records) else { break }
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
                guard let (continuations, low, high) = JSONEscapes.utf8Sequence(c), i + continuations < n else { return nil }
                let c1 = b[i + 1]
                guard c1 >= low, c1 <= high else { return nil }
                if continuations > 1 {
                    guard b[i + 2] & 0xC0 == 0x80 else { return nil }
                    if continuations > 2 { guard b[i + 3] & 0xC0 == 0x80 else { return nil } }
                }
                i += continuations + 1
            } else if c == UInt8(ascii: "\\") {
                guard i + 1 < n else { return nil }
                escaped = true
                switch b[i + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                case UInt8(ascii: "u"):
                    guard i + 6 <= n else { return nil }
                    let unit = hex4(b, i + 2)
                    guard unit >= 0, unit < 0xDC00 || unit >= 0xE000 else { return nil }
                    if unit >= 0xD800 && unit < 0xDC00 {
                        guard i + 12 <= n, b[i + 6] == UInt8(ascii: "\\"), b[i + 7] == UInt8(ascii: "u") else { return nil }
                        let low = hex4(b, i + 8)
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

    /// Four hex digits, or -1.
    @inline(__always)
    private static func hex4(_ b: UnsafePointer<UInt8>, _ i: Int) -> Int {
        let v = JSONEscapes.hexValue(b[i]) << 12 | JSONEscapes.hexValue(b[i + 1]) << 8
            | JSONEscapes.hexValue(b[i + 2]) << 4 | JSONEscapes.hexValue(b[i + 3])
        return v < 0 ? -1 : v
    }

    /// Scans a number from `j`; returns the index after it, or nil.
    @inline(__always)
    private static func number(_ b: UnsafePointer<UInt8>, _ from: Int, _ n: Int) -> Int? {
        var j = from
        @inline(__always) func digit(_ k: Int) -> Bool { k < n && b[k] &- UInt8(ascii: "0") < 10 }
        if b[j] == UInt8(ascii: "-") { j += 1 }
        guard j < n else { return nil }
        if b[j] == UInt8(ascii: "0") {
            j += 1
        } else if digit(j) {
            while digit(j) { j += 1 }
        } else {
            return nil
        }
        if j < n, b[j] == UInt8(ascii: ".") {
            j += 1
            guard digit(j) else { return nil }
            while digit(j) { j += 1 }
        }
        if j < n, b[j] | 0x20 == UInt8(ascii: "e") {
            j += 1
            if j < n, b[j] == UInt8(ascii: "+") || b[j] == UInt8(ascii: "-") { j += 1 }
            guard digit(j) else { return nil }
            while digit(j) { j += 1 }
        }
        return j < n ? j : nil
    }

    /// Reads a scalar value at `j` into `span`; returns the index after it,
    /// or nil (a container, invalid, or the buffer's end).
    @inline(__always)
    private static func scalar(_ b: UnsafePointer<UInt8>, _ j: Int, _ n: Int, _ span: inout Span) -> Int? {
        switch b[j] {
        case UInt8(ascii: "\""):
            var escaped = false
            guard let close = string(b, j + 1, n, &escaped) else { return nil }
            span = Span(start: j + 1, end: close, kind: .string, escaped: escaped)
            return close + 1
        case UInt8(ascii: "n"):
            guard j + 4 <= n, b[j + 1] == UInt8(ascii: "u"), b[j + 2] == UInt8(ascii: "l"), b[j + 3] == UInt8(ascii: "l") else { return nil }
            span = Span(start: j, end: j + 4, kind: .null, escaped: false)
            return j + 4
        case UInt8(ascii: "t"):
            guard j + 4 <= n, b[j + 1] == UInt8(ascii: "r"), b[j + 2] == UInt8(ascii: "u"), b[j + 3] == UInt8(ascii: "e") else { return nil }
            span = Span(start: j, end: j + 4, kind: .other, escaped: false)
            return j + 4
        case UInt8(ascii: "f"):
            guard j + 5 <= n, b[j + 1] == UInt8(ascii: "a"), b[j + 2] == UInt8(ascii: "l"), b[j + 3] == UInt8(ascii: "s"),
                  b[j + 4] == UInt8(ascii: "e") else { return nil }
            span = Span(start: j, end: j + 5, kind: .other, escaped: false)
            return j + 5
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard let after = number(b, j, n) else { return nil }
            span = Span(start: j, end: after, kind: .other, escaped: false)
            return after
        default:
            return nil
        }
    }

    /// The member names the mappers read, from a key's raw bytes.
    private enum Key {
        case id, image, description, location, message, createdAt, author, username, other
    }

    /// Told apart by length, then by their bytes read as little-endian
    /// words (the first eight, and for longer names the last eight).
    @inline(__always)
    private static func key(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ n: Int) -> Key {
        let length = end - start
        guard length >= 2, length <= 11, start + 8 <= n else { return slowKey(b, start, end) }
        let raw = UnsafeRawPointer(b)
        let first = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt64.self))
        @inline(__always) func head(_ count: Int) -> UInt64 { count >= 8 ? first : first & ((1 << UInt64(count * 8)) - 1) }
        @inline(__always) func tail() -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self)) }
        switch length {
        case 2: return head(2) == 0x6469 ? .id : .other
        case 5: return head(5) == 0x65_6761_6D69 ? .image : .other
        case 6: return head(6) == 0x726F_6874_7561 ? .author : .other
        case 7: return head(7) == 0x65_6761_7373_656D ? .message : .other
        case 8:
            if first == 0x6E6F_6974_6163_6F6C { return .location }
            return first == 0x656D_616E_7265_7375 ? .username : .other
        case 10: return first == 0x5F64_6574_6165_7263 && tail() == 0x7461_5F64_6574_6165 ? .createdAt : .other
        case 11: return first == 0x7470_6972_6373_6564 && tail() == 0x6E6F_6974_7069_7263 ? .description : .other
        default: return .other
        }
    }

    /// The names the mappers read, matched with their closing quote straight
    /// from the bytes at `start` (after the opening quote): the name and the
    /// index of the closing quote, or nil for any other key (then scanned).
    @inline(__always)
    private static func knownKey(_ b: UnsafePointer<UInt8>, _ start: Int, _ n: Int) -> (Key, Int)? {
        guard start + 16 <= n else { return nil }
        let raw = UnsafeRawPointer(b)
        let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt64.self))
        @inline(__always) func next(_ mask: UInt64) -> UInt64 {
            UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self)) & mask
        }
        if w & 0xFF_FFFF == 0x22_6469 { return (.id, start + 2) }
        if w & 0xFFFF_FFFF_FFFF == 0x2265_6761_6D69 { return (.image, start + 5) }
        if w & 0xFF_FFFF_FFFF_FFFF == 0x22_726F_6874_7561 { return (.author, start + 6) }
        if w == 0x2265_6761_7373_656D { return (.message, start + 7) }
        switch w {
        case 0x6E6F_6974_6163_6F6C: return next(0xFF) == 0x22 ? (.location, start + 8) : nil
        case 0x656D_616E_7265_7375: return next(0xFF) == 0x22 ? (.username, start + 8) : nil
        case 0x5F64_6574_6165_7263: return next(0xFF_FFFF) == 0x22_7461 ? (.createdAt, start + 10) : nil
        case 0x7470_6972_6373_6564: return next(0xFFFF_FFFF) == 0x226E_6F69 ? (.description, start + 11) : nil
        default: return nil
        }
    }

    private static func slowKey(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Key {
        @inline(__always) func matches(_ word: StaticString) -> Bool {
            same(b + start, word.utf8Start, word.utf8CodeUnitCount)
        }
        switch end - start {
        case 2: return matches("id") ? .id : .other
        case 5: return matches("image") ? .image : .other
        case 6: return matches("author") ? .author : .other
        case 7: return matches("message") ? .message : .other
        case 8:
            if matches("location") { return .location }
            return matches("username") ? .username : .other
        case 10: return matches("created_at") ? .createdAt : .other
        case 11: return matches("description") ? .description : .other
        default: return .other
        }
    }

    @inline(__always)
    private static func same(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        for k in 0..<count where a[k] != b[k] { return false }
        return true
    }

    // MARK: Items

    /// Reads the item whose `{` is at `start` (members from `from`) and
    /// writes its record; returns the index after its `}`, or nil.
    @inline(__always)
    private mutating func item(_ b: UnsafePointer<UInt8>, _ from: Int, _ n: Int, start: Int, into records: RecordBuffer) -> Int? {
        var id = Span(), a = Span(), c = Span(), d = Span()  // feed: image, description, location; comments: message, created_at, username
        var authorIsObject = false
        var j = from
        guard skipBlanks(b, &j, n) else { return nil }
        if b[j] == UInt8(ascii: "}") {
            j += 1
        } else {
            members: while true {
                guard b[j] == UInt8(ascii: "\"") else { return nil }
                let key: Key
                if let (known, close) = Self.knownKey(b, j + 1, n) {
                    key = known
                    j = close + 1
                } else {
                    var escapedKey = false
                    guard let close = Self.string(b, j + 1, n, &escapedKey), !escapedKey else { return nil }
                    key = Self.key(b, j + 1, close, n)
                    j = close + 1
                }
                guard skipBlanks(b, &j, n), b[j] == UInt8(ascii: ":") else { return nil }
                j += 1
                guard skipBlanks(b, &j, n) else { return nil }
                var other = Span()
                switch (comments, key) {
                case (_, .id): guard let after = Self.scalar(b, j, n, &id) else { return nil }; j = after
                case (false, .image), (true, .message): guard let after = Self.scalar(b, j, n, &a) else { return nil }; j = after
                case (false, .description), (true, .createdAt): guard let after = Self.scalar(b, j, n, &c) else { return nil }; j = after
                case (false, .location): guard let after = Self.scalar(b, j, n, &d) else { return nil }; j = after
                case (true, .author):
                    d = Span()
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
        let written = comments
            ? comment(b, id: id, message: a, createdAt: c, username: d, authorIsObject: authorIsObject, capacity: j - start, into: records)
            : feedImage(b, id: id, image: a, description: c, location: d, capacity: j - start, into: records)
        return written ? j : nil
    }

    /// The members of an `author` object from `from` (after its `{`); the
    /// last `username` goes into `username`. Returns the index after its `}`.
    @inline(__always)
    private func author(_ b: UnsafePointer<UInt8>, _ from: Int, _ n: Int, _ username: inout Span) -> Int? {
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
                isUsername = close - j - 1 == 8 && Self.key(b, j + 1, close, n) == .username
                j = close + 1
            }
            guard skipBlanks(b, &j, n), b[j] == UInt8(ascii: ":") else { return nil }
            j += 1
            guard skipBlanks(b, &j, n) else { return nil }
            var other = Span()
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

    // MARK: Records

    /// The decoded content of a string span: the bytes themselves, or
    /// `scratch` when it has escapes.
    @inline(__always)
    private mutating func content<R>(_ b: UnsafePointer<UInt8>, _ span: Span, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if !span.escaped { return body(UnsafeBufferPointer(start: b + span.start, count: span.end - span.start)) }
        scratch.removeAll(keepingCapacity: true)
        JSONEscapes.unescape(b, span.start, span.end, into: &scratch)
        return scratch.withUnsafeBufferPointer(body)
    }

    @inline(__always)
    private mutating func isUUID(_ b: UnsafePointer<UInt8>, _ id: Span) -> Bool {
        if id.escaped { return content(b, id) { StreamingResponseMapper.isUUID($0) } }
        return id.end - id.start == 36 && Self.isUUID36(b + id.start)
    }

    /// Whether the 36 bytes at `p` are a UUID: hex digits (either case) with
    /// dashes at 8, 13, 18 and 23. Eight bytes at a time: a byte is in
    /// `lo...hi` when adding `0x80 - lo` sets its high bit and adding
    /// `0x7F - hi` does not (no carries: every byte is ASCII).
    @inline(__always)
    static func isUUID36(_ p: UnsafePointer<UInt8>) -> Bool {
        guard p[8] == UInt8(ascii: "-"), p[13] == UInt8(ascii: "-"), p[18] == UInt8(ascii: "-"), p[23] == UInt8(ascii: "-") else { return false }
        let raw = UnsafeRawPointer(p)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs = ones &* 0x80
        @inline(__always) func hexBytes(_ offset: Int) -> UInt64 {
            let x = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let lower = x | (ones &* 0x20)
            let digit = (x &+ ones &* (0x80 - 0x30)) & ~(x &+ ones &* (0x7F - 0x39))
            let letter = (lower &+ ones &* (0x80 - 0x61)) & ~(lower &+ ones &* (0x7F - 0x66))
            return (digit | letter) & highs
        }
        // Which bytes of the words at 8 and 16 must be hex (the others are the dashes checked above).
        let mask8: UInt64 = 0x8080_0080_8080_8000    // bytes 9-12, 14-15
        let mask16: UInt64 = 0x0080_8080_8000_8080   // bytes 16-17, 19-22
        let ascii = (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            | raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
            | raw.loadUnaligned(fromByteOffset: 28, as: UInt64.self)) & highs == 0
        return ascii && hexBytes(0) == highs && hexBytes(8) & mask8 == mask8 && hexBytes(16) & mask16 == mask16
            && hexBytes(24) == highs && hexBytes(28) == highs
    }

    /// Leaves the decoded content of an escaped span in `scratch`.
    @inline(__always)
    private mutating func decodeIfEscaped(_ b: UnsafePointer<UInt8>, _ span: Span) {
        guard span.escaped else { return }
        scratch.removeAll(keepingCapacity: true)
        JSONEscapes.unescape(b, span.start, span.end, into: &scratch)
    }

    private mutating func feedImage(_ b: UnsafePointer<UInt8>, id: Span, image: Span, description: Span, location: Span,
                                    capacity: Int, into records: RecordBuffer) -> Bool {
        guard id.kind == .string, image.kind == .string,
              description.kind != .other, location.kind != .other,
              isUUID(b, id),
              content(b, image, { StreamingResponseMapper.isAbsoluteURL($0) }) else { return false }
        decodeIfEscaped(b, id)
        var w = records.reserve(capacity + 64)
        Self.put(#"{"id":""#, &w)
        Self.putUUID(b, id, &w, scratch)
        if description.kind == .string {
            Self.put(#"","description":""#, &w)
            Self.putContent(b, description, &w)
        }
        if location.kind == .string {
            Self.put(#"","location":""#, &w)
            Self.putContent(b, location, &w)
        }
        Self.put(#"","url":""#, &w)
        Self.putContent(b, image, &w)
        Self.put("\"}\n", &w)
        records.count = w - records.base
        return true
    }

    private mutating func comment(_ b: UnsafePointer<UInt8>, id: Span, message: Span, createdAt: Span, username: Span,
                                  authorIsObject: Bool, capacity: Int, into records: RecordBuffer) -> Bool {
        guard id.kind == .string, message.kind == .string, createdAt.kind == .string,
              authorIsObject, username.kind == .string,
              isUUID(b, id) else { return false }
        let dateLength = createdAt.end - createdAt.start
        // Already the form written but for the offset: the date and time as they are, then Z.
        let utc = !createdAt.escaped && Self.isUTCDate(b + createdAt.start, dateLength)
        if !utc {
            dateOut.removeAll(keepingCapacity: true)
            dateText.removeAll(keepingCapacity: true)
            if createdAt.escaped {
                JSONEscapes.unescape(b, createdAt.start, createdAt.end, into: &dateText)
            } else {
                dateText.append(contentsOf: UnsafeBufferPointer(start: b + createdAt.start, count: dateLength))
            }
            guard let timestamp = Timestamp(iso8601Bytes: dateText) else { return false }
            timestamp.appendISO8601(to: &dateOut)
        }
        decodeIfEscaped(b, id)
        var w = records.reserve(capacity + 64 + (utc ? 0 : dateOut.count))
        Self.put(#"{"id":""#, &w)
        Self.putUUID(b, id, &w, scratch)
        Self.put(#"","message":""#, &w)
        Self.putContent(b, message, &w)
        Self.put(#"","created_at":""#, &w)
        if utc {
            w.update(from: b + createdAt.start, count: 19)
            w[19] = UInt8(ascii: "Z")
            w += 20
        } else {
            dateOut.withUnsafeBufferPointer { p in
                w.update(from: p.baseAddress!, count: p.count)
                w += p.count
            }
        }
        Self.put(#"","username":""#, &w)
        Self.putContent(b, username, &w)
        Self.put("\"}\n", &w)
        records.count = w - records.base
        return true
    }

    /// Whether `p[0..<count]` is a valid `YYYY-MM-DDTHH:MM:SS` with no
    /// fraction and a zero offset (`Z`, `±00`, `±0000`, `±00:00`): the dates
    /// `Timestamp` reads and writes back as the same 19 bytes and `Z`.
    static func isUTCDate(_ p: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        switch count {
        case 20:
            guard p[19] == UInt8(ascii: "Z") else { return false }
        case 22, 24, 25:
            guard p[19] == UInt8(ascii: "+") || p[19] == UInt8(ascii: "-"), p[20] == 0x30, p[21] == 0x30 else { return false }
            if count == 24 { guard p[22] == 0x30, p[23] == 0x30 else { return false } }
            if count == 25 { guard p[22] == UInt8(ascii: ":"), p[23] == 0x30, p[24] == 0x30 else { return false } }
        default:
            return false
        }
        guard p[4] == UInt8(ascii: "-"), p[7] == UInt8(ascii: "-"), p[10] == UInt8(ascii: "T"),
              p[13] == UInt8(ascii: ":"), p[16] == UInt8(ascii: ":") else { return false }
        var ok = true
        @inline(__always) func two(_ k: Int) -> Int {
            let a = p[k] &- 0x30, b = p[k + 1] &- 0x30
            ok = ok && a < 10 && b < 10
            return Int(a) &* 10 &+ Int(b)
        }
        let year = two(0) &* 100 &+ two(2)
        let month = two(5), day = two(8), hour = two(11), minute = two(14), second = two(17)
        return ok && month >= 1 && month <= 12 && day >= 1 && day <= Timestamp.daysIn(month: month, year: year)
            && hour <= 23 && minute <= 59 && second <= 59
    }

    @inline(__always)
    private static func put(_ text: StaticString, _ w: inout UnsafeMutablePointer<UInt8>) {
        w.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        w += text.utf8CodeUnitCount
    }

    /// A validated UUID in upper case (decoded when it was escaped: then
    /// `decoded` holds it).
    @inline(__always)
    private static func putUUID(_ b: UnsafePointer<UInt8>, _ id: Span, _ w: inout UnsafeMutablePointer<UInt8>, _ decoded: [UInt8]) {
        if id.escaped {
            decoded.withUnsafeBufferPointer { p in w.update(from: p.baseAddress!, count: 36) }
        } else {
            w.update(from: b + id.start, count: 36)
        }
        // Hex letters only: each byte at or above "a" loses 0x20, eight at a time.
        let raw = UnsafeMutableRawPointer(w)
        let ones: UInt64 = 0x0101_0101_0101_0101
        for k in stride(from: 0, to: 32, by: 8) {
            let x = raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)
            let lower = ((x &+ ones &* 0x1F) & (ones &* 0x80)) >> 2
            raw.storeBytes(of: x &- lower, toByteOffset: k, as: UInt64.self)
        }
        for k in 32..<36 where w[k] >= UInt8(ascii: "a") { w[k] &-= 0x20 }
        w += 36
    }

    /// String content as `JSONWriter` writes the decoded text: the raw bytes
    /// when there are no escapes (then nothing in them needs one), else each
    /// escape rewritten in the writer's form.
    @inline(__always)
    private static func putContent(_ b: UnsafePointer<UInt8>, _ span: Span, _ w: inout UnsafeMutablePointer<UInt8>) {
        let count = span.end - span.start
        if !span.escaped {
            w.update(from: b + span.start, count: count)
            w += count
        } else {
            rewriteEscapes(b, span.start, span.end, &w)
        }
    }

    private static func rewriteEscapes(_ b: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ w: inout UnsafeMutablePointer<UInt8>) {
        var i = start
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
                w.update(from: b + i, count: k - i)
                w += k - i
                i = k
                if i == end { break }
            }
            let e = b[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "/"):
                w.pointee = e
                w += 1
            case UInt8(ascii: "u"):
                var scalar = UInt32(hex4(b, i))
                i += 4
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    let low = UInt32(hex4(b, i + 2))
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                putScalar(scalar, &w)
            default:  // " \ b f n r t: the writer's own escapes
                w[0] = UInt8(ascii: "\\")
                w[1] = e
                w += 2
            }
        }
    }

    /// One decoded scalar, escaped as `JSONWriter.appendEscaped` escapes it.
    @inline(__always)
    private static func putScalar(_ v: UInt32, _ w: inout UnsafeMutablePointer<UInt8>) {
        func two(_ e: UInt8) { w[0] = UInt8(ascii: "\\"); w[1] = e; w += 2 }
        switch v {
        case 0x22: two(UInt8(ascii: "\""))
        case 0x5C: two(UInt8(ascii: "\\"))
        case 0x0A: two(UInt8(ascii: "n"))
        case 0x0D: two(UInt8(ascii: "r"))
        case 0x09: two(UInt8(ascii: "t"))
        case 0x08: two(UInt8(ascii: "b"))
        case 0x0C: two(UInt8(ascii: "f"))
        case 0..<0x20:
            let hex: StaticString = "0123456789abcdef"
            let h = hex.utf8Start
            w[0] = UInt8(ascii: "\\"); w[1] = UInt8(ascii: "u"); w[2] = 0x30; w[3] = 0x30
            w[4] = h[Int(v >> 4)]; w[5] = h[Int(v & 0xF)]
            w += 6
        case 0x20..<0x80:
            w.pointee = UInt8(v)
            w += 1
        case 0x80..<0x800:
            w[0] = UInt8(0xC0 | (v >> 6)); w[1] = UInt8(0x80 | (v & 0x3F))
            w += 2
        case 0x800..<0x10000:
            w[0] = UInt8(0xE0 | (v >> 12)); w[1] = UInt8(0x80 | ((v >> 6) & 0x3F)); w[2] = UInt8(0x80 | (v & 0x3F))
            w += 3
        default:
            w[0] = UInt8(0xF0 | (v >> 18)); w[1] = UInt8(0x80 | ((v >> 12) & 0x3F))
            w[2] = UInt8(0x80 | ((v >> 6) & 0x3F)); w[3] = UInt8(0x80 | (v & 0x3F))
            w += 4
        }
    }
}
