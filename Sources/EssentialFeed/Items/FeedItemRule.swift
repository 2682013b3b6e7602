/// The feed item rules, written once: an item is a feed image when it has a
/// UUID `id`, an absolute URL `image` and optional string `description` and
/// `location` (`null` counts as absent). Its record is
/// `{"id","description"?,"location"?,"url"}`, the id in upper case.
///
/// `FeedItemsMapper`, the streaming mapper and the fast path find an item's
/// fields each their own way and hand them here; the fast path takes any
/// rejection as "leave this item to the general path".
struct FeedItemRule {
    /// An item's members as found.
    struct Fields {
        var id = ItemField()
        var image = ItemField()
        var description = ItemField()
        var location = ItemField()
    }

    private var id = ItemID()
    private var scratch: [UInt8] = []

    init() {
        scratch.reserveCapacity(256)
    }

    /// The first rule `item` breaks, in the order the messages promise, or
    /// nil when it is a feed image.
    @inline(__always)
    mutating func check(_ item: Fields) -> ItemRejection? {
        if let rejection = id.check(item.id) { return rejection }
        guard item.image.kind != .absent else { return .noImage }
        guard item.image.isString, item.image.content(&scratch, { Identifiers.isAbsoluteURL(bytes: $0) }) else { return .imageNotURL }
        guard item.description.kind != .other else { return .descriptionNotString }
        guard item.location.kind != .other else { return .locationNotString }
        return nil
    }

    /// Writes the record of the item `check` has just accepted, and a newline.
    @inline(__always)
    func write(_ item: Fields, into records: RecordBuffer) {
        // Rewritten content is never longer than its source; 64 covers the rest.
        let room = 36 + item.image.bytes.count + item.description.bytes.count + item.location.bytes.count + 64
        var w = RecordCursor(records.reserve(room))
        w.put(#"{"id":""#)
        id.write(item.id, to: &w)
        if item.description.isString {
            w.put(#"","description":""#)
            w.putContent(item.description)
        }
        if item.location.isString {
            w.put(#"","location":""#)
            w.putContent(item.location)
        }
        w.put(#"","url":""#)
        w.putContent(item.image)
        w.put("\"}\n")
        records.count = w.pointer - records.base
    }
}
