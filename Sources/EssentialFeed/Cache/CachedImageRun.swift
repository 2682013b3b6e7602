#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A `CachedImageSpool` in memory: the images' text, in order, in one
/// buffer, about the text's size (the fields, 36 bytes of id, four offsets
/// an image); no string is made.
public final class CachedImageRun: CachedImageSpool {
    private var bytes: [UInt8] = []
    /// For each image: where its id, description, location and url end in
    /// `bytes` (an absent field: -1 in place of its end, and no bytes).
    private var ends: [Int32] = []
    /// Each image's `firstCached` (`Int64.min`: nil).
    private var firstCached: [Int64] = []
    private static let fields = 4

    public init() {}

    public var count: Int { ends.count / Self.fields }

    public func append(_ image: CachedImageText) throws(ErrorRecord) {
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
        firstCached.append(image.firstCached ?? .min)
    }

    /// The first image at or after `start` whose canonical id is `id` (36 bytes).
    public func index(of id: [UInt8], from start: Int) -> Int? {
        guard id.count == 36, start < count else { return nil }
        return bytes.withUnsafeBufferPointer { all in
            for i in start..<count {
                let begin = i == 0 ? 0 : Self.end(before: i * Self.fields, in: ends)
                if memcmp(all.baseAddress! + begin, id, 36) == 0 { return i }
            }
            return nil
        }
    }

    public func forEach(in range: Range<Int>, _ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        for i in range { try lend(i, to: body) }
    }

    /// Lends image `i` to `body` as text.
    private func lend<T>(_ i: Int, to body: (CachedImageText) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
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
                let time = firstCached[i]
                outcome = .success(try body(CachedImageText(id: fields[0]!, description: fields[1], location: fields[2], url: fields[3]!,
                                                            firstCached: time == .min ? nil : time)))
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
