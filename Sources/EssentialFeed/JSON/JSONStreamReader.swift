#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Over 400 lines, and one type: the reader's cursor, refills, line and
// nesting state are one invariant that every method keeps; split across
// files they would have to be exposed to each other. The grammar's pieces
// it shares with the tape parser are in `JSONEscapes`.
/// A pull parser over an NDJSON byte stream that never holds more than the
/// token being read (plus the current line, while it is under 1 MiB).
///
/// It validates exactly as `JSONParser` does (strict UTF-8, escapes and
/// surrogate pairs, numbers, a nesting limit) so that a line it accepts is
/// one `JSONParser` accepts too, and reports errors with the same byte offsets
/// within the line. Values are read one at a time: the caller walks objects
/// and arrays with `nextMember`/`nextElement`, copies the strings it wants
/// into its own buffers, and skips the rest with `skipValue`.
public struct JSONStreamReader {
    /// Reads the next chunk of the stream; 0 at its end.
    private let readChunk: (UnsafeMutableRawBufferPointer) throws(ErrorRecord) -> Int
    private var buffer: [UInt8]
    /// Valid bytes are `buffer[0..<end]`; the next byte to read is `buffer[position]`.
    private var position = 0
    private var end = 0
    private var atEOF = false
    /// The stream offset of `buffer[0]`.
    private var consumed = 0
    /// The stream offset of the current line's first byte.
    private var lineOrigin = 0
    /// The current line's first byte in `buffer`, while it is kept.
    private var lineStart: Int?
    /// The first byte of a token being read, kept across refills.
    private var mark: Int?
    /// One entry per open container: whether it is an object, and how many
    /// members or elements it has had.
    private var open: [(isObject: Bool, count: Int)] = []
    private let maxDepth: Int
    private let keepLineLimit: Int
    private let chunkSize: Int

    /// Whether the current line has been read through its newline.
    private var lineDone = false
    /// The number of the current line (1-based; blank lines count).
    public private(set) var lineNumber = 0
    /// Whether newlines may appear between tokens: a whole document (`--raw`)
    /// rather than NDJSON lines.
    public var multiline = false

    public init<Source: ByteSource>(source: Source, chunkSize: Int = 65_536, maxDepth: Int = JSONParser.defaultMaxDepth, keepLineLimit: Int = 1 << 20) {
        var source = source
        readChunk = { (buffer) throws(ErrorRecord) -> Int in try source.read(into: buffer) }
        self.chunkSize = chunkSize
        self.maxDepth = maxDepth
        self.keepLineLimit = keepLineLimit
        buffer = [UInt8](repeating: 0, count: chunkSize * 2)
    }

    // MARK: Buffer

    /// Reads more bytes, first dropping what nobody needs. Returns how far the
    /// kept bytes moved toward the front (subtract it from saved indices), or
    /// nil at the end of the stream.
    private mutating func refill() throws(ErrorRecord) -> Int? {
        if atEOF { return nil }
        if let start = lineStart, position - start > keepLineLimit { lineStart = nil }
        let keep = min(mark ?? position, lineStart ?? position, position)
        if keep > 0 {
            buffer.withUnsafeMutableBytes { p in
                let base = p.baseAddress!
                base.copyMemory(from: base + keep, byteCount: end - keep)
            }
            end -= keep
            position -= keep
            consumed += keep
            if let m = mark { mark = m - keep }
            if let s = lineStart { lineStart = s - keep }
        }
        if buffer.count - end < chunkSize {
            buffer.append(contentsOf: repeatElement(0, count: max(buffer.count, chunkSize)))
        }
        var storage: [UInt8] = []
        swap(&storage, &buffer)
        let start = end
        let result: Result<Int, ErrorRecord> = storage.withUnsafeMutableBytes { p in
            do throws(ErrorRecord) {
                return .success(try readChunk(UnsafeMutableRawBufferPointer(rebasing: p[start..<p.count])))
            } catch {
                return .failure(error)
            }
        }
        swap(&storage, &buffer)
        let n = try result.get()
        if n == 0 {
            atEOF = true
            return nil
        }
        end += n
        return keep
    }

