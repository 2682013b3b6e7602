import EssentialFeed

/// curl's `--retry`: which outcomes are worth another attempt and how long
/// to wait before it. Pure: the caller tells the time.
///
/// Transient, as curl has it: a timeout, a refused connection, a lost
/// (reset) connection, a name that did not resolve, and the statuses 408,
/// 429, 500, 502, 503 and 504. The first wait is `firstDelay` (1 s), each
/// next one twice the last; a `Retry-After` of the failed response
/// (seconds, or an HTTP date) takes the place of that wait. No retry
/// starts past `maxTime` seconds from the first attempt: a wait that would
/// end past it is not waited, and the last attempt's outcome stands.
public struct RetryPolicy: Sendable, Equatable {
    public static let transientStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    public var retries: Int
    public var maxTime: Double
    public var firstDelay: Double

    public init(retries: Int, maxTime: Double, firstDelay: Double = 1) {
        self.retries = retries
        self.maxTime = maxTime
        self.firstDelay = firstDelay
    }

    public static func isTransient(_ outcome: Result<HTTPResult, HTTPFailure>) -> Bool {
        switch outcome {
        case let .success(response):
            return transientStatuses.contains(response.status)
        case let .failure(failure):
            switch failure.reason {
            case .timedOut, .refused, .connectionLost, .cannotResolveHost: return true
            default: return false
            }
        }
    }

    /// The seconds to wait before the next attempt, or nil for none.
    /// - Parameters:
    ///   - retriesMade: the retries made so far (0 after the first attempt);
    ///   - elapsed: seconds since the first attempt started;
    ///   - now: the time, in seconds since 1970, for a `Retry-After` date.
    public func delay(after outcome: Result<HTTPResult, HTTPFailure>, retriesMade: Int, elapsed: Double, now: Int) -> Double? {
        guard retriesMade < retries, Self.isTransient(outcome) else { return nil }
        var wait = firstDelay * Double(1 << min(retriesMade, 20))
        if case let .success(response) = outcome, let after = response.retryAfter.flatMap({ Self.seconds(retryAfter: $0, now: now) }) {
            wait = after
        }
        guard elapsed + wait <= maxTime else { return nil }
        return wait
    }

    /// A `Retry-After` value in seconds from `now`: delay-seconds, or an HTTP
    /// date (0 when it is past); nil when it is neither.
    public static func seconds(retryAfter value: String, now: Int) -> Double? {
        if !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // Counted without its leading zeros (1*DIGIT: `0000000002` is 2 s;
            // by its length it was past any --retry-max-time: found by the hunt).
            let digits = value.drop { $0 == "0" }
            return Double(digits.count > 9 ? 999_999_999 : Int(digits) ?? 0)
        }
        return HTTPDate.parse(value).map { Double(max(0, $0 - now)) }
    }
}
