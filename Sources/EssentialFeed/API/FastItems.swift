/// The quick way through an items array: the visitor that
/// `JSONStreamReader.readFlatObjects` hands each item's members to, located
/// in the reader's buffer, not copied. It keeps each item's fields, checks
/// them against the item's rule at the item's end, and writes the record at
/// once into the mapper's record buffer, string content copied as it
/// stands when it needs no escape changed. An item the rule rejects is left
/// to the general path, which reads and reports it exactly; the reader
/// validates the JSON and moves its own cursor.
struct FastItems: JSONFlatObjectVisitor {
    let comments: Bool
    /// Where records go, and how full they may get before the mapper flushes.
    var records: RecordBuffer
    var limit: Int
    /// The rules items are checked against and written by.
    private var feedRule = FeedItemRule()
    private var commentRule = ImageCommentRule()
    /// The current item's fields. Feed: id, image, description, location;
    /// comments: id, message, created_at, author's username.
    private var id = ItemField(), a = ItemField(), c = ItemField(), d = ItemField()
    private var authorIsObject = false

    init(comments: Bool, records: RecordBuffer, limit: Int) {
        self.comments = comments
        self.records = records
        self.limit = limit
    }

    var isFull: Bool { records.count >= limit }

    @inline(__always)
    mutating func begin() {
        id = ItemField(); a = ItemField(); c = ItemField(); d = ItemField()
        authorIsObject = false
    }

    @inline(__always)
    mutating func member(_ name: JSONName, _ value: JSONScalar, nested: Bool) {
        let key = Self.name(name)
        if nested {
            if key == .username { d = ItemField(value) }
            return
        }
        switch (comments, key) {
        case (_, .id): id = ItemField(value)
        case (false, .image), (true, .message): a = ItemField(value)
        case (false, .description), (true, .createdAt): c = ItemField(value)
        case (false, .location): d = ItemField(value)
        case (true, .author): d = ItemField(); authorIsObject = false
        default: break
        }
    }

    @inline(__always)
    mutating func enterObject(_ name: JSONName) -> Bool {
        guard comments, Self.name(name) == .author else { return false }
        d = ItemField()
        authorIsObject = true
        return true
    }

    @inline(__always)
    mutating func end() -> Bool {
        if comments {
            let fields = ImageCommentRule.Fields(id: id, message: a, createdAt: c, username: d, authorIsObject: authorIsObject)
            guard commentRule.check(fields) == nil else { return false }
            commentRule.write(fields, into: records)
        } else {
            let fields = FeedItemRule.Fields(id: id, image: a, description: c, location: d)
            guard feedRule.check(fields) == nil else { return false }
            feedRule.write(fields, into: records)
        }
        return true
    }

    /// The item names (and `url`, for `FeedImageRecordLine`), told by
    /// length and the name's first words; any
    /// other name is `.other` here, as `MemberName`, the one matcher of
    /// names, has it (`FastItemsTests` checks each constant against it).
    @inline(__always)
    static func name(_ k: JSONName) -> MemberName {
        switch k.bytes.count {
        case 2: return k.word0 == 0x6469 ? .id : .other                                            // id
        case 3: return k.word0 == 0x6C_7275 ? .url : .other                                         // url
        case 5: return k.word0 == 0x65_6761_6D69 ? .image : .other                                  // image
        case 6: return k.word0 == 0x726F_6874_7561 ? .author : .other                               // author
        case 7: return k.word0 == 0x65_6761_7373_656D ? .message : .other                           // message
        case 8: return k.word0 == 0x6E6F_6974_6163_6F6C ? .location : k.word0 == 0x656D_616E_7265_7375 ? .username : .other
        case 10: return k.word0 == 0x5F64_6574_6165_7263 && k.word1 == 0x7461 ? .createdAt : .other        // created_at
        case 11: return k.word0 == 0x7470_6972_6373_6564 && k.word1 == 0x6E_6F69 ? .description : .other   // description
        default: return .other
        }
    }
}
