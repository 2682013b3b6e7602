import EssentialFeed
@testable import EssentialFeedPresentation
import XCTest

/// The case study's ImageCommentsPresenter date cases, with time made explicit.
final class RelativeDateFormatterTests: XCTestCase {
    let now = Timestamp(iso8601: "2020-05-20T11:24:59Z")!

    private func format(_ secondsAgo: Int64, _ locale: String, _ style: RelativeDateFormatter.Style = .wide) -> String {
        RelativeDateFormatter(locale: AppLocale(locale), style: style)
            .string(for: Timestamp(seconds: now.seconds - secondsAgo), relativeTo: now)
    }

    func test_pastDates_areAgoInEnglish() {
        XCTAssertEqual(format(5 * 60, "en_US_POSIX"), "5 minutes ago")
        XCTAssertEqual(format(86_400, "en_US_POSIX"), "1 day ago")
    }

    func test_pastDates_inPortugueseGreekSpanishAndGerman() {
        XCTAssertEqual(format(86_400, "pt_BR"), "há 1 dia")
        XCTAssertEqual(format(5 * 60, "pt_BR"), "há 5 minutos")
        XCTAssertEqual(format(86_400, "el_GR"), "πριν από 1 ημέρα")
        XCTAssertEqual(format(86_400, "es_ES"), "hace 1 día")
        XCTAssertEqual(format(86_400, "de_DE"), "vor 1 Tag")
    }

    /// A language by its older code (`tl`, `in`) dates in that language, as
    /// its titles are (the dates were English); one with a script ICU has no
    /// dates of dates in the language's own ("-1 d", "1 days ago").
    func test_pastDates_ofOlderLanguageCodesAndUnknownScripts_areInTheTitlesLanguage() {
        XCTAssertEqual(AppLocale("tl_PH.UTF-8").identifier, "fil_PH")
        XCTAssertEqual(format(86_400, "tl_PH"), "1 araw ang nakalipas")
        XCTAssertEqual(format(86_400, "in_ID"), "1 hari yang lalu")
        XCTAssertEqual(format(86_400, "ja_Latn"), format(86_400, "ja"))
        XCTAssertEqual(format(86_400, "zh_Cyrl"), format(86_400, "zh_CN"))
        XCTAssertEqual(format(86_400, "el_Latn_GR"), format(86_400, "el_GR"))
        XCTAssertEqual(format(86_400, "zh_Hant_TW"), "1天前")
        XCTAssertEqual(format(3_600, "zh_Cyrl_TW"), format(3_600, "zh_Hant_TW"), "the script of its titles, the region's")
        XCTAssertEqual(AppLocale("zh_Cyrl_TW").language, "zh-Hant")
        XCTAssertEqual(format(3_600, "zh_Cyrl"), format(3_600, "zh_Hans"))
        XCTAssertEqual(AppLocale("zh_Cyrl").language, "zh-Hans")
        // A script ICU has dates in, but not the titles: the titles' script.
        XCTAssertEqual(format(3 * 3_600, "hi_Latn"), format(3 * 3_600, "hi"))
        XCTAssertEqual(AppLocale("hi_Latn_IN").identifier, "hi_IN")
        XCTAssertEqual(format(3 * 3_600, "yue_Hans"), format(3 * 3_600, "yue_Hant"))
        XCTAssertEqual(format(3 * 3_600, "yue_CN"), format(3 * 3_600, "yue_Hant_CN"))
        XCTAssertEqual(AppLocale("yue_CN").identifier, "yue_Hant_CN")
        XCTAssertNotEqual(format(3 * 3_600, "yue_Hans"), format(3 * 3_600, "zh_Hans"), "Cantonese, not Mandarin")
    }

