/// When a cached feed is still valid: while its age is less than the maximum
/// age. A feed exactly as old as the maximum age is expired. A timestamp
/// later than now (a clock set back) counts as valid, as in the case study.
public struct FeedCachePolicy: Equatable, Hashable, Sendable {
    public var maxAge: CacheMaxAge

    public init(maxAge: CacheMaxAge = .sevenDays) {
        self.maxAge = maxAge
    }

    /// The first instant at which a feed saved at `timestamp` is expired
    /// (saturating at the end of representable time).
    public func expiry(of timestamp: Timestamp) -> Timestamp {
        let (seconds, overflow) = timestamp.seconds.addingReportingOverflow(maxAge.seconds)
        if overflow { return Timestamp(seconds: .max, nanoseconds: 999_999_999) }
        return Timestamp(seconds: seconds, nanoseconds: timestamp.nanoseconds)
    }

    /// Whether a feed saved at `timestamp` is still valid at `now`.
    public func validate(_ timestamp: Timestamp, against now: Timestamp) -> Bool {
        now < expiry(of: timestamp)
    }
}
