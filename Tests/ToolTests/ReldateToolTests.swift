import Foundation
import XCTest

/// reldate in real pipes.
final class ReldateToolTests: XCTestCase {
    let comment = #"{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"a message","created_at":"2020-05-19T11:24:59Z","username":"a username"}"#

    func test_reldate_addsTheRelativeDateAfterTheOtherFields() {
        let run = sh("reldate --now 2020-05-20T11:24:59Z --locale en_US_POSIX", stdin: comment + "\n")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines, [String(comment.dropLast()) + #","relative_date":"1 day ago"}"#])
    }

    func test_reldate_takesTheLocaleFromLANGAndTheFieldsFromOptions() {
        let run = sh("reldate --now 2020-05-20T11:24:59Z --field when --into ago", stdin: #"{"when":"2020-05-19T11:24:59+0000"}"# + "\n",
                     environment: ["LANG": "pt_BR.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""])
        XCTAssertEqual(run.lines, [#"{"when":"2020-05-19T11:24:59+0000","ago":"há 1 dia"}"#])
    }

    func test_reldate_formatsOperandsOnePerLine() {
        let run = sh("reldate --now 2020-05-20T11:24:59Z --locale el_GR 2020-05-19T11:24:59Z 2020-05-20T11:19:59Z")
        XCTAssertEqual(run.lines, ["πριν από 1 ημέρα", "πριν από 5 λεπτά"])
    }

    func test_reldate_passesRecordsWithoutTheFieldAndErrorRecordsThrough() {
        let image = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://h/0"}"#
        let error = #"{"error":"connectivity","message":"m"}"#
        let run = sh("reldate", stdin: image + "\n" + error + "\n")
        XCTAssertEqual(run.status, 69)
        XCTAssertEqual(run.lines, [image, error])
    }

    func test_reldate_rejectsAValueThatIsNotADateNamingTheLine() {
        let run = sh("reldate", stdin: comment + "\n" + #"{"created_at":"yesterday"}"# + "\n")
        XCTAssertEqual(run.status, 65)
        XCTAssertTrue(run.stderr.contains("stdin:2: created_at is not an ISO 8601 date"), run.stderr)
    }

    func test_reldate_badOperandIsReportedOnStandardErrorOnly() {
        let run = sh("reldate --now 2020-05-20T11:24:59Z --locale en_US_POSIX 2020-05-19T11:24:59Z nope")
        XCTAssertEqual(run.status, 65)
        XCTAssertEqual(run.lines, ["1 day ago"])
        XCTAssertTrue(run.stderr.contains("'nope' is not an ISO 8601 date"), run.stderr)
    }

    func test_reldate_matchesLocaleNamesWithoutRegardToCase_andRefusesMalformedOnes() {
        XCTAssertEqual(sh("reldate --now 2020-05-21T11:24:59Z 2020-05-20T11:24:59Z", environment: ["LANG": "PT_br", "LC_ALL": ""]).out, "há 1 dia\n")
        XCTAssertEqual(sh("reldate --locale it_it --now 2020-05-21T11:24:59Z 2020-05-20T11:24:59Z").out, "1 giorno fa\n")
        XCTAssertEqual(sh("reldate --locale sq_AL --now 2020-05-21T11:24:59Z 2020-05-20T11:24:59Z").out, "1 day ago\n", "no translation: English dates")
        let malformed = sh("reldate --locale '!!' < /dev/null")
        XCTAssertEqual(malformed.status, 64)
        XCTAssertTrue(malformed.stderr.hasPrefix("reldate: --locale takes a locale name"), malformed.stderr)
    }

    /// ICU takes its default locale from LC_ALL, LC_MESSAGES or LANG itself,
    /// whatever locale it is given, and crashed (SIGSEGV, 139) on some that
    /// are no locale name. Such a name counts as C, for reldate and ICU.
    func test_reldate_andFeedView_withALocaleVariableThatIsNoLocaleName_writeWhatCWrites() {
        let records = comment + "\n"
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            for value in ["aaaaaaaaaaaa", "Chinese (Simplified)_China.936"] {
                let environment = ["LC_ALL": "", "LC_MESSAGES": "", "LANG": ""].merging([name: value]) { $1 }
                let run = sh("reldate --now 2020-05-20T11:24:59Z", stdin: records, environment: environment)
                XCTAssertEqual(run.status, 0, "\(name)=\(value): \(run.stderr)")
                XCTAssertEqual(run.lines, [String(comment.dropLast()) + #","relative_date":"1 day ago"}"#], "\(name)=\(value)")
                let given = sh("reldate --now 2020-05-20T11:24:59Z --locale pt_BR 2020-05-19T11:24:59Z", environment: environment)
                XCTAssertEqual(given.out, "há 1 dia\n", "\(name)=\(value): \(given.stderr)")
                let view = sh("reldate --now 2020-05-20T11:24:59Z | feed-view --kind comments --now 2020-05-20T11:24:59Z", stdin: records, environment: environment)
                XCTAssertEqual(view.status, 0, "\(name)=\(value): \(view.stderr)")
                XCTAssertTrue(view.out.contains("a message"), view.out)
            }
        }
    }

    func test_reldate_rejectsBadOptions() {
        XCTAssertEqual(sh("reldate --style huge < /dev/null").status, 64)
        XCTAssertEqual(sh("reldate --now soon < /dev/null").status, 64)
    }
}
