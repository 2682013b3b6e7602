/// `feed-map` and `comments-map` over a stream: response records in, one
/// record per item out, in constant memory whatever the size of a response.
///
/// Produces exactly what `FeedItemsMapper` and `ImageCommentsMapper` produce
/// through `JSONDocument`, with the same rules and messages, and the same
/// answer to duplicate keys: the last one wins. A body is mapped as it is
/// read and its records are held until the end of the record, where the last
/// `status` decides; a `body_base64` body (used only when there is no `body`)
/// is kept and mapped through those mappers once the record has been read.
public struct StreamingResponseMapper {
    public typealias Kind = ResponseKind

    let kind: Kind
    private var key: [UInt8] = []
    private var innerKey: [UInt8] = []
    private var scratch: [UInt8] = []
    /// The source bytes of the current item's string fields.
    private var itemBytes: [UInt8] = []
    private var feedRule = FeedItemRule()
    private var commentRule = ImageCommentRule()
    /// The quick way through items (see `FastItems`).
    private var fast: FastItems
    /// Records built and not yet handed to the sink.
    private let records = RecordBuffer()
    /// Records are handed to the sink in batches of about this many bytes.
    private static let batch = 1 << 16

    public init(kind: Kind) {
        self.kind = kind
        fast = FastItems(comments: kind == .comments, records: records, limit: Self.batch)
        itemBytes.reserveCapacity(512)
    }

    // MARK: NDJSON input

    /// Maps every line of `reader`.
    public mutating func mapLines(_ reader: inout JSONStreamReader, into sink: any MappedRecordSink) throws(ErrorRecord) {
        while try reader.startLine() {
            do throws(ErrorRecord) {
                try mapLine(&reader, into: sink)
            } catch {
                discard(sink)
                if error.kind == .store { throw error }
                sink.fail(error)
                try reader.skipRestOfLine()
            }
        }
    }

    private mutating func mapLine(_ reader: inout JSONStreamReader, into sink: any MappedRecordSink) throws(ErrorRecord) {
        let line = reader.lineNumber
        guard try reader.peekKind() == .object else {
            throw ErrorRecord(.invalidData, "not a JSON object", line: line)
        }
        try reader.beginObject()
        var url: String?
        var etag: String?
        var lastModified: String?
        var status: Int?
        var statusInvalid = false
        var errorKind: ErrorKind?
        // The last `body`, mapped as it is read: its records wait in the sink
        // until the end of the record decides (the last `status` may follow it).
        var streamed: Result<Void, MappingRejection>?
        // The last `body_base64`, kept as text: decoded at the end, and only
        // when no `body` decides.
        var base64: Base64Member = .absent
        var hasID = false
        while try reader.nextMember(key: &key, bounded: true) {
            switch MemberName(key) {
            case .error:
                if try reader.peekKind() == .string {
                    scratch.removeAll(keepingCapacity: true)
                    try reader.string(into: &scratch, decode: true)
                    errorKind = ErrorKind(rawValue: String(decoding: scratch, as: UTF8.self)) ?? .internal
                } else {
                    try reader.skipValue()
                    errorKind = .internal
                }
            case .url:
                if try reader.peekKind() == .string {
                    scratch.removeAll(keepingCapacity: true)
                    try reader.string(into: &scratch, decode: true)
                    url = String(decoding: scratch, as: UTF8.self)
                } else {
                    try reader.skipValue()
                    url = nil
                }
            case .etag, .lastModified:
                let name = MemberName(key)
                var value: String?
                if try reader.peekKind() == .string {
                    scratch.removeAll(keepingCapacity: true)
                    try reader.string(into: &scratch, decode: true)
                    value = String(decoding: scratch, as: UTF8.self)
                } else {
                    try reader.skipValue()
                }
                if name == .etag { etag = value } else { lastModified = value }
            case .status:
                if try reader.peekKind() == .number {
                    scratch.removeAll(keepingCapacity: true)
                    try reader.number(into: &scratch)
                    status = Self.integer(scratch).flatMap { (0...999).contains($0) ? $0 : nil }
                    statusInvalid = status == nil
                } else {
                    try reader.skipValue()
                    status = nil
                    statusInvalid = true
                }
            case .body:
                // With duplicate keys the last wins, as in JSONDocument.
                discard(sink)
                if errorKind != nil {
                    // An error record: passed through whatever its body.
                    try reader.skipValue()
                    streamed = .success(())
                } else {
                    streamed = try mapBody(&reader, into: sink)
                }
            case .bodyBase64:
                if try reader.peekKind() == .string {
                    var text: [UInt8] = []
                    try reader.string(into: &text, decode: true)
                    base64 = .text(text)
                } else {
                    try reader.skipValue()
                    base64 = .notString
                }
            case .id:
                hasID = true
                try reader.skipValue()
            default:
                try reader.skipValue()
            }
        }
        do throws(ErrorRecord) {
            try reader.finishLine()
        } catch where line == 1 && status == nil && !statusInvalid && errorKind == nil && url == nil {
            // One whole object with neither status nor url, and no newline
            // after it: what curl writes of an API's body, not a record.
            throw ErrorRecord(.invalidData, Self.bareBody, line: line)
        }
        if let errorKind {
            discard(sink)
            if let bytes = reader.finishedLine {
                sink.passThrough(bytes, kind: errorKind)
            } else {
                // Too long to keep: pass on what an error record needs.
                var writer = JSONWriter()
                ErrorRecord(errorKind, "an error record too long to pass through", context: context(url)).write(to: &writer)
                sink.passThrough(writer.bytes[...], kind: errorKind)
            }
            return
        }
        // In the order of Response(record:), then of the mappers.
        guard let status, !statusInvalid else {
            discard(sink)
            let what = statusInvalid ? "status is not an HTTP status code" : Response.noStatus(hasID: hasID)
            throw ErrorRecord(.invalidData, "\(what)", context: context(url), line: line)
        }
        // The URL as every printed record shows it: a password as `***`
        // (feed-fetch masked it already; a record made by hand may not).
        let page = PageRecord(url: Secrets.redactURL(url ?? ""), status: status, etag: etag, lastModified: lastModified)
        if kind == .feed, page.isNotModified {
            // The cached feed is current: no items, the page record alone.
            discard(sink)
            writePage(page, into: sink)
            return
        }
        guard let streamed else {
            discard(sink)
            switch base64 {
            case .absent:
                throw ErrorRecord(.invalidData, "not a response record: no body or body_base64", context: context(url), line: line)
            case .notString:
                throw ErrorRecord(.invalidData, "body_base64 is not base64", context: context(url), line: line)
            case let .text(text):
                guard let bytes = Base64.decode(text) else {
                    throw ErrorRecord(.invalidData, "body_base64 is not base64", context: context(url), line: line)
                }
                try mapKept(Response(url: url, status: status, body: .bytes(bytes)), page: page, line: line, into: sink)
                return
            }
        }
        guard kind.accepts(status) else {
            discard(sink)
            throw ErrorRecord(.invalidData, "\(MappingRejection.status(status).message(kind))", context: context(url), line: line)
        }
        switch streamed {
        case .success:
            writePage(page, into: sink)
        case let .failure(rejection):
            discard(sink)
            throw ErrorRecord(.invalidData, "\(rejection.message(kind))", context: context(url), line: line)
        }
    }