    /// Whether the bytes read so far hold a newline at or after `index`.
    private func holdsNewline(from index: Int) -> Bool {
        let to = end
        return buffer.withUnsafeBufferPointer { p in
            // memchr: the C library's vector search (a long line is
            // searched at each refill's end).
            index < to && memchr(p.baseAddress! + index, 0x0A, to - index) != nil
        }
    }

    /// Makes at least `count` bytes from `position` available when the stream has them.
    @inline(__always)
    private mutating func ensure(_ count: Int) throws(ErrorRecord) -> Bool {
        while end - position < count {
            guard try refill() != nil else { return false }
        }
        return true
    }

    private func fail(_ fault: JSONFault, at index: Int? = nil) -> ErrorRecord {
        let reason = fault.reason
        let offset = consumed + (index ?? position) - lineOrigin
        let atEnd = (index ?? position) >= end && atEOF
        // A line that the end of the stream cut inside its value is a
        // truncated line, as one cut after it is (the JSON's own reason,
        // "unexpected end: unterminated string", did not say the stream
        // was cut: found by using it). A whole document's end is its own.
        if atEnd, !multiline { return RecordLine.truncated(lineNumber: lineNumber) }
        let error = JSONSyntaxError(offset: offset, reason: atEnd ? "unexpected end: \(reason)" : reason)
        return ErrorRecord(.invalidData, "\(error)", line: lineNumber)
    }

    // MARK: Lines

    /// Moves to the start of the next line that is not blank; false at the end
    /// of the stream. Call it once before the first line and after each `finishLine`.
    public mutating func startLine() throws(ErrorRecord) -> Bool {
        open.removeAll(keepingCapacity: true)
        lineDone = false
        while true {
            lineNumber += 1
            lineOrigin = consumed + position
            lineStart = position
            // Skip blanks; an empty or blank line is passed over.
            while true {
                if position == end {
                    guard let shift = try refill() else {
                        if position > (lineStart ?? position) {
                            // Blank bytes without a newline at the very end: nothing to read.
                        }
                        return false
                    }
                    _ = shift
                }
                let c = buffer[position]
                if c == 0x20 || c == 0x09 || c == 0x0D { position += 1; continue }
                if c == 0x0A { position += 1; break }
                return true
            }
        }
    }

    /// After the line's value: only blanks, then a newline. A line cut off by
    /// the end of the stream is an error (a truncated stream).
    public mutating func finishLine() throws(ErrorRecord) {
        while true {
            if position == end {
                guard try refill() != nil else {
                    throw RecordLine.truncated(lineNumber: lineNumber)
                }
            }
            let c = buffer[position]
            if c == 0x20 || c == 0x09 || c == 0x0D { position += 1; continue }
            if c == 0x0A { position += 1; lineDone = true; return }
            throw fail(.unexpectedData)
        }
    }

    /// After an error: drops the rest of the line, through its newline
    /// (nothing when the line was already read to its end).
    public mutating func skipRestOfLine() throws(ErrorRecord) {
        guard !lineDone else { return }
        lineDone = true
        mark = nil
        open.removeAll(keepingCapacity: true)
        while true {
            let found: Int? = buffer.withUnsafeBufferPointer { p in
                var i = position
                while i < end { if p[i] == 0x0A { return i }; i += 1 }
                return nil
            }
            if let found {
                position = found + 1
                return
            }
            position = end
            guard try refill() != nil else { return }
        }
    }

