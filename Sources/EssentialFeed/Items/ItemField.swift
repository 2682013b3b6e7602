/// A member of an item object as a reader found it: absent, a string (its
/// source bytes between the quotes, escapes and all), `null`, or any other
/// kind. The document parser, the stream reader and the fast path all hand
/// the item rules their fields in this one form.
struct ItemField {
    enum Kind: UInt8 {
        case absent, string, null, other
    }

    var kind: Kind
    /// A string's source bytes, as written between its quotes.
    var bytes: UnsafeBufferPointer<UInt8>
    /// Whether `bytes` hold a backslash escape (then they are decoded before
    /// a check and rewritten on output).
    var escaped: Bool

    init(kind: Kind = .absent, bytes: UnsafeBufferPointer<UInt8> = UnsafeBufferPointer(start: nil, count: 0), escaped: Bool = false) {
        self.kind = kind
        self.bytes = bytes
        self.escaped = escaped
    }

    /// A field as `JSONFlatObjectScanner` found it.
    @inline(__always)
    init(_ value: JSONScalar) {
        // The scalar kinds' raw values are the field kinds' (bool and number: other).
        self.init(kind: Kind(rawValue: min(value.kind.rawValue, Kind.other.rawValue)).unsafelyUnwrapped, bytes: value.bytes, escaped: value.escaped)
    }

    var isString: Bool { kind == .string }

    /// Calls `body` with the decoded content: the bytes themselves when there
    /// is no escape, else their decoding in `scratch`.
    @inline(__always)
    func content<R>(_ scratch: inout [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard escaped, let base = bytes.baseAddress else { return body(bytes) }
        scratch.removeAll(keepingCapacity: true)
        JSONEscapes.unescape(base, 0, bytes.count, into: &scratch)
        return scratch.withUnsafeBufferPointer(body)
    }
}