    /// A record's `body_base64` member, as last met.
    private enum Base64Member {
        case absent, notString
        case text([UInt8])
    }

    // MARK: Records to the sink

    private func flush(_ sink: any MappedRecordSink) {
        guard !records.isEmpty else { return }
        sink.items(records.bytes)
        records.removeAll()
    }

    private func commit(_ sink: any MappedRecordSink) {
        flush(sink)
        sink.commit()
    }

    private func discard(_ sink: any MappedRecordSink) {
        records.removeAll()
        sink.discard()
    }

    private func context(_ url: String?) -> [ErrorRecord.Field] {
        url.map { [ErrorRecord.Field("url", $0)] } ?? []
    }

    /// Commits the page's records, ended by its page record when the
    /// response carried validators or was a 304 (feed pages only).
    private func writePage(_ page: PageRecord, into sink: any MappedRecordSink) {
        if kind == .feed, page.isNotModified || page.etag != nil || page.lastModified != nil {
            var writer = JSONWriter()
            page.write(to: &writer)
            records.append(writer.bytes)
            records.append(0x0A)
        }
        commit(sink)
    }

    /// Maps a body kept whole, through the document mappers.
    private func mapKept(_ response: Response, page: PageRecord, line: Int?, into sink: any MappedRecordSink) throws(ErrorRecord) {
        do throws(ErrorRecord) {
            var writer = JSONWriter()
            func add(_ write: (inout JSONWriter) -> Void) {
                writer.reset()
                write(&writer)
                records.append(writer.bytes)
                records.append(0x0A)
                if records.count >= Self.batch { flush(sink) }
            }
            switch kind {
            case .feed: for image in try FeedItemsMapper.map(response) { add(image.write) }
            case .comments: for comment in try ImageCommentsMapper.map(response) { add(comment.write) }
            }
            writePage(page, into: sink)
        } catch {
            discard(sink)
            throw error.on(line: line ?? 0)
        }
    }

    // MARK: A bare payload (--raw)

    /// The failure of an input that is an API's body given without `--raw`.
    public static let bareBody = "input looks like an API body: use --raw"

    /// Maps the whole of `reader` as one status-200 body.
    public mutating func mapDocument(_ reader: inout JSONStreamReader, into sink: any MappedRecordSink) throws(ErrorRecord) {
        reader.multiline = true
        do throws(ErrorRecord) {
            guard try reader.peek() != nil else { throw ErrorRecord(.invalidData, "body is not JSON: empty input") }
            let result = try mapBody(&reader, into: sink)
            try reader.finishDocument()
            switch result {
            case .success: commit(sink)
            case let .failure(rejection): throw ErrorRecord(.invalidData, rejection.message(kind))
            }
        } catch {
            discard(sink)
            // About the whole input, read as one document.
            sink.fail(error.on(line: 0))
        }
    }