    /// The bytes of the line just finished (without its newline or a trailing
    /// `\r`), when the line was short enough to be kept: at most
    /// `keepLineLimit` bytes (a longer line may lie whole in the buffer,
    /// when no refill came in between to let it go).
    public var finishedLine: ArraySlice<UInt8>? {
        guard let start = lineStart else { return nil }
        var stop = position - 1
        while stop > start, buffer[stop - 1] == 0x0D || buffer[stop - 1] == 0x20 || buffer[stop - 1] == 0x09 { stop -= 1 }
        return stop - start <= keepLineLimit ? buffer[start..<stop] : nil
    }

    /// Whether the whole input (for `--raw`) has nothing but blanks left.
    public mutating func finishDocument() throws(ErrorRecord) {
        while true {
            if position == end {
                guard try refill() != nil else { return }
            }
            switch buffer[position] {
            case 0x20, 0x09, 0x0D, 0x0A: position += 1
            default: throw fail(.unexpectedData)
            }
        }
    }

    // MARK: Values

    @inline(__always)
    private mutating func skipBlanks(newlines: Bool) throws(ErrorRecord) {
        while true {
            if position == end {
                guard try refill() != nil else { return }
            }
            let c = buffer[position]
            if c == 0x20 || c == 0x09 || c == 0x0D || (newlines && c == 0x0A) {
                position += 1
                sawBlank = true
            } else {
                return
            }
        }
    }

    /// Whether a blank was skipped between tokens since `sawBlank` was last
    /// set false: whether the text read is not compact.
    public var sawBlank = false

    /// The stream offset of the next byte to read.
    public var offset: Int { consumed + position }

    /// The first byte of the next value, after blanks (nil at the end of the stream).
    /// A newline inside a line's value is an error when not `multiline`.
    @inline(__always)
    public mutating func peek() throws(ErrorRecord) -> UInt8? {
        // Compact input: the next byte is the token.
        if position < end {
            let c = buffer[position]
            if c > 0x20 { return c }
        }
        try skipBlanks(newlines: multiline)
        if position == end, !(try ensure(1)) { return nil }
        return buffer[position]
    }

    /// The kind of the next value.
    public mutating func peekKind() throws(ErrorRecord) -> JSONDocument.Kind {
        guard let c = try peek() else { throw fail(.expectedValue) }
        switch c {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"): return .true
        case UInt8(ascii: "f"): return .false
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw fail(.unexpected(c))
        }
    }

    /// Opens the object that comes next.
    public mutating func beginObject() throws(ErrorRecord) {
        guard try peek() == UInt8(ascii: "{") else { throw fail(.expectedObject) }
        try push(isObject: true)
    }

    /// Opens the array that comes next.
    public mutating func beginArray() throws(ErrorRecord) {
        guard try peek() == UInt8(ascii: "[") else { throw fail(.expectedArray) }
        try push(isObject: false)
    }

    private mutating func push(isObject: Bool) throws(ErrorRecord) {
        guard open.count < maxDepth else { throw fail(.nestingTooDeep(maxDepth)) }
        open.append((isObject, 0))
        position += 1
    }

    /// In an open object: reads the next key into `key` (decoded) and its
    /// colon, and returns true; or reads the closing brace and returns false.
    /// A key read `bounded` (one skipped, or compared with the names a
    /// reader looks for) is read in bounded memory: one past 64 KiB, which
    /// is no such name, is left in `key` as its last part after a 0xFF
    /// byte, which no UTF-8 text holds.
    public mutating func nextMember(key: inout [UInt8], bounded: Bool = false) throws(ErrorRecord) -> Bool {
        guard try separator(closer: UInt8(ascii: "}")) else { return false }
        guard try peek() == UInt8(ascii: "\"") else { throw fail(.expectedKey) }
        key.removeAll(keepingCapacity: true)
        try string(into: &key, decode: true, bounded: bounded)
        guard try peek() == UInt8(ascii: ":") else { throw fail(.expectedColon) }
        position += 1
        return true
    }

    /// In an open array: true when an element follows, false after reading the closing bracket.
    public mutating func nextElement() throws(ErrorRecord) -> Bool {
        try separator(closer: UInt8(ascii: "]"))
    }

