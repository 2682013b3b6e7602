#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The image of a feed image record lent as text straight from the record's
/// bytes, for records as tools write them (no escapes in the id, the url, the
/// description or the location): the same image `FeedImage(record:)` reads.
/// Nil when it does not apply; `FeedImage(record:)` then decides (and names
/// what is wrong).
public enum FeedImageRecordText {
    public static func lend<T>(_ document: JSONDocument, to body: (CachedImageText) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T? {
        let object = document.root
        var id: Int?, description: Int?, location: Int?, url: Int?
        var outcome: Result<T, ErrorRecord>?
        document.bytes.withUnsafeBufferPointer { bytes in
            for key in document.keys(object) {
                guard !document.isEscaped(key) else { return }
                let name = document.range(key)
                switch name.count {
                case 2 where bytes[name.lowerBound] == UInt8(ascii: "i") && bytes[name.lowerBound + 1] == UInt8(ascii: "d"):
                    id = key + 1
                case 3 where equals(bytes, name, "url"):
                    url = key + 1
                case 8 where equals(bytes, name, "location"):
                    location = key + 1
                case 11 where equals(bytes, name, "description"):
                    description = key + 1
                default:
                    break
                }
            }
            guard let id, let url, plainString(document, id), plainString(document, url),
                  let descriptionText = optional(document, description, bytes),
                  let locationText = optional(document, location, bytes) else { return }
            let idText = UnsafeBufferPointer(rebasing: bytes[document.range(id)])
            let urlText = UnsafeBufferPointer(rebasing: bytes[document.range(url)])
            guard Identifiers.isAbsoluteURL(bytes: urlText) else { return }
            func lend(_ canonical: UnsafeBufferPointer<UInt8>) {
                do throws(ErrorRecord) {
                    outcome = .success(try body(CachedImageText(id: canonical, description: descriptionText, location: locationText, url: urlText)))
                } catch {
                    outcome = .failure(error)
                }
            }
            if Identifiers.isCanonicalUUID(bytes: idText) {
                lend(idText)
            } else if let uuid = Identifiers.uuid(bytes: idText) {
                uuid.withCanonicalText { lend($0) }
            }
        }
        return try outcome?.get()
    }

    @inline(__always)
    private static func plainString(_ document: JSONDocument, _ node: Int) -> Bool {
        document.kind(node) == .string && !document.isEscaped(node)
    }

    /// An optional string member's text: `.some(nil)` when absent or null,
    /// nil when it does not apply (escaped, or not a string).
    private static func optional(_ document: JSONDocument, _ node: Int?, _ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>?? {
        guard let node else { return .some(nil) }
        switch document.kind(node) {
        case .null: return .some(nil)
        case .string where !document.isEscaped(node): return .some(UnsafeBufferPointer(rebasing: bytes[document.range(node)]))
        default: return nil
        }
    }

    @inline(__always)
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ name: StaticString) -> Bool {
        name.withUTF8Buffer { wanted in
            wanted.indices.allSatisfy { bytes[range.lowerBound + $0] == wanted[$0] }
        }
    }
}
