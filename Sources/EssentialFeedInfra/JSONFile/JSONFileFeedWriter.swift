import EssentialFeed

/// Adds images to the feed a `JSONFileTransaction` writes.
final class JSONFileFeedWriter: FeedImageWriter {
    private weak var transaction: JSONFileTransaction?

    init(_ transaction: JSONFileTransaction) {
        self.transaction = transaction
    }

    func add(_ image: FeedImage) throws(ErrorRecord) -> Bool {
        try CachedImageText.lending(image) { (text) throws(ErrorRecord) in try add(text) }
    }

    func add(_ image: CachedImageText) throws(ErrorRecord) -> Bool {
        guard let transaction else { throw ErrorRecord(.internal, "a feed writer was used after its transaction ended") }
        return try transaction.append(image, from: self)
    }
}
