/// The image data use cases of the case study's `LocalFeedImageDataLoader`.
///
/// Image data is kept under its URL's `key`: the URL with the password of
/// its user-info shown as `***`, as `feed-fetch` writes it in its response
/// records. A URL is found with or without its password, and no password is
/// ever written to the store.
public struct LocalFeedImageDataLoader {
    public let store: any FeedStore

    public init(store: any FeedStore) {
        self.store = store
    }

    /// What image data for `url` is stored under: the URL with its password
    /// masked, as one URL (read as a message, a password with a blank was
    /// stored as it came: found in review).
    public static func key(_ url: String) -> String { Secrets.redactURL(url) }

    /// Stores `data` for `url`, replacing what was stored for it.
    public func save(_ data: [UInt8], for url: String) throws(ErrorRecord) {
        try store.insertImageData(data, for: Self.key(url))
    }

    /// Stores every entry in one transaction: all or none.
    public func save(_ entries: [(url: String, data: [UInt8])]) throws(ErrorRecord) {
        guard !entries.isEmpty else { return }
        try store.transaction { (tx) throws(ErrorRecord) in
            for entry in entries { try tx.insertImageData(entry.data, for: Self.key(entry.url)) }
        }
    }

    /// Stores, in one transaction, the entries `read` returns, one at a time
    /// as they come (until it returns nil), so that memory holds one entry at
    /// a time whatever their number. When `read` throws, nothing is stored and
    /// the error is rethrown. Returns how many entries were stored.
    @discardableResult
    public func save(reading read: () throws(ErrorRecord) -> (url: String, data: [UInt8])?) throws(ErrorRecord) -> Int {
        try store.transaction { (tx) throws(ErrorRecord) -> Int in
            var count = 0
            while let entry = try read() {
                try tx.insertImageData(entry.data, for: Self.key(entry.url))
                count += 1
            }
            return count
        }
    }

    /// The data stored for `url`, or nil when there is none.
    public func loadImageData(for url: String) throws(ErrorRecord) -> [UInt8]? {
        try store.retrieveImageData(for: Self.key(url))
    }

    /// The URLs of `feed`'s images that have no data stored yet, each once, in feed order.
    public func missingImageURLs(in feed: [FeedImage]) throws(ErrorRecord) -> [String] {
        var seen = try store.cachedImageDataURLs()
        var missing: [String] = []
        for image in feed where seen.insert(ExactText(Self.key(image.url))).inserted {
            missing.append(image.url)
        }
        return missing
    }
}
