import XCTest
import EssentialFeed

final class FeedCachePolicyTests: XCTestCase {

    func test_defaultMaxAge_isSevenUTCDaysOf86400Seconds() {
        XCTAssertEqual(FeedCachePolicy().maxAge, .sevenDays)
        XCTAssertEqual(CacheMaxAge.sevenDays.seconds, 604_800)
    }

    func test_validate_isValidUpToOneNanosecondBeforeTheMaxAge() {
        let policy = FeedCachePolicy()
        let saved = Timestamp(seconds: 1_000_000, nanoseconds: 500)

        XCTAssertTrue(policy.validate(saved, against: saved))
        XCTAssertTrue(policy.validate(saved, against: Timestamp(seconds: 1_000_000 + 604_800, nanoseconds: 499)))
        XCTAssertFalse(policy.validate(saved, against: Timestamp(seconds: 1_000_000 + 604_800, nanoseconds: 500)))
        XCTAssertFalse(policy.validate(saved, against: Timestamp(seconds: 1_000_000 + 604_801)))
    }

    func test_validate_countsDaysInUTCAcrossADaylightSavingChange() throws {
        // Europe/Lisbon went from UTC+0 to UTC+1 on 2024-03-31: 7 local days
        // after 2024-03-28T10:00 (local) are 167 hours; the cache keeps 168.
        let saved = try XCTUnwrap(Timestamp(iso8601: "2024-03-28T10:00:00Z"))
        let policy = FeedCachePolicy()

        XCTAssertTrue(policy.validate(saved, against: try XCTUnwrap(Timestamp(iso8601: "2024-04-04T09:59:59Z"))))
        XCTAssertFalse(policy.validate(saved, against: try XCTUnwrap(Timestamp(iso8601: "2024-04-04T10:00:00Z"))))
    }

    func test_expiry_saturatesInsteadOfOverflowing() {
        let policy = FeedCachePolicy(maxAge: CacheMaxAge(seconds: .max))

        XCTAssertTrue(policy.validate(Timestamp(seconds: 10), against: Timestamp(seconds: .max)))
    }

    func test_zeroMaxAge_expiresEveryCache() {
        let policy = FeedCachePolicy(maxAge: CacheMaxAge(seconds: 0))

        XCTAssertFalse(policy.validate(fixedCurrentDate, against: fixedCurrentDate))
    }

    // MARK: Parsing a max age

    func test_parsing_readsEachUnit() throws {
        XCTAssertEqual(try CacheMaxAge(parsing: "7d").seconds, 604_800)
        XCTAssertEqual(try CacheMaxAge(parsing: "36h").seconds, 129_600)
        XCTAssertEqual(try CacheMaxAge(parsing: "90m").seconds, 5_400)
        XCTAssertEqual(try CacheMaxAge(parsing: "45s").seconds, 45)
        XCTAssertEqual(try CacheMaxAge(parsing: "0s").seconds, 0)
        XCTAssertEqual(try CacheMaxAge(parsing: "007d").seconds, 604_800)
    }

    func test_parsing_addsUpSeveralUnits() throws {
        XCTAssertEqual(try CacheMaxAge(parsing: "1d12h").seconds, 129_600)
        XCTAssertEqual(try CacheMaxAge(parsing: "1h30m15s").seconds, 5_415)
    }

    func test_parsing_rejectsAnythingElseWithAUsageErrorNamingTheText() {
        for text in ["", "7", "d", "7x", "-1d", "7 d", " 7d", "7d ", "7D", "1.5h", "7dd", "d7", "1w", "7days"] {
            let error = caughtRecord({ () throws(ErrorRecord) in try CacheMaxAge(parsing: text) })
            XCTAssertEqual(error?.kind, .usage, "for \(text.debugDescription)")
            XCTAssertTrue(error?.message.contains("'\(text)'") ?? false, "Expected the message to quote \(text.debugDescription): \(error?.message ?? "")")
        }
    }

    func test_parsing_rejectsAmountsThatOverflow() {
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try CacheMaxAge(parsing: "99999999999999999999s") })?.kind, .usage)
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try CacheMaxAge(parsing: "999999999999999d") })?.kind, .usage)
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try CacheMaxAge(parsing: "9223372036854775807s1s") })?.kind, .usage)
    }

    func test_description_usesTheLargestWholeUnit() {
        XCTAssertEqual(CacheMaxAge.sevenDays.description, "7d")
        XCTAssertEqual(CacheMaxAge(seconds: 129_600).description, "36h")
        XCTAssertEqual(CacheMaxAge(seconds: 5_400).description, "90m")
        XCTAssertEqual(CacheMaxAge(seconds: 45).description, "45s")
        XCTAssertEqual(CacheMaxAge(seconds: 0).description, "0s")
    }
}
