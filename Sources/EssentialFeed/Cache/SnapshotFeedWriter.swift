#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Adds images to the feed of a `FeedStoreSnapshotTransaction`.
final class SnapshotFeedWriter: FeedImageWriter {
    private weak var transaction: FeedStoreSnapshotTransaction?
    private var ids: Set<UUID>

    init(_ transaction: FeedStoreSnapshotTransaction, ids: Set<UUID>) {
        self.transaction = transaction
        self.ids = ids
    }

    func add(_ image: FeedImage) throws(ErrorRecord) -> Bool {
        try add(image, firstCached: nil)
    }

    private func add(_ image: FeedImage, firstCached: Int64?) throws(ErrorRecord) -> Bool {
        guard let transaction else { throw ErrorRecord(.internal, "a feed writer was used after its transaction ended") }
        guard !ids.contains(image.id) else { return false }
        try transaction.append(image, firstCached: firstCached, from: self)
        ids.insert(image.id)
        return true
    }

    func add(_ image: CachedImageText) throws(ErrorRecord) -> Bool {
        try add(image.image, firstCached: image.firstCached)
    }
}