    /// Months and years before 15 October 1582 on the proleptic Gregorian
    /// calendar (Foundation's counts them on the Julian one).
    func test_spansBeforeTheGregorianCalendar_areCountedOnIt() throws {
        func ago(_ date: String, _ now: String) throws -> String {
            RelativeDateFormatter(locale: AppLocale("C")).string(for: try XCTUnwrap(Timestamp(iso8601: date)), relativeTo: try XCTUnwrap(Timestamp(iso8601: now)))
        }
        XCTAssertEqual(try ago("1500-03-01T00:00:00Z", "1501-03-01T00:00:00Z"), "1 year ago")
        XCTAssertEqual(try ago("1400-03-01T00:00:00Z", "1500-03-01T00:00:00Z"), "100 years ago")
        XCTAssertEqual(try ago("1500-02-01T00:00:00Z", "1500-03-01T00:00:00Z"), "1 month ago")
        XCTAssertEqual(try ago("0001-01-01T00:00:00Z", "2001-01-01T00:00:00Z"), "2000 years ago")
        XCTAssertEqual(try ago("1582-09-14T00:00:00Z", "1582-10-14T00:00:00Z"), "1 month ago")
        XCTAssertEqual(try ago("1581-10-14T00:00:00Z", "1582-10-14T00:00:00Z"), "1 year ago")
        XCTAssertEqual(try ago("2020-03-01T00:00:00Z", "2021-03-01T00:00:00Z"), "1 year ago")
    }

    func test_futureDate_isIn() {
        XCTAssertEqual(format(-3_600, "en_US_POSIX"), "in 1 hour")
    }

    func test_sameInstant_isNow() {
        XCTAssertEqual(format(0, "en_US_POSIX"), "now")
        XCTAssertEqual(format(0, "pt_BR"), "agora")
    }

    func test_units_countWholeUnitsElapsedNotCalendarBoundaries() {
        XCTAssertEqual(format(25 * 3_600, "en_US_POSIX"), "1 day ago")
        XCTAssertEqual(format(23 * 3_600 + 59 * 60, "en_US_POSIX"), "23 hours ago")
        XCTAssertEqual(format(8 * 86_400, "en_US_POSIX"), "1 week ago")
        let late = Timestamp(iso8601: "2019-12-31T23:59:59Z")!
        let march = Timestamp(iso8601: "2020-03-01T00:00:00Z")!
        XCTAssertEqual(RelativeDateFormatter(locale: AppLocale("en_US_POSIX")).string(for: late, relativeTo: march), "2 months ago")
    }

    func test_unknownLocale_fallsBackToEnglishWithRightPlurals() {
        XCTAssertEqual(format(86_400, "xx_YY"), "1 day ago")
        XCTAssertEqual(format(2 * 86_400, "klingon"), "2 days ago")
    }

    func test_styles_shortenUnits() {
        XCTAssertEqual(format(400 * 86_400, "en_US_POSIX", .short), "1 yr. ago")
        XCTAssertEqual(format(400 * 86_400, "en_US_POSIX", .narrow), "1y ago")
    }

