

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
