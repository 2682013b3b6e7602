/// Where a streaming mapper's output goes. Items of a response are held
/// until the response is known valid (`commit`) or not (`discard`), so an
/// invalid response never yields partial output.
public protocol MappedRecordSink: AnyObject {
    /// Mapped records of the current response: compact JSON, each followed
    /// by a newline. The bytes are valid only during the call.
    func items(_ lines: UnsafeRawBufferPointer)
    /// The current response was valid: write its items.
    func commit()
    /// The current response was invalid: drop its items.
    func discard()
    /// An error record met on input, written through unchanged.
    func passThrough(_ line: ArraySlice<UInt8>, kind: ErrorKind)
    /// A failure: an invalid response or line.
    func fail(_ error: ErrorRecord)
}

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
    public enum Kind: Sendable {
        case feed, comments

        func accepts(_ status: Int) -> Bool {
            self == .feed ? status == 200 : (200...299).contains(status)
        }

        func statusMessage(_ status: Int) -> String {
            self == .feed ? "feed response status \(status) is not 200" : "comments response status \(status) is not 2xx"
        }
    }

    let kind: Kind
    private var key: [UInt8] = []
    private var scratch: [UInt8] = []
    private var out: [UInt8] = []
    private var fields = ItemFields()
    /// The quick way through items (see `FastItems`).
    private var fast: FastItems
    /// Records built and not yet handed to the sink.
    private let records = RecordBuffer()
    /// Records are handed to the sink in batches of about this many bytes.
    private static let batch = 1 << 16

    public init(kind: Kind) {
        self.kind = kind
        fast = FastItems(comments: kind == .comments, multiline: false)
        out.reserveCapacity(512)
    }

    /// A mapping failure inside a body that is otherwise being read to its end.
    private struct Rejection: Error {
        var message: String
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
            throw ErrorRecord(.invalidData, "stdin:\(line): not a JSON object")
        }
        try reader.beginObject()
        var url: String?
        var status: Int?
        var statusInvalid = false
        var errorKind: ErrorKind?
        // The last `body`, mapped as it is read: its records wait in the sink
        // until the end of the record decides (the last `status` may follow it).
        var streamed: Result<Void, Rejection>?
        // The last `body_base64`, kept as text: decoded at the end, and only
        // when no `body` decides.
        var base64: Base64Member = .absent
        while try reader.nextMember(key: &key) {
            switch Field(key) {
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
            default:
                try reader.skipValue()
            }
        }
        try reader.finishLine()
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
            let what = statusInvalid ? "status is not an HTTP status code" : "not a response record: no status"
            throw ErrorRecord(.invalidData, "stdin:\(line): \(what)", context: context(url))
        }
        guard let streamed else {
            discard(sink)
            switch base64 {
            case .absent:
                throw ErrorRecord(.invalidData, "stdin:\(line): not a response record: no body or body_base64", context: context(url))
            case .notString:
                throw ErrorRecord(.invalidData, "stdin:\(line): body_base64 is not base64", context: context(url))
            case let .text(text):
                guard let bytes = Base64.decode(text) else {
                    throw ErrorRecord(.invalidData, "stdin:\(line): body_base64 is not base64", context: context(url))
                }
                try mapKept(Response(url: url, status: status, body: .bytes(bytes)), line: line, into: sink)
                return
            }
        }
        guard kind.accepts(status) else {
            discard(sink)
            throw ErrorRecord(.invalidData, "stdin:\(line): \(kind.statusMessage(status))", context: context(url))
        }
        switch streamed {
        case .success:
            commit(sink)
        case let .failure(rejection):
            discard(sink)
            throw ErrorRecord(.invalidData, "stdin:\(line): \(rejection.message)", context: context(url))
        }
    }

    /// A record's `body_base64` member, as last met.
    private enum Base64Member {
        case absent, notString
        case text([UInt8])
    }

    // MARK: Records to the sink

    @inline(__always)
    private func add(_ record: [UInt8], _ sink: any MappedRecordSink) {
        records.append(record)
        records.append(0x0A)
        if records.count >= Self.batch { flush(sink) }
    }

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

    /// Maps a body kept whole, through the document mappers.
    private func mapKept(_ response: Response, line: Int?, into sink: any MappedRecordSink) throws(ErrorRecord) {
        let prefix = line.map { "stdin:\($0): " } ?? "stdin: "
        do throws(ErrorRecord) {
            var writer = JSONWriter()
            switch kind {
            case .feed:
                for image in try FeedItemsMapper.map(response) {
                    writer.reset()
                    image.write(to: &writer)
                    add(writer.bytes, sink)
                }
            case .comments:
                for comment in try ImageCommentsMapper.map(response) {
                    writer.reset()
                    comment.write(to: &writer)
                    add(writer.bytes, sink)
                }
            }
            commit(sink)
        } catch {
            discard(sink)
            throw ErrorRecord(error.kind, prefix + error.message, context: error.context)
        }
    }

    // MARK: A bare payload (--raw)

    /// Maps the whole of `reader` as one status-200 body.
    public mutating func mapDocument(_ reader: inout JSONStreamReader, into sink: any MappedRecordSink) throws(ErrorRecord) {
        reader.multiline = true
        do throws(ErrorRecord) {
            guard try reader.peek() != nil else { throw ErrorRecord(.invalidData, "stdin: body is not JSON: empty input") }
            let result = try mapBody(&reader, into: sink)
            try reader.finishDocument()
            switch result {
            case .success: commit(sink)
            case let .failure(rejection): throw ErrorRecord(.invalidData, "stdin: \(rejection.message)")
            }
        } catch {
            discard(sink)
            let message = error.message.hasPrefix("stdin") ? error.message : "stdin: " + error.message
            sink.fail(ErrorRecord(error.kind, message.replacingFirst("stdin:0: ", with: "stdin: "), context: error.context))
        }
    }

    // MARK: Bodies and items

    /// Reads a body value whole, mapping its items into `sink`. A body that
    /// breaks the mapper's rules is read to its end and reported as a rejection.
    private mutating func mapBody(_ reader: inout JSONStreamReader, into sink: any MappedRecordSink) throws(ErrorRecord) -> Result<Void, Rejection> {
        guard try reader.peekKind() == .object else {
            try reader.skipValue()
            return .failure(Rejection(message: "body is not a JSON object"))
        }
        try reader.beginObject()
        var items: Result<Void, Rejection>?
        while try reader.nextMember(key: &key) {
            guard Field(key) == .items else {
                try reader.skipValue()
                continue
            }
            // With duplicate keys the last wins, as in JSONDocument.
            discard(sink)
            guard try reader.peekKind() == .array else {
                try reader.skipValue()
                items = .failure(Rejection(message: "body has no items array"))
                continue
            }
            try reader.beginArray()
            var position = 0
            var rejection: Rejection?
            let quick = reader.remainingDepth >= (kind == .comments ? 2 : 1)
            fast.multiline = reader.multiline
            while true {
                if quick, rejection == nil {
                    // As many whole items as the buffer holds, straight from it.
                    let records = self.records
                    position += try reader.readElements(minimum: 1 << 14) { bytes, first in
                        self.fast.run(bytes, first: first, into: records, limit: Self.batch)
                    }
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
                    rejection = Rejection(message: "item \(position) is not an object")
                    continue
                }
                do {
                    try mapItem(&reader, position: position)
                    add(out, sink)
                } catch let error as Rejection {
                    rejection = error
                } catch let error as ErrorRecord {
                    throw error
                } catch {
                    throw ErrorRecord(.internal, "\(error)")
                }
            }
            items = rejection.map { .failure($0) } ?? .success(())
        }
        return items ?? .failure(Rejection(message: "body has no items array"))
    }

    private struct ItemFields {
        var id: [UInt8] = []
        var aEscaped = false
        var bEscaped = false
        var cEscaped = false
        var hasID = false
        var idIsString = false
        var a: [UInt8] = []       // feed: image; comments: message
        var hasA = false
        var aIsString = false
        var b: [UInt8] = []       // feed: description; comments: created_at
        var hasB = false
        var bKind: JSONDocument.Kind = .null
        var c: [UInt8] = []       // feed: location; comments: author.username
        var hasC = false
        var cKind: JSONDocument.Kind = .null
        var authorIsObject = false

        mutating func reset() {
            hasID = false; idIsString = false; hasA = false; aIsString = false
            hasB = false; bKind = .null; hasC = false; cKind = .null; authorIsObject = false
        }
    }

    /// Reads one item object and builds its record in `out`, or throws a Rejection
    /// (after reading the item to its end).
    private mutating func mapItem(_ reader: inout JSONStreamReader, position: Int) throws -> Void {
        fields.reset()
        try reader.beginObject()
        while try reader.nextMember(key: &key) {
            switch kind {
            case .feed:
                switch Field(key) {
                case .id: _ = try readString(&reader, &fields.id, &fields.hasID, &fields.idIsString)
                case .image: fields.aEscaped = try readString(&reader, &fields.a, &fields.hasA, &fields.aIsString)
                case .description: fields.bEscaped = try readOptional(&reader, &fields.b, &fields.hasB, &fields.bKind)
                case .location: fields.cEscaped = try readOptional(&reader, &fields.c, &fields.hasC, &fields.cKind)
                default: try reader.skipValue()
                }
            case .comments:
                switch Field(key) {
                case .id: _ = try readString(&reader, &fields.id, &fields.hasID, &fields.idIsString)
                case .message: fields.aEscaped = try readString(&reader, &fields.a, &fields.hasA, &fields.aIsString)
                case .createdAt: _ = try readOptional(&reader, &fields.b, &fields.hasB, &fields.bKind)
                case .author:
                    fields.hasC = false
                    fields.cKind = .null
                    if try reader.peekKind() == .object {
                        fields.authorIsObject = true
                        try reader.beginObject()
                        var inner: [UInt8] = []
                        while try reader.nextMember(key: &inner) {
                            if Field(inner) == .username {
                                fields.cEscaped = try readOptional(&reader, &fields.c, &fields.hasC, &fields.cKind)
                            } else {
                                try reader.skipValue()
                            }
                        }
                    } else {
                        fields.authorIsObject = false
                        try reader.skipValue()
                    }
                default: try reader.skipValue()
                }
            }
        }
        switch kind {
        case .feed: try buildFeedImage(position)
        case .comments: try buildComment(position)
        }
    }

    /// Returns whether the string was written with escapes (its decoded
    /// content may then need escaping again on output).
    private func readString(_ reader: inout JSONStreamReader, _ into: inout [UInt8], _ present: inout Bool, _ isString: inout Bool) throws(ErrorRecord) -> Bool {
        present = true
        into.removeAll(keepingCapacity: true)
        if try reader.peekKind() == .string {
            isString = true
            return try reader.string(into: &into, decode: true)
        } else {
            isString = false
            try reader.skipValue()
            return false
        }
    }

    private func readOptional(_ reader: inout JSONStreamReader, _ into: inout [UInt8], _ present: inout Bool, _ kind: inout JSONDocument.Kind) throws(ErrorRecord) -> Bool {
        present = true
        into.removeAll(keepingCapacity: true)
        kind = try reader.peekKind()
        if kind == .string {
            return try reader.string(into: &into, decode: true)
        } else {
            try reader.skipValue()
            return false
        }
    }

    /// Writes decoded string content: as it is when the source had no escapes
    /// (then it holds nothing that needs one), else escaped again.
    @inline(__always)
    private static func appendContent(_ content: [UInt8], escaped: Bool, to out: inout [UInt8]) {
        if escaped {
            JSONWriter.appendEscaped(content, to: &out)
        } else {
            out.append(contentsOf: content)
        }
    }

    private mutating func buildFeedImage(_ position: Int) throws {
        func reject(_ what: String) -> Rejection { Rejection(message: "feed item \(position): \(what)") }
        guard fields.hasID else { throw reject("no id") }
        guard fields.idIsString, Self.isUUID(fields.id) else { throw reject("id is not a UUID") }
        guard fields.hasA else { throw reject("no image") }
        guard fields.aIsString, Self.isAbsoluteURL(fields.a) else { throw reject("image is not an absolute URL") }
        if fields.hasB, fields.bKind != .null, fields.bKind != .string { throw reject("description is not a string") }
        if fields.hasC, fields.cKind != .null, fields.cKind != .string { throw reject("location is not a string") }
        out.removeAll(keepingCapacity: true)
        out.append(contentsOf: Keys.openID)
        Self.appendUppercased(fields.id, to: &out)
        if fields.hasB, fields.bKind == .string {
            out.append(contentsOf: Keys.nextDescription)
            Self.appendContent(fields.b, escaped: fields.bEscaped, to: &out)
        }
        if fields.hasC, fields.cKind == .string {
            out.append(contentsOf: Keys.nextLocation)
            Self.appendContent(fields.c, escaped: fields.cEscaped, to: &out)
        }
        out.append(contentsOf: Keys.nextURL)
        Self.appendContent(fields.a, escaped: fields.aEscaped, to: &out)
        out.append(contentsOf: Keys.close)
    }

    private mutating func buildComment(_ position: Int) throws {
        func reject(_ what: String) -> Rejection { Rejection(message: "comment \(position): \(what)") }
        guard fields.hasID else { throw reject("no id") }
        guard fields.idIsString, Self.isUUID(fields.id) else { throw reject("id is not a UUID") }
        guard fields.hasA, fields.aIsString else { throw reject("message is missing or not a string") }
        guard fields.hasB, fields.bKind == .string else { throw reject("created_at is missing or not a string") }
        guard let createdAt = Timestamp(iso8601Bytes: fields.b) else {
            throw reject("created_at is not an ISO 8601 date")
        }
        guard fields.authorIsObject else { throw reject("author is missing or not an object") }
        guard fields.hasC, fields.cKind == .string else { throw reject("author.username is missing or not a string") }
        out.removeAll(keepingCapacity: true)
        out.append(contentsOf: Keys.openID)
        Self.appendUppercased(fields.id, to: &out)
        out.append(contentsOf: Keys.nextMessage)
        Self.appendContent(fields.a, escaped: fields.aEscaped, to: &out)
        out.append(contentsOf: Keys.nextCreatedAt)
        createdAt.appendISO8601(to: &out)
        out.append(contentsOf: Keys.nextUsername)
        Self.appendContent(fields.c, escaped: fields.cEscaped, to: &out)
        out.append(contentsOf: Keys.close)
    }

    // MARK: Byte-level rules (the same as Identifiers')

    static func isUUID(_ b: [UInt8]) -> Bool {
        b.withUnsafeBufferPointer { isUUID($0) }
    }

    static func isUUID(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        guard p.count == 36 else { return false }
        for i in 0..<36 {
            let c = p[i]
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if c != UInt8(ascii: "-") { return false }
            } else if JSONEscapes.hexValue(c) < 0 {
                return false
            }
        }
        return true
    }

    /// Appends a validated UUID with its hex letters in upper case.
    static func appendUppercased(_ b: [UInt8], to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: b)
        out.withUnsafeMutableBufferPointer { p in
            for i in start..<p.count where p[i] >= UInt8(ascii: "a") {
                p[i] &-= 32
            }
        }
    }

    static func isAbsoluteURL(_ b: [UInt8]) -> Bool {
        b.withUnsafeBufferPointer { isAbsoluteURL($0) }
    }

    static func isAbsoluteURL(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        Identifiers.isAbsoluteURL(bytes: p)
    }

    static func integer(_ text: [UInt8]) -> Int? {
        text.withUnsafeBufferPointer { JSONEscapes.integer($0) }
    }

    /// The member names the mappers look for, told apart without building
    /// strings: by length, then bytes.
    enum Field: Equatable {
        case error, url, status, body, bodyBase64, items, id, image, description, location
        case message, createdAt, author, username, other

        @inline(__always)
        init(_ key: [UInt8]) {
            self = key.withUnsafeBufferPointer { k -> Field in
                func matches(_ word: StaticString) -> Bool {
                    guard word.utf8CodeUnitCount == k.count else { return false }
                    let w = word.utf8Start
                    for i in 0..<k.count where w[i] != k[i] { return false }
                    return true
                }
                switch k.count {
                case 2: return matches("id") ? .id : .other
                case 3: return matches("url") ? .url : .other
                case 4: return matches("body") ? .body : .other
                case 5:
                    if matches("error") { return .error }
                    if matches("image") { return .image }
                    if matches("items") { return .items }
                    return .other
                case 6:
                    if matches("status") { return .status }
                    if matches("author") { return .author }
                    return .other
                case 7: return matches("message") ? .message : .other
                case 8:
                    if matches("location") { return .location }
                    if matches("username") { return .username }
                    return .other
                case 10: return matches("created_at") ? .createdAt : .other
                case 11:
                    if matches("description") { return .description }
                    if matches("body_base64") { return .bodyBase64 }
                    return .other
                default: return .other
                }
            }
        }
    }

    private enum Keys {
        static let openID = Array(#"{"id":""#.utf8)
        static let nextDescription = Array(#"","description":""#.utf8)
        static let nextLocation = Array(#"","location":""#.utf8)
        static let nextURL = Array(#"","url":""#.utf8)
        static let nextMessage = Array(#"","message":""#.utf8)
        static let nextCreatedAt = Array(#"","created_at":""#.utf8)
        static let nextUsername = Array(#"","username":""#.utf8)
        static let close = Array(#""}"#.utf8)
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        hasPrefix(target) ? replacement + dropFirst(target.count) : self
    }
}

/// Base64 without Foundation's JSON stack (RFC 4648, padding optional).
public enum Base64 {
    /// Encodes `bytes` with padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var chunk = UInt32(bytes[i]) << 16
            if n > 1 { chunk |= UInt32(bytes[i + 1]) << 8 }
            if n > 2 { chunk |= UInt32(bytes[i + 2]) }
            for k in 0..<4 {
                out.append(k <= n ? alphabet[Int((chunk >> UInt32(18 - 6 * k)) & 0x3F)] : UInt8(ascii: "="))
            }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        decode(Array(text.utf8))
    }

    /// Decodes base64 text given as UTF-8 bytes.
    public static func decode(_ text: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        var padding = 0
        for c in text {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a") + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0") + 52)
            case UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "/"): v = 63
            case UInt8(ascii: "="): padding += 1; continue
            default: return nil
            }
            guard padding == 0 else { return nil }
            accumulator = accumulator << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((accumulator >> UInt32(bits)) & 0xFF))
            }
        }
        // As strict as Foundation's default: whole quanta of four characters.
        guard padding <= 2, text.count % 4 == 0 else { return nil }
        return out
    }
}