    private mutating func separator(closer: UInt8) throws(ErrorRecord) -> Bool {
        let isObject = closer == UInt8(ascii: "}")
        guard let c = try peek() else {
            throw fail(.unterminated(object: isObject))
        }
        if c == closer {
            position += 1
            open.removeLast()
            return false
        }
        if open[open.count - 1].count > 0 {
            guard c == UInt8(ascii: ",") else {
                throw fail(.expectedSeparator(object: isObject))
            }
            position += 1
            if try peek() == nil { throw fail(.unterminated(object: isObject)) }
        }
        open[open.count - 1].count += 1
        return true
    }

    /// Reads the elements of the open array that are flat objects lying
    /// whole in the buffer (see `JSONFlatObjectScanner`), handing their
    /// members to `visitor`, after first making at least `minimum` bytes
    /// ready when the stream has them (unless the line's end is here
    /// already: a line that has come whole is read without waiting for
    /// more input, which may be long in coming); returns how many it read.
    /// It stops before anything else, for the other methods; the scan
    /// tells how far it validated, and the reader moves itself.
    @inline(__always)
    mutating func readFlatObjects<Visitor: JSONFlatObjectVisitor>(minimum: Int, _ visitor: inout Visitor) throws(ErrorRecord) -> Int {
        guard let container = open.last, !container.isObject, open.count < maxDepth else { return 0 }
        if end - position < minimum, multiline || !holdsNewline(from: position) { _ = try ensure(min(minimum, chunkSize)) }
        var scanner = JSONFlatObjectScanner(multiline: multiline, nesting: open.count + 1 < maxDepth)
        let from = position, to = end
        let (read, elements) = buffer.withUnsafeBufferPointer { p in
            scanner.run(UnsafeBufferPointer(rebasing: p[from..<to]), first: container.count == 0, &visitor)
        }
        if scanner.sawBlank { sawBlank = true }
        position += read
        open[open.count - 1].count += elements
        return elements
    }

