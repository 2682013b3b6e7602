import Dispatch

/// The moment a request must be answered by, and the failure when it is not.
struct Deadline: Sendable {
    /// On the monotonic clock (`DispatchTime`'s uptime), in nanoseconds.
    let uptimeNanoseconds: UInt64
    let timeout: Double

    init(timeout: Double, from start: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        self.timeout = timeout
        let nanoseconds = timeout * 1e9
        // Past about 146 years the bound is as good as none.
        uptimeNanoseconds = nanoseconds >= Double(UInt64.max / 2) ? UInt64.max / 2 : start + UInt64(max(0, nanoseconds))
    }

    /// Seconds as messages show them: `30`, `0.5`.
    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    var failure: HTTPFailure {
        HTTPFailure(.timedOut, "timed out after \(Deadline.format(timeout)) s")
    }

    /// The milliseconds left for `poll`, at least 1; throws once none are left.
    func remainingMilliseconds() throws(HTTPFailure) -> Int32 {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now < uptimeNanoseconds else { throw failure }
        let milliseconds = (uptimeNanoseconds - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, UInt64(Int32.max)))
    }

    var dispatchTime: DispatchTime { DispatchTime(uptimeNanoseconds: uptimeNanoseconds) }
}
