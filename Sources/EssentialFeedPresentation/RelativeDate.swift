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
    public init(locale: AppLocale, style: Style = .wide) {
        self.locale = Locale(identifier: locale.identifier)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        calendar.locale = self.locale
        self.calendar = calendar
        self.style = style
    }

    /// `date` relative to `now`: a date before `now` is "… ago".
    public func string(for date: Timestamp, relativeTo now: Timestamp) -> String {
        // The anchored style describes its anchor as seen from the formatted
        // date, so the comment's date is the anchor and `now` is formatted.
        let format = Date.AnchoredRelativeFormatStyle(
            anchor: date.date, presentation: .numeric, unitsStyle: style.units, locale: locale, calendar: calendar
        )
        return format.format(now.date)
    }
}

extension Timestamp {
    /// The same instant as a Foundation `Date`.
    public var date: Date {
        Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }
}
