/// The cached feed's timestamp and number of images, read without its images.
public struct CachedFeedHeader: Equatable, Hashable, Sendable {
    public var timestamp: Timestamp
    public var count: Int

    public init(timestamp: Timestamp, count: Int) {
        self.timestamp = timestamp
        self.count = count
    }
}
