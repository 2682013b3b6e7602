import EssentialFeed
import Foundation

/// Relative dates such as `1 day ago`, `há 1 dia` or `in 2 hours`: the case
/// study's `ImageCommentsPresenter` date formatting, on ICU through Foundation.
public struct RelativeDateFormatter: Sendable {
    public enum Style: String, CaseIterable, Sendable {
        case wide, short, narrow

        var units: Date.RelativeFormatStyle.UnitsStyle {
            switch self {
            case .wide: .wide
            case .short: .abbreviated
            case .narrow: .narrow
            }
        }
    }

    private let locale: Locale
    private let calendar: Calendar
    private let style: Style
    private let memo = Memo()

    /// Formatted words by unit and signed count.
    private final class Memo: @unchecked Sendable {
        // Guards `strings`: a formatter may be shared between threads.
        private let lock = NSLock()
        private var strings: [Int: String] = [:]

        func value(_ key: Int) -> String? {
            lock.lock()
            defer { lock.unlock() }
            return strings[key]
        }

        func store(_ key: Int, _ text: String) {
            lock.lock()
            defer { lock.unlock() }
            if strings.count < 4096 { strings[key] = text }
        }
    }

    /// Calendar arithmetic is gregorian in UTC, so results do not depend on `TZ`.
    /// A locale ICU does not know falls back to `en_US_POSIX`.
    public init(locale: AppLocale, style: Style = .wide) {
        self.locale = Locale(identifier: RelativeDateFormatter.known(locale.identifier))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        calendar.locale = self.locale
        self.calendar = calendar
        self.style = style
    }

    /// `date` relative to `now`: a date before `now` is "… ago", one after
    /// it "in …", the same second "now".
    ///
    /// The unit is the largest calendar component of the difference that is
    /// not zero, and its count is whole units elapsed (as the case study's
    /// `RelativeDateTimeFormatter`): 25 hours is "1 day ago", 23 hours 59
    /// minutes "23 hours ago", and 2 minutes across midnight "2 minutes ago".
    public func string(for date: Timestamp, relativeTo now: Timestamp) -> String {
        let (unit, signed) = Self.shortSpan(date, now) ?? calendarDifference(date, now)
        // The words depend only on the unit and the signed count: each is
        // formatted by ICU once.
        let key = unit.map { $0 * 1_000_000_000 + signed } ?? Int.min
        if let known = memo.value(key) { return known }
        let text = format(unit: unit, signed: signed, relativeTo: now.date)
        memo.store(key, text)
        return text
    }

    /// The calendar components, largest first, with the formatting field of each.
    private static let units: [(Calendar.Component, Date.RelativeFormatStyle.Field)] = [
        (.year, .year), (.month, .month), (.weekOfMonth, .week), (.day, .day), (.hour, .hour), (.minute, .minute), (.second, .second),
    ]

    /// The largest unit of the difference that is not zero (an index into
    /// `units`, nil for the same second) and its whole count, negative for
    /// a date before `now`, by the calendar.
    func calendarDifference(_ date: Timestamp, _ now: Timestamp) -> (unit: Int?, signed: Int) {
        let before = date <= now
        let (earlier, later) = before ? (date, now) : (now, date)
        // The whole seconds elapsed, counted exactly, from the earlier
        // instant's whole second: as doubles, a difference a nanosecond
        // short of a unit could round up to it.
        let elapsed = later.seconds &- earlier.seconds &- (later.nanoseconds < earlier.nanoseconds ? 1 : 0)
        // Foundation's gregorian calendar is Julian before 15 October 1582
        // (a Gregorian year from 1500 was "11 months"); the Gregorian
        // calendar repeats every 400 years, so a span that starts before
        // then is counted as many 400-year cycles later: on the proleptic
        // Gregorian calendar, as reldate(1) says (found by the hunt).
        let start = earlier.seconds < Self.gregorianStart ? earlier.seconds + ((Self.gregorianStart - earlier.seconds) / Self.cycle + 1) * Self.cycle : earlier.seconds
        let from = Date(timeIntervalSince1970: Double(start))
        let to = Date(timeIntervalSince1970: Double(start) + Double(elapsed))
        let parts = calendar.dateComponents(Set(Self.units.map(\.0)), from: from, to: to)
        for (index, (component, _)) in Self.units.enumerated() {
            if let count = parts.value(for: component), count != 0 { return (index, before ? -count : count) }
        }
        return (nil, 0)
    }

