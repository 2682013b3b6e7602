/// HTTP dates (RFC 9110, 5.6.7), as seconds since 1970-01-01 UTC: written
/// as IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), read in any of the
/// three forms a recipient must accept (IMF-fixdate, RFC 850's
/// `Sunday, 06-Nov-94 08:49:37 GMT`, C's asctime `Sun Nov  6 08:49:37 1994`).
/// Independent of the C locale and of the time zone.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate of `seconds` since 1970-01-01 UTC.
    public static func format(_ seconds: Int) -> String {
        let (whole, time) = Timestamp.dayAndSecond(Int64(seconds))
        let day = Int(whole)
        let (year, month, date) = Timestamp.civilFromDays(day)
        let weekday = ((day % 7) + 7 + 4) % 7  // 1970-01-01 was a Thursday
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        // Four digits, as the grammar writes a year (year 1 written "1" was
        // no date, and year 50 read back as 2050: found in review).
        let yearText = (0..<1000).contains(year) ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return "\(days[weekday]), \(two(date)) \(months[month - 1]) \(yearText) \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }

    /// The seconds since 1970-01-01 UTC of an HTTP date, or nil when `text`
    /// is none of its three forms.
    public static func parse(_ text: String) -> Int? {
        // The form servers send, read from its fixed places (split into
        // words, each response's Last-Modified took 3.7% of feed-fetch's
        // time for 1,000 small files); what does not fit them, as words.
        if let fixed = text.utf8.withContiguousStorageIfAvailable(parseIMFFixdate), let seconds = fixed { return seconds }
        return parseWords(text)
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, 29 bytes: three
    /// letters, the rest digits where digits go): `.some(seconds)` or
    /// `.some(nil)` (no such date); nil when `bytes` is not in that layout.
    static func parseIMFFixdate(_ bytes: UnsafeBufferPointer<UInt8>) -> Int?? {
        guard bytes.count == 29 else { return nil }
        func letter(_ i: Int) -> Bool { (bytes[i] | 0x20) >= 0x61 && (bytes[i] | 0x20) <= 0x7A }
        func digits(_ i: Int, _ n: Int) -> Int? {
            var value = 0
            for j in i..<(i + n) {
                guard bytes[j] >= 0x30, bytes[j] <= 0x39 else { return nil }
                value = value * 10 + Int(bytes[j] - 0x30)
            }
            return value
        }
        guard letter(0), letter(1), letter(2), bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
              bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 0x20,
              let day = digits(5, 2), let year = digits(12, 4), let h = digits(17, 2), let m = digits(20, 2), let s = digits(23, 2)
        else { return nil }
        guard bytes[26] == UInt8(ascii: "G"), bytes[27] == UInt8(ascii: "M"), bytes[28] == UInt8(ascii: "T"),
              let month = monthBytes.firstIndex(where: { $0[0] == bytes[8] && $0[1] == bytes[9] && $0[2] == bytes[10] }).map({ $0 + 1 }),
              (1...Timestamp.daysIn(month: month, year: year)).contains(day), h < 24, m < 60, s <= 60
        else { return .some(nil) }
        return .some(Timestamp.daysFromCivil(year: year, month: month, day: day) * 86_400 + h * 3600 + m * 60 + s)
    }

    private static let monthBytes = months.map { Array($0.utf8) }

    /// Whether `text` is `seconds` written as `format` writes it: the
    /// IMF-fixdate layout, read from its places, and the right weekday.
    static func isIMFFixdate(_ text: String, of seconds: Int) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard case .some(.some(seconds)) = parseIMFFixdate(bytes) else { return false }
            let day = Int(Timestamp.dayAndSecond(Int64(seconds)).day)
            return bytes.prefix(3).elementsEqual(days[((day % 7) + 7 + 4) % 7].utf8)
        }
    }

    /// Any of the three forms, read as words.
    static func parseWords(_ text: String) -> Int? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map(String.init)
        // Digits only, as many as the grammar writes (Int() took "+7" and "007").
        func number(_ word: String, _ counts: ClosedRange<Int>) -> Int? {
            guard counts.contains(word.utf8.count), word.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int(word)
        }
        var year: Int?, month: Int?, day: Int?, clock: String?
        switch words.count {
        case 6:
            // IMF-fixdate or RFC 850: weekday, day (two digits; one, as RFC
            // 5322 and Java's RFC 1123 writer have it), month, year (four
            // digits, or RFC 850's two), time, GMT.
            guard words[5] == "GMT", let d = number(words[1], 1...2), let y = number(words[3], 2...4), words[3].utf8.count != 3 else { return nil }
            day = d
            month = months.firstIndex(of: words[2]).map { $0 + 1 }
            year = words[3].count == 2 ? (y >= 70 ? 1900 + y : 2000 + y) : y
            clock = words[4]
        case 5:
            // asctime: weekday, month, day (one or two digits), time, year.
            guard let d = number(words[2], 1...2), let y = number(words[4], 4...4) else { return nil }
            day = d
            month = months.firstIndex(of: words[1]).map { $0 + 1 }
            year = y
            clock = words[3]
        default:
            return nil
        }
        guard let year, let month, let day, let clock,
              (1...Timestamp.daysIn(month: month, year: year)).contains(day) else { return nil }
        let parts = clock.split(separator: ":", omittingEmptySubsequences: false).map { number(String($0), 2...2) }
        guard parts.count == 3, let h = parts[0], let m = parts[1], let s = parts[2],
              (0..<24).contains(h), (0..<60).contains(m), (0...60).contains(s) else { return nil }
        return Timestamp.daysFromCivil(year: year, month: month, day: day) * 86_400 + h * 3600 + m * 60 + s
    }
}
