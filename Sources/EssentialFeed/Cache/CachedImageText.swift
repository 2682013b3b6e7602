#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One image of the cached feed as its stored UTF-8 text, lent by a store for
/// the length of one call (`FeedStoreReader.forEachCachedImage`): a load can
/// write each record straight from the store's own buffers, without making
/// strings or collecting the feed.
public struct CachedImageText {
    /// The id in canonical upper-case 8-4-4-4-12 form: 36 bytes.
    public let id: UnsafeBufferPointer<UInt8>
    public let description: UnsafeBufferPointer<UInt8>?
    public let location: UnsafeBufferPointer<UInt8>?
    public let url: UnsafeBufferPointer<UInt8>
    /// When the cache first had an image of this id, in whole seconds since
    /// 1970 (kept with the image across saves; an Atom entry's `updated`);
    /// nil where it is not known (an image being saved is given its
    /// feed's, a cached one of an earlier release its feed's timestamp).
    public var firstCached: Int64?

    /// `id` must be canonical (see `Identifiers.isCanonicalUUID`).
    public init(id: UnsafeBufferPointer<UInt8>, description: UnsafeBufferPointer<UInt8>?,
                location: UnsafeBufferPointer<UInt8>?, url: UnsafeBufferPointer<UInt8>, firstCached: Int64? = nil) {
        self.firstCached = firstCached
        self.id = id
        self.description = description
        self.location = location
        self.url = url
    }

    /// The image as a value (copies the text).
    public var image: FeedImage {
        FeedImage(id: Identifiers.uuid(bytes: id) ?? UUID(uuid: UUID_NULL_BYTES),
                  description: description.map { String(decoding: $0, as: UTF8.self) },
                  location: location.map { String(decoding: $0, as: UTF8.self) },
                  url: String(decoding: url, as: UTF8.self))
    }

    /// Appends the feed image record, exactly as `FeedImage.write(to:)` writes
    /// it (`{"id","description"?,"location"?,"url"}`), without a newline.
    public func appendRecord(to out: inout [UInt8]) {
        out.reserveCapacity(out.count + 64 + id.count + url.count + (description?.count ?? 0) + (location?.count ?? 0))
        out.append(contentsOf: Self.idKey)
        out.append(contentsOf: id)
        if let description {
            out.append(contentsOf: Self.descriptionKey)
            JSONWriter.appendEscaped(description, to: &out)
        }
        if let location {
            out.append(contentsOf: Self.locationKey)
            JSONWriter.appendEscaped(location, to: &out)
        }
        out.append(contentsOf: Self.urlKey)
        JSONWriter.appendEscaped(url, to: &out)
        out.append(contentsOf: Self.end)
    }

    private static let idKey: [UInt8] = Array(#"{"id":""#.utf8)
    private static let descriptionKey: [UInt8] = Array(#"","description":""#.utf8)
    private static let locationKey: [UInt8] = Array(#"","location":""#.utf8)
    private static let urlKey: [UInt8] = Array(#"","url":""#.utf8)
    private static let end: [UInt8] = Array(#""}"#.utf8)

    /// Lends the text of `image` to `body` (for stores that hold values).
    public static func lending<T>(_ image: FeedImage, to body: (CachedImageText) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        var outcome: Result<T, ErrorRecord>?
        var description = image.description, location = image.location, url = image.url
        image.id.withCanonicalText { id in
            description.withUTF8IfPresent { description in
                location.withUTF8IfPresent { location in
                    url.withUTF8 { url in
                        do throws(ErrorRecord) {
                            outcome = .success(try body(CachedImageText(id: id, description: description, location: location, url: url)))
                        } catch {
                            outcome = .failure(error)
                        }
                    }
                }
            }
        }
        return try outcome!.get()
    }
}

extension Optional where Wrapped == String {
    /// Calls `body` with the UTF-8 bytes of the text, or nil when there is none.
    @inline(__always)
    public mutating func withUTF8IfPresent<T>(_ body: (UnsafeBufferPointer<UInt8>?) -> T) -> T {
        guard self != nil else { return body(nil) }
        return self!.withUTF8 { body($0) }
    }
}

private let UUID_NULL_BYTES: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

extension UUID {
    /// Calls `body` with the canonical upper-case text of this id (36 bytes),
    /// written on the stack: no string is made.
    @inline(__always)
    public func withCanonicalText<T>(_ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { out in
            UUID.writeCanonical(uuid, to: out.baseAddress!)
            return body(UnsafeBufferPointer(out))
        }
    }

    /// Writes the canonical upper-case text of `value` (36 bytes) at `out`.
    public static func writeCanonical(_ value: uuid_t, to out: UnsafeMutablePointer<UInt8>) {
        withUnsafeBytes(of: value) { bytes in
            var o = 0
            for i in 0..<16 {
                if i == 4 || i == 6 || i == 8 || i == 10 {
                    out[o] = UInt8(ascii: "-")
                    o += 1
                }
                let byte = bytes[i]
                out[o] = hexDigit(byte >> 4)
                out[o + 1] = hexDigit(byte & 0x0F)
                o += 2
            }
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble + 0x30 : nibble + 0x37
    }
}
