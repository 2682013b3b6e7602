

/// How long a cached feed stays valid: a whole number of seconds.
///
/// Days are UTC days: one day is always 86 400 s, so the default of 7 days
/// is exactly 604 800 s whatever the user's time zone. A span of 7 local
/// calendar days across a daylight saving change lasts 167 or 169 hours;
/// the cache does not follow it, so that its expiry does not depend on where
/// or with which `TZ` a tool runs (POSIX time has no leap seconds either).
public struct CacheMaxAge: Equatable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let seconds: Int64

    public init(seconds: Int64) {
        precondition(seconds >= 0, "a maximum age is never negative")
        self.seconds = seconds
    }

    public static let sevenDays = CacheMaxAge(seconds: 7 * 86_400)

    public static func < (a: CacheMaxAge, b: CacheMaxAge) -> Bool { a.seconds < b.seconds }

    /// Parses a duration such as `7d`, `36h`, `90m`, `45s` or a sum of them
    /// (`1d12h`): whole numbers, each followed by `d` (86 400 s), `h`, `m` or `s`.
    /// Throws a `.usage` error naming the text otherwise.
    public init(parsing text: String) throws(ErrorRecord) {
        func invalid(_ reason: String) -> ErrorRecord {
            ErrorRecord(.usage, "invalid maximum age '\(text)': \(reason) (e.g. 7d, 36h, 90m, 45s)")
        }
        var total: Int64 = 0
        var number: Int64?
        var pairs = 0
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let (m, o1) = (number ?? 0).multipliedReportingOverflow(by: 10)
                let (s, o2) = m.addingReportingOverflow(Int64(c - UInt8(ascii: "0")))
                guard !o1, !o2 else { throw invalid("too large") }
                number = s
            case UInt8(ascii: "d"), UInt8(ascii: "h"), UInt8(ascii: "m"), UInt8(ascii: "s"):
                guard let n = number else { throw invalid("expected a whole number before '\(Character(Unicode.Scalar(c)))'") }
                let unit: Int64 = switch c {
                case UInt8(ascii: "d"): 86_400
                case UInt8(ascii: "h"): 3_600
                case UInt8(ascii: "m"): 60
                default: 1
                }
                let (product, o1) = n.multipliedReportingOverflow(by: unit)
                let (sum, o2) = total.addingReportingOverflow(product)
                guard !o1, !o2 else { throw invalid("too large") }
                total = sum
                number = nil
                pairs += 1
            default:
                throw invalid("expected whole numbers each followed by d, h, m or s")
            }
        }
        guard pairs > 0 else { throw invalid("expected a whole number followed by d, h, m or s") }
        guard number == nil else { throw invalid("the last number has no unit (d, h, m or s)") }
        self.init(seconds: total)
    }

    /// The shortest form in the largest whole unit: `7d`, `36h`, `90m`, `45s`.
    public var description: String {
        if seconds > 0, seconds % 86_400 == 0 { return "\(seconds / 86_400)d" }
        if seconds > 0, seconds % 3_600 == 0 { return "\(seconds / 3_600)h" }
        if seconds > 0, seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }
}
