/// A point in time in UTC, to the nanosecond, with ISO 8601 reading and writing
/// that needs no calendar library.
public struct Timestamp: Equatable, Comparable, Hashable, Sendable {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var seconds: Int64
    /// 0 ..< 1_000_000_000
    public var nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32 = 0) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM|±HH)`.
    /// Lower-case `t` and `z` are accepted, as RFC 3339 allows, and so is a
    /// leap second (`23:59:60Z`, read as the next day's first second).
    public init?(iso8601 text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Timestamp.parse($0) }) else { return nil }
        self = parsed
    }

    /// Parses the UTF-8 bytes of an ISO 8601 date (see `init(iso8601:)`).
    public init?(iso8601Bytes bytes: [UInt8]) {
        guard let parsed = bytes.withUnsafeBufferPointer({ Timestamp.parse($0) }) else { return nil }
        self = parsed
    }

    /// Parses the UTF-8 bytes of an ISO 8601 date (see `init(iso8601:)`).
    public init?(iso8601Bytes bytes: UnsafeBufferPointer<UInt8>) {
        guard let parsed = Timestamp.parse(bytes) else { return nil }
        self = parsed
    }

    /// Whether `text` is a valid `YYYY-MM-DDTHH:MM:SS` with no fraction and
    /// a zero offset (`Z`, `±00`, `±0000`, `±00:00`): the dates this type
    /// reads and writes back as the same 19 bytes and `Z`, so a mapper can
    /// copy them without parsing. Agrees with `init(iso8601Bytes:)` (the
    /// fuzzer and `TimestampTests` hold them equal).
    @inline(__always)
    public static func isCanonicalUTC(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = text.baseAddress else { return false }
        switch text.count {
        case 20:
            guard p[19] == UInt8(ascii: "Z") else { return false }
        case 22, 24, 25:
            guard p[19] == UInt8(ascii: "+") || p[19] == UInt8(ascii: "-"), p[20] == 0x30, p[21] == 0x30 else { return false }
            if text.count == 24 { guard p[22] == 0x30, p[23] == 0x30 else { return false } }
            if text.count == 25 { guard p[22] == UInt8(ascii: ":"), p[23] == 0x30, p[24] == 0x30 else { return false } }
        default:
            return false
        }
        guard p[4] == UInt8(ascii: "-"), p[7] == UInt8(ascii: "-"), p[10] == UInt8(ascii: "T"),
              p[13] == UInt8(ascii: ":"), p[16] == UInt8(ascii: ":") else { return false }
        var ok = true
        @inline(__always) func two(_ k: Int) -> Int {
            let a = p[k] &- 0x30, b = p[k + 1] &- 0x30
            ok = ok && a < 10 && b < 10
            return Int(a) &* 10 &+ Int(b)
        }
        let year = two(0) &* 100 &+ two(2)
        let month = two(5), day = two(8), hour = two(11), minute = two(14), second = two(17)
        return ok && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(month: month, year: year)
            && hour <= 23 && minute <= 59 && second <= 59
    }

    private static func parse(_ p: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= p.count else { return nil }
            var v = 0
            for k in 0..<n {
                let d = p[i + k] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < p.count, p[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(UInt8(ascii: "-")),
              let month = digits(2), expect(UInt8(ascii: "-")),
              let day = digits(2) else { return nil }
        guard i < p.count, p[i] == UInt8(ascii: "T") || p[i] == UInt8(ascii: "t") else { return nil }
        i += 1
        guard let hour = digits(2), expect(UInt8(ascii: ":")),
              let minute = digits(2), expect(UInt8(ascii: ":")),
              let second = digits(2) else { return nil }
        var nanos = 0
        if i < p.count, p[i] == UInt8(ascii: ".") {
            i += 1
            var count = 0
            while i < p.count, p[i] &- UInt8(ascii: "0") < 10 {
                if count < 9 { nanos = nanos * 10 + Int(p[i] - UInt8(ascii: "0")) }
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            if count < 9 { for _ in count..<9 { nanos *= 10 } }
        }
        guard i < p.count else { return nil }
        var offset = 0
        switch p[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = p[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = digits(2) else { return nil }
            var om = 0
            if i < p.count {
                _ = expect(UInt8(ascii: ":"))
                guard let m = digits(2) else { return nil }
                om = m
            }
            guard oh <= 23, om <= 59 else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        default:
            return nil
        }
        guard i == p.count else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
        // A leap second, the last second of a UTC day (23:59:60Z, or
        // 01:59:60+02:00), is read as the next day's first, as POSIX time
        // counts it (timegm(3), and HTTP dates here); a second 60 anywhere
        // else is no time.
        guard second < 60 || seconds % 86_400 == 0 else { return nil }
        // In UTC too, a year of four digits: else the date could not be
        // written back as one (0000-01-01T00:00:00+01:00 is in year -1).
        guard utcRange.contains(seconds) else { return nil }
        return Timestamp(seconds: seconds, nanoseconds: Int32(nanos))
    }

    /// Whether `iso8601` writes a date that `init(iso8601:)` reads back (a
    /// year of four digits: 0000 through 9999).
    public var isWithinISO8601Years: Bool { Self.utcRange.contains(seconds) }

    /// The seconds of 0000-01-01T00:00:00Z through 9999-12-31T23:59:59Z.
    private static let utcRange: ClosedRange<Int64> =
        Int64(daysFromCivil(year: 0, month: 1, day: 1)) * 86_400...Int64(daysFromCivil(year: 9999, month: 12, day: 31)) * 86_400 + 86_399

    /// Appends `iso8601` as UTF-8 bytes, without building a string.
    public func appendISO8601(to out: inout [UInt8]) {
        let (days, secondOfDay) = Timestamp.dayAndSecond(seconds)
        let (y, m, d) = Timestamp.civilFromDays(Int(days))
        guard (0...9999).contains(y) else {
            out.append(contentsOf: iso8601.utf8)
            return
        }
        func two(_ v: Int) {
            out.append(UInt8(truncatingIfNeeded: 48 + v / 10))
            out.append(UInt8(truncatingIfNeeded: 48 + v % 10))
        }
        two(y / 100); two(y % 100); out.append(UInt8(ascii: "-"))
        two(m); out.append(UInt8(ascii: "-"))
        two(d); out.append(UInt8(ascii: "T"))
        two(secondOfDay / 3600); out.append(UInt8(ascii: ":"))
        two(secondOfDay / 60 % 60); out.append(UInt8(ascii: ":"))
        two(secondOfDay % 60)
        if nanoseconds > 0 {
            out.append(UInt8(ascii: "."))
            var digits = [UInt8](repeating: 48, count: 9)
            var n = Int(nanoseconds)
            for k in stride(from: 8, through: 0, by: -1) {
                digits[k] = UInt8(truncatingIfNeeded: 48 + n % 10)
                n /= 10
            }
            var last = 8
            while last > 0 && digits[last] == 48 { last -= 1 }
            out.append(contentsOf: digits[0...last])
        }
        out.append(UInt8(ascii: "Z"))
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, with a fraction (trailing zeros dropped) only when there is one.
    public var iso8601: String {
        let (days, secondOfDay) = Timestamp.dayAndSecond(seconds)
        let (y, m, d) = Timestamp.civilFromDays(Int(days))
        var out = ""
        out.reserveCapacity(30)
        func pad(_ v: Int, _ width: Int) {
            let s = String(v)
            if s.count < width { out += String(repeating: "0", count: width - s.count) }
            out += s
        }
        pad(y, 4); out += "-"; pad(m, 2); out += "-"; pad(d, 2); out += "T"
        pad(secondOfDay / 3600, 2); out += ":"; pad(secondOfDay / 60 % 60, 2); out += ":"; pad(secondOfDay % 60, 2)
        if nanoseconds > 0 {
            var fraction = String(nanoseconds)
            fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            out += "." + fraction
        }
        out += "Z"
        return out
    }

    /// `seconds` since 1970 as whole days since then (rounded down) and
    /// the second of that day, for any value (no overflow at the ends).
    static func dayAndSecond(_ seconds: Int64) -> (day: Int64, second: Int) {
        let rest = seconds % 86_400
        return rest < 0 ? (seconds / 86_400 - 1, Int(rest + 86_400)) : (seconds / 86_400, Int(rest))
    }

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
