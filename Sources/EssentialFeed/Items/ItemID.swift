/// The `id` rule every item kind shares: present, a string, a UUID in any
/// letter case; written in upper case.
struct ItemID {
    /// The id decoded, when it was written with escapes.
    private var decoded: [UInt8] = []

    init() {
        decoded.reserveCapacity(64)
    }

    @inline(__always)
    mutating func check(_ id: ItemField) -> ItemRejection? {
        guard id.kind != .absent else { return .noID }
        guard id.isString, id.content(&decoded, { Identifiers.isUUID(bytes: $0) }) else { return .idNotUUID }
        return nil
    }

    /// Writes the id `check` has just accepted.
    @inline(__always)
    func write(_ id: ItemField, to w: inout RecordCursor) {
        if id.escaped {
            decoded.withUnsafeBufferPointer { w.putUppercasedUUID($0) }
        } else {
            w.putUppercasedUUID(id.bytes)
        }
    }
}