    /// Reads a string value. Its content goes into `out` (appended) raw, as
    /// written between the quotes, or decoded when `decode`; returns whether
    /// the raw content held escapes. A string read `bounded` is read in
    /// bounded memory, however long: past 64 KiB, `out` is emptied and
    /// given a 0xFF byte (which no UTF-8 text holds), then the rest.
    @discardableResult
    public mutating func string(into out: inout [UInt8], decode: Bool, bounded: Bool = false) throws(ErrorRecord) -> Bool {
        guard try peek() == UInt8(ascii: "\"") else { throw fail(.expectedString) }
        position += 1
        var escaped = false
        while true {
            if bounded, out.count >= 1 << 16 {
                out.removeAll(keepingCapacity: true)
                out.append(0xFF)
            }
            // Copy the plain ASCII run.
            let stop: Int = buffer.withUnsafeBufferPointer { p in
                JSONStreamReader.plainRun(p, from: position, to: end)
            }
            if stop > position {
                let from = position
                buffer.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[from..<stop])) }
                position = stop
            }
            if position == end {
                guard try refill() != nil else { throw fail(.unterminatedString) }
                continue
            }
            let c = buffer[position]
            if c == UInt8(ascii: "\"") {
                position += 1
                return escaped
            } else if c == UInt8(ascii: "\\") {
                escaped = true
                try escape(into: &out, decode: decode)
            } else if c < 0x20 {
                throw fail(.controlCharacter(c))
            } else {
                try multibyte(into: &out)
            }
        }
    }

    private mutating func escape(into out: inout [UInt8], decode: Bool) throws(ErrorRecord) {
        guard try ensure(2) else { position = end; throw fail(.unterminatedString) }
        let e = buffer[position + 1]
        switch e {
        case _ where JSONEscapes.shortEscapeValue(e) != nil:
            if decode {
                out.append(JSONEscapes.shortEscapeValue(e)!)
            } else {
                out.append(UInt8(ascii: "\\"))
                out.append(e)
            }
            position += 2
        case UInt8(ascii: "u"):
            let unit = try hex4(position + 2, escapeAt: position)
            var scalar = unit
            var length = 6
            if unit >= 0xDC00 && unit < 0xE000 {
                throw fail(.loneLowSurrogate(unit), at: position)
            }
            if unit >= 0xD800 && unit < 0xDC00 {
                _ = try ensure(12)
                guard end - position >= 8, buffer[position + 6] == UInt8(ascii: "\\"), buffer[position + 7] == UInt8(ascii: "u") else {
                    // A line cut by the end of the stream before its low half: at the end.
                    let rest = buffer[(position + 6)..<end]
                    if atEOF, !multiline, rest.elementsEqual(Array("\\u".utf8).prefix(rest.count)) { throw fail(.loneHighSurrogate(unit), at: end) }
                    throw fail(.loneHighSurrogate(unit), at: position)
                }
                // A line cut inside the low half: truncated when its digits
                // so far can begin one (DC00 to DFFF), else no low half.
                if atEOF, !multiline, end < position + 12 {
                    let digits = buffer[(position + 8)..<end]
                    // A digit that is none: said at it, as uncut.
                    if let bad = digits.firstIndex(where: { JSONEscapes.hexValue($0) < 0 }) { throw fail(.invalidHexDigit, at: bad) }
                    let canBegin = digits.enumerated().allSatisfy { k, d in
                        k == 0 ? d | 0x20 == UInt8(ascii: "d") : k == 1 ? (UInt8(ascii: "c")...UInt8(ascii: "f")).contains(d | 0x20) : true
                    }
                    throw canBegin ? fail(.unterminatedHexEscape, at: end) : fail(.highSurrogateWithoutLow, at: position)
                }
                let low = try hex4(position + 8, escapeAt: position)
                guard low >= 0xDC00 && low < 0xE000 else {
                    throw fail(.highSurrogateWithoutLow, at: position)
                }
                scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                length = 12
            }
            if decode {
                JSONEscapes.appendUTF8(UInt32(scalar), to: &out)
            } else {
                out.append(contentsOf: buffer[position..<(position + length)])
            }
            position += length
        default:
            position += 1
            throw fail(.invalidEscape(e))
        }
    }

    /// The value of four hex digits at `index` (relative to the current buffer).
    private mutating func hex4(_ index: Int, escapeAt: Int) throws(ErrorRecord) -> Int {
        let offset = index - position
        _ = try ensure(offset + 4)
        let start = position + offset
        var v = 0
        for k in 0..<4 {
            guard start + k < end else { throw fail(.unterminatedHexEscape, at: start + k) }
            let h = JSONEscapes.hexValue(buffer[start + k])
            guard h >= 0 else { throw fail(.invalidHexDigit, at: start + k) }
            v = v << 4 | h
        }
        return v
    }

    private mutating func multibyte(into out: inout [UInt8]) throws(ErrorRecord) {
        let c = buffer[position]
        _ = try ensure((JSONEscapes.utf8Sequence(c)?.continuations ?? 0) + 1)
        let from = position, to = end
        let length = buffer.withUnsafeBufferPointer { JSONEscapes.utf8SequenceLength($0.baseAddress!, from, to) }
        if length == 0 { throw fail(.invalidUTF8(c)) }
        if length < 0 {
            // A line cut by the end of the stream, its bytes so far right: at the end.
            // (The first continuation in the lead's own range: an overlong
            // or surrogate start is invalid however it goes on.)
            let sequence = JSONEscapes.utf8Sequence(c)
            let needed = (sequence?.continuations ?? 0) + 1
            let present = buffer[(position + 1)..<end]
            let rightSoFar = sequence.map { s in present.enumerated().allSatisfy { k, b in k == 0 ? (s.low...s.high).contains(b) : b & 0xC0 == 0x80 } } ?? false
            if atEOF, !multiline, position + needed > end, rightSoFar {
                throw fail(.invalidUTF8Sequence(c), at: end)
            }
            throw fail(.invalidUTF8Sequence(c))
        }
        out.append(contentsOf: buffer[position..<(position + length)])
        position += length
    }

    /// Reads a number; its text goes into `out` (appended).
    public mutating func number(into out: inout [UInt8]) throws(ErrorRecord) {
        guard try peek() != nil else { throw fail(.expectedValue) }
        mark = position
        defer { mark = nil }
        var i = position
        func at(_ j: inout Int) throws(ErrorRecord) -> UInt8? {
            if j >= end {
                // Refilling may move the kept bytes even when it then finds the
                // end of the stream: keep `j` relative to the token's mark.
                let offset = j - mark!
                let more = try refill() != nil
                j = mark! + offset
                if !more || j >= end { return nil }
            }
            return buffer[j]
        }
        func isDigit(_ c: UInt8?) -> Bool { c.map { $0 &- UInt8(ascii: "0") < 10 } ?? false }
        if try at(&i) == UInt8(ascii: "-") { i += 1 }
        let first = try at(&i)
        if first == UInt8(ascii: "0") {
            i += 1
            if isDigit(try at(&i)) { throw fail(.leadingZero, at: i) }
        } else if isDigit(first) {
            while isDigit(try at(&i)) { i += 1 }
        } else {
            throw fail(.expectedDigit, at: i)
        }
        if try at(&i) == UInt8(ascii: ".") {
            i += 1
            guard isDigit(try at(&i)) else { throw fail(.expectedFractionDigit, at: i) }
            while isDigit(try at(&i)) { i += 1 }
        }
        let e = try at(&i)
        if e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            i += 1
            let sign = try at(&i)
            if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { i += 1 }
            guard isDigit(try at(&i)) else { throw fail(.expectedExponentDigit, at: i) }
            while isDigit(try at(&i)) { i += 1 }
        }
        let start = mark!
        out.append(contentsOf: buffer[start..<i])
        position = i
    }

    /// Reads and validates a number, keeping nothing: unlike `number`, which
    /// holds its text whole in the buffer, one of any length is read in
    /// bounded memory (a body that was one number of 60 MiB took 149 MB).
    private mutating func skipNumber() throws(ErrorRecord) {
        func next() throws(ErrorRecord) -> UInt8? {
            if position == end, try refill() == nil { return nil }
            return buffer[position]
        }
        func isDigit(_ c: UInt8?) -> Bool { c.map { $0 &- UInt8(ascii: "0") < 10 } ?? false }
        func digits() throws(ErrorRecord) {
            while true {
                let from = position, to = end
                position = buffer.withUnsafeBufferPointer { p in
                    var j = from
                    while j < to, p[j] &- UInt8(ascii: "0") < 10 { j += 1 }
                    return j
                }
                guard position == end, try refill() != nil else { return }
            }
        }
        if try next() == UInt8(ascii: "-") { position += 1 }
        let first = try next()
        if first == UInt8(ascii: "0") {
            position += 1
            if isDigit(try next()) { throw fail(.leadingZero) }
        } else if isDigit(first) {
            try digits()
        } else {
            throw fail(.expectedDigit)
        }
        if try next() == UInt8(ascii: ".") {
            position += 1
            guard isDigit(try next()) else { throw fail(.expectedFractionDigit) }
            try digits()
        }
        let e = try next()
        if e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            position += 1
            let sign = try next()
            if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { position += 1 }
            guard isDigit(try next()) else { throw fail(.expectedExponentDigit) }
            try digits()
        }
    }

    /// Reads `true`, `false` or `null`.
    public mutating func literal() throws(ErrorRecord) -> JSONDocument.Kind {
        let kind = try peekKind()
        let word: [UInt8]
        switch kind {
        case .true: word = Array("true".utf8)
        case .false: word = Array("false".utf8)
        case .null: word = Array("null".utf8)
        default: throw fail(.expectedLiteral)
        }
        _ = try ensure(word.count)
        for (k, c) in word.enumerated() where position + k >= end || buffer[position + k] != c {
            // A line cut by the end of the stream (its letters so far
            // right): at the end, a truncated line (a document's error
            // stays the tape parser's).
            throw fail(.invalidLiteral(String(decoding: word, as: UTF8.self)), at: position + k >= end && !multiline ? end : nil)
        }
        position += word.count
        return kind
    }

    /// Reads and validates the next value, keeping nothing: in bounded
    /// memory, however long its strings, keys and numbers.
    public mutating func skipValue() throws(ErrorRecord) {
        var scratch: [UInt8] = []
        let depth = open.count
        var key: [UInt8] = []
        var skipper = SkippedObjects()
        repeat {
            if open.count > depth {
                // Inside a container opened here: the next member or element, or its end.
                let isObject = open[open.count - 1].isObject
                // An array's flat objects, many at a time (an array of records, say).
                if !isObject { _ = try readFlatObjects(minimum: 1 << 14, &skipper) }
                let more = isObject ? try nextMember(key: &key, bounded: true) : try nextElement()
                if !more { continue }
            }
            switch try peekKind() {
            case .object: try push(isObject: true)
            case .array: try push(isObject: false)
            case .string:
                scratch.removeAll(keepingCapacity: true)
                try string(into: &scratch, decode: false, bounded: true)
            case .number:
                try skipNumber()
            default: _ = try literal()
            }
        } while open.count > depth
    }

    /// Reads the next value whole and appends its compact JSON text to `out`
    /// (for a value to be kept whole).
    public mutating func captureValue(into out: inout [UInt8]) throws(ErrorRecord) {
        let depth = open.count
        var key: [UInt8] = []
        var first = true
        repeat {
            if open.count > depth {
                let isObject = open[open.count - 1].isObject
                let count = open[open.count - 1].count
                if isObject {
                    let more = try nextMember(key: &key)
                    if !more { out.append(UInt8(ascii: "}")); continue }
                    if count > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(UInt8(ascii: "\""))
                    JSONWriter.appendEscaped(key, to: &out)
                    out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
                } else {
                    let more = try nextElement()
                    if !more { out.append(UInt8(ascii: "]")); continue }
                    if count > 0 { out.append(UInt8(ascii: ",")) }
                }
            } else if !first {
                break
            }
            first = false
            switch try peekKind() {
            case .object: try push(isObject: true); out.append(UInt8(ascii: "{"))
            case .array: try push(isObject: false); out.append(UInt8(ascii: "["))
            case .string:
                out.append(UInt8(ascii: "\""))
                try string(into: &out, decode: false)
                out.append(UInt8(ascii: "\""))
            case .number: try number(into: &out)
            case .true: _ = try literal(); out.append(contentsOf: Array("true".utf8))
            case .false: _ = try literal(); out.append(contentsOf: Array("false".utf8))
            case .null: _ = try literal(); out.append(contentsOf: Array("null".utf8))
            }
        } while open.count > depth
    }

    /// The index of the first byte in `p[from..<to]` that ends a plain run
    /// of string content (a quote, a backslash, a control character or a
    /// non-ASCII byte), or `to`. Eight bytes at a time while it can.
    @inline(__always)
    static func plainRun(_ p: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int {
        var i = from
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let base = UnsafeRawPointer(p.baseAddress!)
        while i + 8 <= to {
            let x = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let quote = x ^ (ones &* 0x22)
            let slash = x ^ (ones &* 0x5C)
            let special = ((x &- ones &* 0x20) & ~x)
                | ((quote &- ones) & ~quote)
                | ((slash &- ones) & ~slash)
                | x
            if special & highs != 0 { break }
            i += 8
        }
        while i < to {
            let c = p[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { break }
            i += 1
        }
        return i
    }

}
