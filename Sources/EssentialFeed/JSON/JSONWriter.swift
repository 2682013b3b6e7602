/// Writes compact JSON into a byte buffer.
///
/// The writer keeps track of commas: call `beginObject()`, then `key(_:)`
/// followed by one value per member, then `endObject()`. Strings are escaped
/// minimally (quote, backslash, control characters) and otherwise written as
/// UTF-8. Values copied from a `JSONDocument` are re-emitted compactly from
/// their source bytes, keeping their original escapes and number text.
public struct JSONWriter: Sendable {
    public var bytes: [UInt8]
    /// One entry per open container: whether it already holds a value.
    private var hasValue: [Bool] = []
    private var afterKey = false

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Empties the buffer, keeping its capacity.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        hasValue.removeAll(keepingCapacity: true)
        afterKey = false
    }

    @inline(__always)
    private mutating func separate() {
        if afterKey { afterKey = false; return }
        if let last = hasValue.last {
            if last { bytes.append(UInt8(ascii: ",")) } else { hasValue[hasValue.count - 1] = true }
        }
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        hasValue.append(false)
    }

    public mutating func endObject() {
        hasValue.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        hasValue.append(false)
    }

    public mutating func endArray() {
        hasValue.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    public mutating func key(_ key: String) {
        string(key)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    public mutating func string(_ value: String) {
        separate()
        var value = value
        value.withUTF8 { appendQuoted($0) }
    }

    public mutating func int(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
    }

    /// Writes bytes that already form one valid compact JSON value.
    public mutating func rawValue<C: Collection>(_ json: C) where C.Element == UInt8 {
        separate()
        bytes.append(contentsOf: json)
    }

    /// Writes `key: value` for a string member.
    public mutating func member(_ key: String, _ value: String) {
        self.key(key)
        string(value)
    }

    /// Writes `key: "BASE64"` for `data`, encoded straight into the buffer
    /// (base64's alphabet needs no escape).
    public mutating func memberBase64(_ key: String, _ data: [UInt8]) {
        self.key(key)
        separate()
        bytes.reserveCapacity(bytes.count + Base64.encodedCount(data.count) + 2)
        bytes.append(UInt8(ascii: "\""))
        Base64.append(data, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes `key: value` for a string member when the value is present.
    public mutating func member(_ key: String, _ value: String?) {
        guard let value else { return }
        member(key, value)
    }

    public mutating func member(_ key: String, _ value: Int) {
        self.key(key)
        int(value)
    }

    /// Copies node `node` of `document` (and everything inside it) compactly.
    public mutating func value(_ document: JSONDocument, _ node: Int) {
        separate()
        appendCompact(document, node)
    }

    /// Copies `key: node` from `document`.
    public mutating func member(_ key: String, _ document: JSONDocument, _ node: Int) {
        self.key(key)
        value(document, node)
    }

    /// Copies every member of object `object` except those named in `excluding`.
    public mutating func members(of document: JSONDocument, _ object: Int, excluding: Set<String> = []) {
        for k in document.keys(object) {
            if !excluding.isEmpty, let name = document.string(k), excluding.contains(name) { continue }
            separate()
            appendCompact(document, k)
            bytes.append(UInt8(ascii: ":"))
            appendCompact(document, k + 1)
        }
    }

    private mutating func appendCompact(_ document: JSONDocument, _ node: Int) {
        let end = document.next(node)
        // The containers still open: where each ends, whether it is an object,
        // and how many children it has had (object children alternate key, value).
        var open: [(end: Int, isObject: Bool, children: Int)] = []
        var index = node
        while index < end {
            while let last = open.last, index >= last.end {
                bytes.append(last.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                open.removeLast()
            }
            if let last = open.last {
                if last.children > 0 {
                    bytes.append(last.isObject && last.children % 2 == 1 ? UInt8(ascii: ":") : UInt8(ascii: ","))
                }
                open[open.count - 1].children += 1
            }
            let n = document.nodes[index]
            switch n.kind {
            case .object:
                bytes.append(UInt8(ascii: "{"))
                open.append((n.end, true, 0))
            case .array:
                bytes.append(UInt8(ascii: "["))
                open.append((n.end, false, 0))
            case .string:
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: document.bytes[n.start..<n.end])
                bytes.append(UInt8(ascii: "\""))
            default:
                bytes.append(contentsOf: document.bytes[n.start..<n.end])
            }
            index += 1
        }
        while let last = open.popLast() { bytes.append(last.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) }
    }

    private mutating func appendQuoted(_ s: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        JSONWriter.appendEscaped(s, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends the JSON string content (without quotes) of the UTF-8 text `s`.
    public static func appendEscaped(_ s: [UInt8], to bytes: inout [UInt8]) {
        s.withUnsafeBufferPointer { appendEscaped($0, to: &bytes) }
    }

    /// Appends the JSON string content (without quotes) of the UTF-8 text `s`.
    public static func appendEscaped(_ s: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        var runStart = 0
        var i = 0
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while i < s.count {
            // Eight bytes at a time while none of them needs an escape.
            if i + 8 <= s.count {
                let x = UnsafeRawPointer(s.baseAddress!).loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let quote = x ^ (ones &* 0x22)
                let slash = x ^ (ones &* 0x5C)
                let special = ((x &- ones &* 0x20) & ~x) | ((quote &- ones) & ~quote) | ((slash &- ones) & ~slash)
                if special & highs == 0 {
                    i += 8
                    continue
                }
            }
            let c = s[i]
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") { i += 1; continue }
            if runStart < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: s[runStart..<i])) }
            bytes.append(UInt8(ascii: "\\"))
            if let short = shortEscape(UInt32(c)) {
                bytes.append(short)
            } else {
                let hex: StaticString = "0123456789abcdef"
                bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex.utf8Start[Int(c >> 4)], hex.utf8Start[Int(c & 0xF)]])
            }
            i += 1
            runStart = i
        }
        if runStart < s.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: s[runStart..<s.count])) }
    }

    /// The letter of the two-character escape the writer uses for `v`
    /// (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`), if it has one; other
    /// characters below 0x20 are written `\u00XX`, the rest as they are.
    @inline(__always)
    static func shortEscape(_ v: UInt32) -> UInt8? {
        switch v {
        case 0x22: UInt8(ascii: "\"")
        case 0x5C: UInt8(ascii: "\\")
        case 0x0A: UInt8(ascii: "n")
        case 0x0D: UInt8(ascii: "r")
        case 0x09: UInt8(ascii: "t")
        case 0x08: UInt8(ascii: "b")
        case 0x0C: UInt8(ascii: "f")
        default: nil
        }
    }
}
