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
        let from = date.date, to = now.date
        let (earlier, later) = from <= to ? (from, to) : (to, from)
        let parts = calendar.dateComponents([.year, .month, .weekOfMonth, .day, .hour, .minute, .second], from: earlier, to: later)
        let units: [(Calendar.Component, Int?, Date.RelativeFormatStyle.Field)] = [
            (.year, parts.year, .year), (.month, parts.month, .month), (.weekOfMonth, parts.weekOfMonth, .week),
            (.day, parts.day, .day), (.hour, parts.hour, .hour), (.minute, parts.minute, .minute), (.second, parts.second, .second),
        ]
        guard let (component, count, field) = units.first(where: { ($0.1 ?? 0) != 0 }).map({ ($0.0, $0.1!, $0.2) }) else {
            var format = Date.AnchoredRelativeFormatStyle(
                anchor: to, presentation: .named, unitsStyle: style.units, locale: locale, calendar: calendar
            )
            format.allowedFields = [.second]
            return format.format(to)
        }
        // The anchored style describes its anchor as seen from the formatted
        // date. Anchor exactly `count` whole units from `now`, so that the
        // style's own calendar counting gives that same count.
        let signed = from <= to ? -count : count
        let anchor = calendar.date(byAdding: component, value: signed, to: to) ?? from
        var format = Date.AnchoredRelativeFormatStyle(
            anchor: anchor, presentation: .numeric, unitsStyle: style.units, locale: locale, calendar: calendar
        )
        format.allowedFields = [field]
        return format.format(to)
    }

    private static let availableIdentifiers = Set(Locale.availableIdentifiers)

    static func known(_ identifier: String) -> String {
        if availableIdentifiers.contains(identifier) { return identifier }
        let language = String(identifier.prefix { $0 != "_" })
        return availableIdentifiers.contains(language) ? identifier : "en_US_POSIX"
    }
}

extension Timestamp {
    /// The same instant as a Foundation `Date`.
    public var date: Date {
        Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }
}