    // MARK: Bodies and items

    /// Reads a body value whole, mapping its items into `sink`. A body that
    /// breaks the mapper's rules is read to its end and reported as a rejection.
    private mutating func mapBody(_ reader: inout JSONStreamReader, into sink: any MappedRecordSink) throws(ErrorRecord) -> Result<Void, MappingRejection> {
        guard try reader.peekKind() == .object else {
            try reader.skipValue()
            return .failure(.bodyNotObject)
        }
        try reader.beginObject()
        var items: Result<Void, MappingRejection>?
        while try reader.nextMember(key: &key, bounded: true) {
            guard MemberName(key) == .items else {
                try reader.skipValue()
                continue
            }
            // With duplicate keys the last wins, as in JSONDocument.
            discard(sink)
            guard try reader.peekKind() == .array else {
                try reader.skipValue()
                items = .failure(.noItemsArray)
                continue
            }
            try reader.beginArray()
            var position = 0
            var rejection: MappingRejection?
            while true {
                if rejection == nil {
                    // As many whole items as the buffer holds, straight from it.
                    position += try reader.readFlatObjects(minimum: 1 << 14, &fast)
                    if records.count >= Self.batch { flush(sink) }
                }
                // The next item, if any, the general way.
                guard try reader.nextElement() else { break }
                position += 1
                if rejection != nil {
                    try reader.skipValue()
                    continue
                }
                guard try reader.peekKind() == .object else {
                    try reader.skipValue()
                    rejection = .itemNotObject(position: position)
                    continue
                }
                if let broken = try mapItem(&reader) {
                    rejection = .item(position: position, broken)
                } else if records.count >= Self.batch {
                    flush(sink)
                }
            }
            items = rejection.map { .failure($0) } ?? .success(())
        }
        return items ?? .failure(.noItemsArray)
    }

    /// Where a field of the current item lies in `itemBytes`.
    private struct FoundField {
        var kind = ItemField.Kind.absent
        var start = 0
        var end = 0
        var escaped = false

        func field(_ bytes: UnsafeBufferPointer<UInt8>) -> ItemField {
            ItemField(kind: kind, bytes: kind == .string ? UnsafeBufferPointer(rebasing: bytes[start..<end]) : ItemField().bytes, escaped: escaped)
        }
    }

    /// Reads one item object to its end and checks its fields against the
    /// rules: writes its record into `records`, or returns its rejection.
    private mutating func mapItem(_ reader: inout JSONStreamReader) throws(ErrorRecord) -> ItemRejection? {
        itemBytes.removeAll(keepingCapacity: true)
        // Feed: id, image, description, location; comments: id, message, created_at, author.username.
        var id = FoundField(), a = FoundField(), c = FoundField(), d = FoundField()
        var authorIsObject = false
        try reader.beginObject()
        while try reader.nextMember(key: &key, bounded: true) {
            switch (kind, MemberName(key)) {
            case (_, .id): id = try readField(&reader)
            case (.feed, .image), (.comments, .message): a = try readField(&reader)
            case (.feed, .description), (.comments, .createdAt): c = try readField(&reader)
            case (.feed, .location): d = try readField(&reader)
            case (.comments, .author):
                d = FoundField()
                authorIsObject = try reader.peekKind() == .object
                guard authorIsObject else {
                    try reader.skipValue()
                    continue
                }
                try reader.beginObject()
                while try reader.nextMember(key: &innerKey, bounded: true) {
                    if MemberName(innerKey) == .username {
                        d = try readField(&reader)
                    } else {
                        try reader.skipValue()
                    }
                }
            default: try reader.skipValue()
            }
        }
        let bytes = itemBytes
        return bytes.withUnsafeBufferPointer { bytes in
            switch kind {
            case .feed:
                let fields = FeedItemRule.Fields(id: id.field(bytes), image: a.field(bytes), description: c.field(bytes), location: d.field(bytes))
                if let rejection = feedRule.check(fields) { return rejection }
                feedRule.write(fields, into: records)
            case .comments:
                let fields = ImageCommentRule.Fields(
                    id: id.field(bytes), message: a.field(bytes), createdAt: c.field(bytes), username: d.field(bytes), authorIsObject: authorIsObject)
                if let rejection = commentRule.check(fields) { return rejection }
                commentRule.write(fields, into: records)
            }
            return nil
        }
    }

    /// Reads a member's value: a string's source bytes go into `itemBytes`.
    private mutating func readField(_ reader: inout JSONStreamReader) throws(ErrorRecord) -> FoundField {
        switch try reader.peekKind() {
        case .string:
            let start = itemBytes.count
            let escaped = try reader.string(into: &itemBytes, decode: false)
            return FoundField(kind: .string, start: start, end: itemBytes.count, escaped: escaped)
        case .null:
            try reader.skipValue()
            return FoundField(kind: .null)
        default:
            try reader.skipValue()
            return FoundField(kind: .other)
        }
    }

    static func integer(_ text: [UInt8]) -> Int? {
        text.withUnsafeBufferPointer { JSONEscapes.integer($0) }
    }
}
