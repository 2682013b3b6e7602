#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The images of a cached feed as their text, in order, in one buffer: what
/// a merging save (`LocalFeedLoader.merge`) reads from the store before it
/// writes the feed anew. About the text's size in memory (the fields, 36
/// bytes of id, four offsets an image); no string is made.
struct CachedImageRun {
    private var bytes: [UInt8] = []
    /// For each image: where its id, description, location and url end in
    /// `bytes` (an absent field: -1 in place of its end, and no bytes).
    private var ends: [Int32] = []
    private static let fields = 4

    var count: Int { ends.count / Self.fields }

    mutating func append(_ image: CachedImageText) throws(ErrorRecord) {
        guard bytes.count + image.id.count + image.url.count + (image.description?.count ?? 0) + (image.location?.count ?? 0) < Int(Int32.max) else {
            throw ErrorRecord(.store, "the cached feed is too large to merge a page into (2 GiB of text)")
        }
        bytes.append(contentsOf: image.id)
        ends.append(Int32(bytes.count))
        for field in [image.description, image.location] {
            if let field {
                bytes.append(contentsOf: field)
                ends.append(Int32(bytes.count))
            } else {
                ends.append(-1)
            }
        }
        bytes.append(contentsOf: image.url)
        ends.append(Int32(bytes.count))
    }

    /// The first image at or after `start` whose canonical id is `id` (36 bytes).
    func index(of id: [UInt8], from start: Int = 0) -> Int? {
        guard id.count == 36, start < count else { return nil }
        return bytes.withUnsafeBufferPointer { all in
            for i in start..<count {
                let begin = i == 0 ? 0 : Self.end(before: i * Self.fields, in: ends)
                if memcmp(all.baseAddress! + begin, id, 36) == 0 { return i }
            }
            return nil
        }
    }

    /// Lends image `i` to `body` as text.
    func lend<T>(_ i: Int, to body: (CachedImageText) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        var outcome: Result<T, ErrorRecord>!
        bytes.withUnsafeBufferPointer { all in
            let base = i * Self.fields
            var start = i == 0 ? 0 : Self.end(before: base, in: ends)
            var fields: [UnsafeBufferPointer<UInt8>?] = []
            for f in 0..<Self.fields {
                let end = Int(ends[base + f])
                if end < 0 { fields.append(nil); continue }
                fields.append(UnsafeBufferPointer(rebasing: all[start..<end]))
                start = end
            }
            do throws(ErrorRecord) {
                outcome = .success(try body(CachedImageText(id: fields[0]!, description: fields[1], location: fields[2], url: fields[3]!)))
            } catch {
                outcome = .failure(error)
            }
        }
        return try outcome.get()
    }

    /// Where the fields before position `position` of `ends` end: the last
    /// end at or before it that is not an absent field's.
    private static func end(before position: Int, in ends: [Int32]) -> Int {
        var p = position - 1
        while ends[p] < 0 { p -= 1 }
        return Int(ends[p])
    }
}
