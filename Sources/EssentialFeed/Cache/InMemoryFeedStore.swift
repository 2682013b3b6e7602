/// A store in memory, for tests and for compositions that need no persistence.
/// Not thread-safe: use one instance from one thread at a time.
public final class InMemoryFeedStore: FeedStore {
    public private(set) var snapshot: FeedStoreSnapshot
    private var running = false

    public init(_ snapshot: FeedStoreSnapshot = FeedStoreSnapshot()) {
        self.snapshot = snapshot
    }

    public func transaction<T>(_ body: (any FeedStoreTransaction) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        // A nested transaction's commit would be lost to the outer one's, as with the file stores it is refused.
        guard !running else { throw ErrorRecord(.internal, "memory: a transaction is already running on this store instance") }
        running = true
        defer { running = false }
        let tx = FeedStoreSnapshotTransaction(snapshot)
        let result = try body(tx)
        snapshot = tx.commit()
        return result
    }

    public func read<T>(_ body: (any FeedStoreReader) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        try body(FeedStoreSnapshotTransaction(snapshot))
    }

    public func info() throws(ErrorRecord) -> FeedStoreInfo {
        snapshot.info(kind: "memory", path: nil, exists: true, schemaVersion: nil, fileBytes: nil)
    }
}
