import EssentialFeed
import EssentialFeedPresentation
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

    func test_futureDate_isIn() {
        XCTAssertEqual(format(-3_600, "en_US_POSIX"), "in 1 hour")
    }

    func test_styles_shortenUnits() {
        XCTAssertEqual(format(400 * 86_400, "en_US_POSIX", .short), "1 yr. ago")
        XCTAssertEqual(format(400 * 86_400, "en_US_POSIX", .narrow), "1y ago")
    }
}
