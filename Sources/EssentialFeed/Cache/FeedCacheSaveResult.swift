/// What a streaming save did.
public struct FeedCacheSaveResult: Equatable, Sendable {
    /// Images saved.
    public var saved: Int
    /// Images not saved because an earlier one had their id.
    public var skipped: Int

    public init(saved: Int, skipped: Int) {
        self.saved = saved
        self.skipped = skipped
    }
}