    /// Spans under 28 days are counted by arithmetic, not by the calendar:
    /// both must agree on every unit and count, in both directions.
    func test_shortSpans_countAsTheCalendarDoes() {
        let formatter = RelativeDateFormatter(locale: AppLocale("en_US_POSIX"))
        var generator = SystemRandomNumberGenerator()
        var spans: [Int64] = [0, 1, 59, 60, 61, 3_599, 3_600, 86_399, 86_400, 604_799, 604_800, 28 * 86_400 - 1]
        for _ in 0..<2_000 { spans.append(Int64.random(in: 0..<(28 * 86_400), using: &generator)) }
        for span in spans {
            for sign: Int64 in [1, -1] {
                let base = Int64.random(in: 0...2_000_000_000, using: &generator)
                let date = Timestamp(seconds: base - sign * span), now = Timestamp(seconds: base)
                let fast = RelativeDateFormatter.shortSpan(date, now)
                XCTAssertNotNil(fast, "span \(span)")
                let slow = formatter.calendarDifference(date, now)
                XCTAssertTrue(fast?.unit == slow.unit && fast?.signed == slow.signed, "span \(sign * span) s: \(String(describing: fast)) vs \(slow)")
            }
        }
        XCTAssertNil(RelativeDateFormatter.shortSpan(Timestamp(seconds: 0), Timestamp(seconds: 28 * 86_400)), "28 days may hold a month")
        XCTAssertTrue(RelativeDateFormatter.shortSpan(Timestamp(seconds: 0, nanoseconds: 5), Timestamp(seconds: 60)) ?? (nil, 0) == (6, -59),
                      "59.999999995 s: 59 whole seconds")
        // With fractions, both count whole units elapsed, to the nanosecond.
        for _ in 0..<2_000 {
            let base = Int64.random(in: 0...250_000_000_000, using: &generator)
            let date = Timestamp(seconds: base - Int64.random(in: -(27 * 86_400)...(27 * 86_400), using: &generator),
                                 nanoseconds: Int32.random(in: 0..<1_000_000_000, using: &generator))
            let now = Timestamp(seconds: base, nanoseconds: Int32.random(in: 0..<1_000_000_000, using: &generator))
            let fast = RelativeDateFormatter.shortSpan(date, now), slow = formatter.calendarDifference(date, now)
            XCTAssertTrue(fast?.unit == slow.unit && fast?.signed == slow.signed, "\(date) to \(now): \(String(describing: fast)) vs \(slow)")
        }
    }

    /// Less than a whole second away is "now", however close to one and
    /// however far from 1970 (as doubles, 0.9999999 s was "1 second ago",
    /// and near year 9999 already 0.99999 s).
    func test_lessThanAWholeSecondAway_isNow_exactly() {
        let formatter = RelativeDateFormatter(locale: AppLocale("en_US_POSIX"))
        let now = formatter.string(for: Timestamp(seconds: 100), relativeTo: Timestamp(seconds: 100))
        for (seconds, nanoseconds) in [(Int64(1_589_973_899), Int32(999_999_900)), (253_402_300_738, 999_990_000), (253_402_300_738, 999_999_999)] {
            XCTAssertEqual(formatter.string(for: Timestamp(seconds: seconds), relativeTo: Timestamp(seconds: seconds, nanoseconds: nanoseconds)), now)
            XCTAssertEqual(formatter.calendarDifference(Timestamp(seconds: seconds), Timestamp(seconds: seconds, nanoseconds: nanoseconds)).unit, nil)
        }
        // Past 28 days, by the calendar: 28 days less a nanosecond is 4 weeks less a nanosecond, "3 weeks".
        let late = Timestamp(seconds: 253_402_300_738 - 28 * 86_400, nanoseconds: 1)
        XCTAssertEqual(formatter.string(for: late, relativeTo: Timestamp(seconds: 253_402_300_738)), "3 weeks ago")
    }

    /// Formatting is remembered by unit and count: the same words whatever the instants.
    func test_formatting_isTheSameForTheSameUnitAndCountAtAnyInstant() {
        let formatter = RelativeDateFormatter(locale: AppLocale("pt_BR"))
        for base: Int64 in [0, 1_590_000_000, 1_700_000_000] {
            XCTAssertEqual(formatter.string(for: Timestamp(seconds: base - 86_400), relativeTo: Timestamp(seconds: base)), "há 1 dia")
            XCTAssertEqual(formatter.string(for: Timestamp(seconds: base + 7_200), relativeTo: Timestamp(seconds: base)), "em 2 horas")
            XCTAssertEqual(formatter.string(for: Timestamp(seconds: base - 400 * 86_400), relativeTo: Timestamp(seconds: base)), "há 1 ano")
            XCTAssertEqual(formatter.string(for: Timestamp(seconds: base), relativeTo: Timestamp(seconds: base)), "agora")
        }
    }
}
