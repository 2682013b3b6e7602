/// A scalar value as it lies in a buffer, located, not copied: what
/// `JSONFlatObjectScanner` tells its visitor.
struct JSONScalar {
    enum Kind: UInt8 {
        case string = 1, null, bool, number
    }

    var kind: Kind
    /// A string's source bytes, as written between its quotes (empty for
    /// the other kinds).
    var bytes: UnsafeBufferPointer<UInt8>
    /// Whether `bytes` hold a backslash escape.
    var escaped: Bool

    @inline(__always)
    init(kind: Kind, bytes: UnsafeBufferPointer<UInt8> = UnsafeBufferPointer(start: nil, count: 0), escaped: Bool = false) {
        self.kind = kind
        self.bytes = bytes
        self.escaped = escaped
    }
}
