#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import EssentialFeed

/// The fields of one feed item of a JSON-file store, read from its document.
struct FeedItemFields {
    enum State { case absent, string, notString }
    var id: [UInt8] = [], description: [UInt8] = [], location: [UInt8] = [], url: [UInt8] = []
    var idState = State.absent, descriptionState = State.absent, locationState = State.absent, urlState = State.absent
    var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    var key: [UInt8] = []
    /// `first_cached`: when the image was first cached, in seconds (nil: absent, or not an integer).
    var firstCached: Int64?
    private var number: [UInt8] = []

    init() {
        url.reserveCapacity(256)
        description.reserveCapacity(256)
    }

    /// Reads the feed item that comes next (the `index`th, 1-based). Returns
    /// why it is damaged, in the words the store has always used, or nil when
    /// it is a valid image (then held in the fields).
    mutating func read(_ reader: inout JSONStreamReader, index: Int) throws(ErrorRecord) -> String? {
        guard try reader.peekKind() == .object else {
            try reader.skipValue()
            return "feed item \(index) is not an object"
        }
        idState = .absent; descriptionState = .absent; locationState = .absent; urlState = .absent
        firstCached = nil
        try reader.beginObject()
        while try reader.nextMember(key: &key) {
            switch key.count {
            case 2 where key == Self.idKey: try Self.field(&reader, &id, &idState)
            case 3 where key == Self.urlKey: try Self.field(&reader, &url, &urlState)
            case 8 where key == Self.locationKey: try Self.field(&reader, &location, &locationState)
            case 11 where key == Self.descriptionKey: try Self.field(&reader, &description, &descriptionState)
            case 12 where key == Self.firstCachedKey:
                guard try reader.peekKind() == .number else { try reader.skipValue(); continue }
                number.removeAll(keepingCapacity: true)
                try reader.number(into: &number)
                firstCached = Int64(String(decoding: number, as: UTF8.self))
            default: try reader.skipValue()
            }
        }
        if idState == .notString { return "feed item \(index): \"id\" is not a string" }
        guard idState == .string, let uuid = id.withUnsafeBufferPointer({ Identifiers.uuid(bytes: $0) }) else {
            return "feed item \(index) has no valid id"
        }
        self.uuid = uuid
        if urlState == .notString { return "feed item \(index): \"url\" is not a string" }
        guard urlState == .string else { return "feed item \(index) has no url" }
        if descriptionState == .notString { return "feed item \(index): \"description\" is not a string" }
        if locationState == .notString { return "feed item \(index): \"location\" is not a string" }
        return nil
    }

    private static let idKey = Array("id".utf8), urlKey = Array("url".utf8)
    private static let locationKey = Array("location".utf8), descriptionKey = Array("description".utf8)
    static let firstCachedKey = Array("first_cached".utf8)

    private static func field(_ reader: inout JSONStreamReader, _ out: inout [UInt8], _ state: inout State) throws(ErrorRecord) {
        guard try reader.peekKind() == .string else {
            try reader.skipValue()
            state = .notString
            return
        }
        out.removeAll(keepingCapacity: true)
        try reader.string(into: &out, decode: true)
        state = .string
    }

    /// Lends the image read to `body` as text.
    func lend(to body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        var outcome: ErrorRecord?
        uuid.withCanonicalText { id in
            description.withUnsafeBufferPointer { description in
                location.withUnsafeBufferPointer { location in
                    url.withUnsafeBufferPointer { url in
                        do throws(ErrorRecord) {
                            try body(CachedImageText(id: id, description: descriptionState == .string ? description : nil,
                                                     location: locationState == .string ? location : nil, url: url, firstCached: firstCached))
                        } catch {
                            outcome = error
                        }
                    }
                }
            }
        }
        if let outcome { throw outcome }
    }
}
