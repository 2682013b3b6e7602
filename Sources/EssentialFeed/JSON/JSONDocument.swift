/// A parsed JSON text: the bytes it was read from and a flat "tape" of nodes
/// that point into them.
///
/// Parsing validates the whole text (RFC 8259 grammar, strict UTF-8, escapes
/// and surrogate pairs, a nesting limit) but decodes nothing: strings and
/// numbers stay byte ranges until someone asks for them, and a record passed
/// on unchanged is re-emitted from the ranges without ever becoming a Swift
/// `String`. Nodes are addressed by index; the root is node 0.
///
/// Containers are followed by their children in document order; an object's
/// children alternate key, value. Each container records the index just past
/// its subtree, so skipping a value costs one step.
public struct JSONDocument: Sendable {
    /// The kind of a node.
    public enum Kind: UInt8, Sendable {
        case null, `true`, `false`, number, string, array, object
    }

    struct Node: Sendable {
        var kind: Kind
        /// Strings: the content holds at least one backslash escape.
        var escaped: Bool
        /// Scalars: the byte range of the token (strings without their quotes).
        /// Containers: `start` is the opening bracket, `end` the index past the subtree's last node.
        var start: Int
        var end: Int
        /// Containers: the number of elements (arrays) or members (objects).
        var count: Int
    }

    /// The bytes of the text, exactly as given.
    public let bytes: [UInt8]
    var nodes: [Node]

    /// The index of the root value.
    public var root: Int { 0 }

    init(bytes: [UInt8], nodes: [Node]) {
        self.bytes = bytes
        self.nodes = nodes
    }

    // MARK: Inspecting nodes

    public func kind(_ node: Int) -> Kind { nodes[node].kind }

    /// The number of elements of an array or members of an object; 0 for scalars.
    public func count(_ node: Int) -> Int { nodes[node].count }

    /// The index just past `node` and everything inside it.
    @inline(__always)
    public func next(_ node: Int) -> Int {
        let n = nodes[node]
        return (n.kind == .array || n.kind == .object) ? n.end : node + 1
    }

    /// The indices of an array's elements.
    public func elements(_ array: Int) -> JSONChildren {
        precondition(nodes[array].kind == .array)
        return JSONChildren(document: self, first: array + 1, end: nodes[array].end, stride: 1)
    }

    /// The indices of an object's keys; the value of key `k` is `k + 1`.
    public func keys(_ object: Int) -> JSONChildren {
        precondition(nodes[object].kind == .object)
        return JSONChildren(document: self, first: object + 1, end: nodes[object].end, stride: 2)
    }

    /// The value of `key` in `object`, or nil when absent or when `object` is
    /// not an object. With duplicate keys the last one wins, as in ECMAScript and jq.
    public func member(_ object: Int, _ key: String) -> Int? {
        guard nodes[object].kind == .object else { return nil }
        var key = key
        return key.withUTF8 { wanted in
            var found: Int?
            var k = object + 1
            let end = nodes[object].end
            while k < end {
                if stringEquals(k, wanted) { found = k + 1 }
                k = next(k + 1)
            }
            return found
        }
    }

    /// Whether string node `node` holds exactly the UTF-8 bytes `wanted`.
    func stringEquals(_ node: Int, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = nodes[node]
        guard n.kind == .string else { return false }
        if n.escaped { return Array(decodedString(n).utf8).elementsEqual(wanted) }
        guard n.end - n.start == wanted.count else { return false }
        return bytes.withUnsafeBufferPointer { all in
            var i = 0
            while i < wanted.count {
                if all[n.start + i] != wanted[i] { return false }
                i += 1
            }
            return true
        }
    }

    // MARK: Reading values

    /// The decoded value of a string node, or nil for other kinds.
    public func string(_ node: Int) -> String? {
        let n = nodes[node]
        guard n.kind == .string else { return nil }
        return decodedString(n)
    }

    /// The source text of a number node, exactly as written (never rounded).
    public func numberText(_ node: Int) -> String? {
        let n = nodes[node]
        guard n.kind == .number else { return nil }
        return String(decoding: bytes[n.start..<n.end], as: UTF8.self)
    }

    /// The value of a number node written as an integer (no fraction or
    /// exponent) that fits in `Int`, else nil.
    public func int(_ node: Int) -> Int? {
        let n = nodes[node]
        guard n.kind == .number else { return nil }
        return bytes.withUnsafeBufferPointer { JSONEscapes.integer(UnsafeBufferPointer(rebasing: $0[n.start..<n.end])) }
    }

    /// The byte range of a scalar's token (a string's without quotes).
    public func range(_ node: Int) -> Range<Int> { nodes[node].start..<nodes[node].end }

    /// Whether a string node's content contains escapes.
    public func isEscaped(_ node: Int) -> Bool { nodes[node].escaped }

    private func decodedString(_ n: Node) -> String {
        if !n.escaped { return String(decoding: bytes[n.start..<n.end], as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(n.end - n.start)
        JSONEscapes.unescape(bytes, n.start, n.end, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// The indices of an array's elements or an object's keys.
public struct JSONChildren: Sequence, Sendable {
    let document: JSONDocument
    let first: Int
    let end: Int
    let stride: Int

    public struct Iterator: IteratorProtocol {
        let document: JSONDocument
        var current: Int
        let end: Int
        let stride: Int
        public mutating func next() -> Int? {
            guard current < end else { return nil }
            let node = current
            current = stride == 1 ? document.next(node) : document.next(node + 1)
            return node
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(document: document, current: first, end: end, stride: stride)
    }
}

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
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
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
            default: out.append(e)  // " \ /
            }
        }
    }

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
