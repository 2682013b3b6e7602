/// The quick way through a feed image record line: its members read in
/// place by `JSONFlatObjectScanner` (the mappers' fast reader, which checks
/// the JSON by the parser's rules), with no document built and nothing
/// allocated, escaped text decoded into one scratch buffer.
///
/// It takes a line that is one object whose members are `id`, `url`,
/// `description` and `location` only, each at most once: `id` and `url`
/// strings, the other two strings or null, `id` a UUID (the id is lent in
/// its canonical text) and `url` absolute: the image `FeedImage(record:)`
/// reads from the same line. Anything else is nil here (another member, as
/// error and page records have; a nested value; invalid JSON; an invalid
/// field; an escaped id), for the document path to read and to report.
public struct FeedImageRecordLine {
    private var scratch: [UInt8] = []

    public init() {}

    /// Lends the line's image to `body` (a feed writer's `add`) and returns
    /// what it returns; nil when the line is not taken. Not generic: the
    /// tools call it across modules once a record.
    public mutating func lend(_ line: ArraySlice<UInt8>, to body: (CachedImageText) throws(ErrorRecord) -> Bool) throws(ErrorRecord) -> Bool? {
        var outcome: Bool?
        var failure: ErrorRecord?
        line.withUnsafeBufferPointer { bytes in
            var visitor = Visitor()
            var scanner = JSONFlatObjectScanner(multiline: false, nesting: false)
            let (read, elements) = scanner.run(bytes, first: true, &visitor)
            guard elements == 1, Self.isBlank(bytes, from: read) else { return }
            let id = visitor.id, url = visitor.url, description = visitor.description, location = visitor.location
            guard !id.escaped else { return }
            scratch.removeAll(keepingCapacity: true)
            // Where each decoded field lies in `scratch` (escaped ones only).
            var places: (description: Range<Int>?, location: Range<Int>?, url: Range<Int>?) = (nil, nil, nil)
            @inline(__always) func decode(_ field: JSONScalar) -> Range<Int>? {
                guard field.kind == .string, field.escaped, let base = field.bytes.baseAddress else { return nil }
                let start = scratch.count
                JSONEscapes.unescape(base, 0, field.bytes.count, into: &scratch)
                return start..<scratch.count
            }
            places.description = decode(description)
            places.location = decode(location)
            places.url = decode(url)
            scratch.withUnsafeBufferPointer { decoded in
                @inline(__always) func text(_ field: JSONScalar, _ place: Range<Int>?) -> UnsafeBufferPointer<UInt8>? {
                    guard field.kind == .string else { return nil }
                    guard let place else { return field.bytes }
                    return UnsafeBufferPointer(rebasing: decoded[place])
                }
                let urlText = text(url, places.url)!
                guard Identifiers.isAbsoluteURL(bytes: urlText) else { return }
                let descriptionText = text(description, places.description), locationText = text(location, places.location)
                func lend(_ canonical: UnsafeBufferPointer<UInt8>) {
                    do throws(ErrorRecord) {
                        outcome = try body(CachedImageText(id: canonical, description: descriptionText, location: locationText, url: urlText))
                    } catch {
                        failure = error
                    }
                }
                if Identifiers.isCanonicalUUID(bytes: id.bytes) {
                    lend(id.bytes)
                } else if let uuid = Identifiers.uuid(bytes: id.bytes) {
                    uuid.withCanonicalText { lend($0) }
                }
            }
        }
        if let failure { throw failure }
        return outcome
    }

    @inline(__always)
    private static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var i = start
        while i < bytes.count {
            let c = bytes[i]
            guard c == 0x20 || c == 0x09 || c == 0x0D else { return false }
            i += 1
        }
        return true
    }

    /// Keeps the four members of one object, and whether it may be taken.
    private struct Visitor: JSONFlatObjectVisitor {
        var id = JSONScalar(kind: .null), url = JSONScalar(kind: .null)
        var description = JSONScalar(kind: .null), location = JSONScalar(kind: .null)
        /// Members seen, a bit each (id 1, url 2, description 4, location 8).
        private var seen = 0
        private var refused = false
        private var taken = false

        var isFull: Bool { taken }

        mutating func begin() {}

        @inline(__always)
        mutating func member(_ name: JSONName, _ value: JSONScalar, nested: Bool) {
            let bit: Int
            switch FastItems.name(name) {
            case .id: bit = 1; id = value; refused = refused || value.kind != .string
            case .url: bit = 2; url = value; refused = refused || value.kind != .string
            case .description: bit = 4; description = value; refused = refused || (value.kind != .string && value.kind != .null)
            case .location: bit = 8; location = value; refused = refused || (value.kind != .string && value.kind != .null)
            default: refused = true; return
            }
            refused = refused || seen & bit != 0
            seen |= bit
        }

        mutating func enterObject(_ name: JSONName) -> Bool { false }

        mutating func end() -> Bool {
            taken = !refused && seen & 3 == 3
            return taken
        }
    }
}
