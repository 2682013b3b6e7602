/// A description of a store and of what it holds: the `feed-cache info` record.
public struct FeedStoreInfo: Equatable, Sendable {
    /// `sqlite`, `json` or `memory`.
    public var kind: String
    /// The store's file, when it has one.
    public var path: String?
    /// Whether the store's file exists (an in-memory store always exists).
    public var exists: Bool
    /// The store's schema version, nil when the store does not exist yet.
    public var schemaVersion: Int?
    /// The size of the store's file in bytes, when it has one.
    public var fileBytes: Int?
    /// The cached feed's item count and timestamp; nil when nothing is cached.
    public var itemCount: Int?
    public var timestamp: Timestamp?
    /// How many URLs have image data, and the data's total size in bytes.
    public var imageDataCount: Int
    public var imageDataBytes: Int

    public init(kind: String, path: String?, exists: Bool, schemaVersion: Int?, fileBytes: Int? = nil,
                itemCount: Int?, timestamp: Timestamp?, imageDataCount: Int, imageDataBytes: Int) {
        self.kind = kind
        self.path = path
        self.exists = exists
        self.schemaVersion = schemaVersion
        self.fileBytes = fileBytes
        self.itemCount = itemCount
        self.timestamp = timestamp
        self.imageDataCount = imageDataCount
        self.imageDataBytes = imageDataBytes
    }

    /// The state of the cached feed at `now` under `policy`: `empty`, `valid` or `expired`.
    public func status(at now: Timestamp, policy: FeedCachePolicy) -> String {
        guard let timestamp else { return "empty" }
        return policy.validate(timestamp, against: now) ? "valid" : "expired"
    }

    /// `{"store","path"?,"exists","schema_version"?,"file_bytes"?,"items","timestamp"?,
    /// "expires_at"?,"status"?,"image_data_count","image_data_bytes"}`: `items` is 0 and
    /// there is no `timestamp` or `expires_at` when nothing is cached (nor
    /// `expires_at` when the feed expires after year 9999); `status`
    /// (`empty`, `valid`, `expired`) only when `now` is given.
    public func write(to writer: inout JSONWriter, now: Timestamp? = nil, policy: FeedCachePolicy = FeedCachePolicy()) {
        writer.beginObject()
        writer.member("store", kind)
        writer.member("path", path)
        writer.key("exists")
        writer.bool(exists)
        if let schemaVersion { writer.member("schema_version", schemaVersion) }
        if let fileBytes { writer.member("file_bytes", fileBytes) }
        writer.member("items", itemCount ?? 0)
        if let timestamp {
            writer.member("timestamp", timestamp.iso8601)
            // Not past year 9999: no tool reads such a date back (a long
            // --max-age wrote "expires_at":"10000-01-07T00:00:00Z").
            let expiry = policy.expiry(of: timestamp)
            if expiry.isWithinISO8601Years { writer.member("expires_at", expiry.iso8601) }
        }
        if let now { writer.member("status", status(at: now, policy: policy)) }
        writer.member("image_data_count", imageDataCount)
        writer.member("image_data_bytes", imageDataBytes)
        writer.endObject()
    }
}
