import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall clock, or the time given with `--now`.
public enum Clock {
    public static func now() -> Timestamp {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Timestamp(seconds: Int64(t.tv_sec), nanoseconds: Int32(t.tv_nsec))
    }

    /// The clock a command reads each time it needs the time: `--now
    /// ISO8601` when given (the same time at every reading), else the wall
    /// clock, read then. A bad value is a usage error.
    public static func reading(option text: String?) throws(ErrorRecord) -> @Sendable () -> Timestamp {
        guard text != nil else { return { Clock.now() } }
        let fixed = try now(option: text)
        return { fixed }
    }

    /// `--now ISO8601` when given, else the wall clock. A bad value is a usage error.
    public static func now(option text: String?) throws(ErrorRecord) -> Timestamp {
        guard let text else { return now() }
        guard let timestamp = Timestamp(iso8601: text) else {
            throw ErrorRecord(.usage, "--now: '\(text)' is not an ISO 8601 date (e.g. 2020-05-20T11:24:59Z)")
        }
        return timestamp
    }
}