    /// 1582-10-15T00:00:00Z, the first day of the Gregorian calendar, and
    /// 400 Gregorian years (146,097 days), in seconds.
    private static let gregorianStart: Int64 = -12_219_292_800
    private static let cycle: Int64 = 146_097 * 86_400

    /// The same for instants less than 28 days apart, by arithmetic (to
    /// the nanosecond: a date 0.9999999 s away is "now", as doubles made it
    /// "1 second ago"): in UTC a day is always 86,400 s and a week 7 days,
    /// and no month or year fits in 28 days. Nil otherwise (the calendar
    /// decides).
    static func shortSpan(_ date: Timestamp, _ now: Timestamp) -> (unit: Int?, signed: Int)? {
        let (seconds, overflow) = now.seconds.subtractingReportingOverflow(date.seconds)
        guard !overflow, seconds.magnitude <= 28 * 86_400 else { return nil }
        let difference = seconds * 1_000_000_000 + Int64(now.nanoseconds) - Int64(date.nanoseconds)
        guard difference.magnitude < 28 * 86_400 * 1_000_000_000 else { return nil }
        let span = Int(difference.magnitude / 1_000_000_000), sign = difference > 0 ? -1 : 1
        for (index, size) in [(2, 604_800), (3, 86_400), (4, 3_600), (5, 60), (6, 1)] where span >= size {
            return (index, sign * (span / size))
        }
        return (nil, 0)
    }

    private func format(unit: Int?, signed: Int, relativeTo to: Date) -> String {
        guard let unit else {
            var format = Date.AnchoredRelativeFormatStyle(
                anchor: to, presentation: .named, unitsStyle: style.units, locale: locale, calendar: calendar
            )
            format.allowedFields = [.second]
            return format.format(to)
        }
        let (component, field) = Self.units[unit]
        // The anchored style describes its anchor as seen from the formatted
        // date. Anchor exactly `count` whole units from `now`, so that the
        // style's own calendar counting gives that same count.
        let anchor = calendar.date(byAdding: component, value: signed, to: to) ?? to
        var format = Date.AnchoredRelativeFormatStyle(
            anchor: anchor, presentation: .numeric, unitsStyle: style.units, locale: locale, calendar: calendar
        )
        format.allowedFields = [field]
        return format.format(to)
    }

    private static let availableIdentifiers = Set(Locale.availableIdentifiers)

    /// `identifier` as ICU knows it; its keywords (`@numbers=latn`) kept.
    static func known(_ identifier: String) -> String {
        let at = identifier.firstIndex(of: "@") ?? identifier.endIndex
        let base = String(identifier[..<at]), keywords = identifier[at...]
        if availableIdentifiers.contains(base) { return identifier }
        var parts = base.split(separator: "_").map(String.init)
        guard let language = parts.first, availableIdentifiers.contains(language) else { return "en_US_POSIX" + keywords }
        // A script ICU has no dates of for the language (`ja_Latn`,
        // `zh_Cyrl`): the language's own (they were "-1 d", or "1 days ago").
        if parts.count > 1, parts[1].count == 4, !availableIdentifiers.contains(language + "_" + parts[1]) { parts.remove(at: 1) }
        return parts.joined(separator: "_") + keywords
    }
}

extension Timestamp {
    /// The same instant as a Foundation `Date`.
    public var date: Date {
        Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }
}
