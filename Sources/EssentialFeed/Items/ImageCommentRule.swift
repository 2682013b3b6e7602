/// The image comment rules, written once: an item is a comment when it has
/// a UUID `id`, a string `message`, an ISO 8601 `created_at` and an `author`
/// object with a string `username`. Its record is
/// `{"id","message","created_at","username"}`, the id in upper case and the
/// date in UTC with `Z`.
///
/// `ImageCommentsMapper`, the streaming mapper and the fast path find an
/// item's fields each their own way and hand them here; the fast path takes
/// any rejection as "leave this item to the general path".
struct ImageCommentRule {
    /// An item's members as found (`username` from the last `author`).
    struct Fields {
        var id = ItemField()
        var message = ItemField()
        var createdAt = ItemField()
        var username = ItemField()
        var authorIsObject = false
    }

    private var id = ItemID()
    private var scratch: [UInt8] = []
    /// The date as written, when it is not already in that form.
    private var date: [UInt8] = []
    private var dateIsWritten = false

    init() {
        scratch.reserveCapacity(64)
        date.reserveCapacity(64)
    }

    /// The first rule `item` breaks, in the order the messages promise, or
    /// nil when it is a comment.
    @inline(__always)
    mutating func check(_ item: Fields) -> ItemRejection? {
        if let rejection = id.check(item.id) { return rejection }
        guard item.message.isString else { return .messageNotString }
        guard item.createdAt.isString else { return .createdAtNotString }
        guard readDate(item.createdAt) else { return .createdAtNotDate }
        guard item.authorIsObject else { return .authorNotObject }
        guard item.username.isString else { return .usernameNotString }
        return nil
    }

    /// A date already in the written form but for its zero offset is copied
    /// (its first 19 bytes and `Z`); any other is parsed and written out.
    @inline(__always)
    private mutating func readDate(_ field: ItemField) -> Bool {
        dateIsWritten = !field.escaped && Timestamp.isCanonicalUTC(field.bytes)
        if dateIsWritten { return true }
        guard let timestamp = field.content(&scratch, { Timestamp(iso8601Bytes: $0) }) else { return false }
        date.removeAll(keepingCapacity: true)
        timestamp.appendISO8601(to: &date)
        return true
    }

    /// Writes the record of the item `check` has just accepted, and a newline.
    @inline(__always)
    func write(_ item: Fields, into records: RecordBuffer) {
        // Rewritten content is never longer than its source; 64 covers the keys.
        let room = 36 + item.message.bytes.count + item.username.bytes.count + max(date.count, 20) + 64
        var w = RecordCursor(records.reserve(room))
        w.put(#"{"id":""#)
        id.write(item.id, to: &w)
        w.put(#"","message":""#)
        w.putContent(item.message)
        w.put(#"","created_at":""#)
        if dateIsWritten {
            w.put(UnsafeBufferPointer(rebasing: item.createdAt.bytes[0..<19]))
            w.put(UInt8(ascii: "Z"))
        } else {
            date.withUnsafeBufferPointer { w.put($0) }
        }
        w.put(#"","username":""#)
        w.putContent(item.username)
        w.put("\"}\n")
        records.count = w.pointer - records.base
    }
}
