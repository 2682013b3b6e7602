import Foundation
import XCTest
import EssentialFeed

final class TimestampTests: XCTestCase {

    func test_init_readsSecondsSince1970() {
        XCTAssertEqual(Timestamp(iso8601: "2020-08-28T15:07:02+00:00")?.seconds, 1_598_627_222)
        XCTAssertEqual(Timestamp(iso8601: "2020-05-20T11:24:59Z")?.seconds, 1_589_973_899)
        XCTAssertEqual(Timestamp(iso8601: "1970-01-01T00:00:00Z"), Timestamp(seconds: 0))
        XCTAssertEqual(Timestamp(iso8601: "1969-12-31T23:59:59Z"), Timestamp(seconds: -1))
        XCTAssertEqual(Timestamp(iso8601: "2000-03-01T00:00:00Z")?.seconds, 951_868_800)
    }

    func test_init_acceptsEveryUTCOffsetForm() throws {
        let expected = try XCTUnwrap(Timestamp(iso8601: "2020-05-20T11:24:59Z"))
        for text in ["2020-05-20T11:24:59+0000", "2020-05-20T11:24:59+00:00", "2020-05-20T11:24:59-00:00",
                     "2020-05-20T11:24:59z", "2020-05-20t11:24:59Z", "2020-05-20T11:24:59+00"] {
            XCTAssertEqual(Timestamp(iso8601: text), expected, text)
        }
    }

    func test_init_appliesNonZeroOffsets() throws {
        let expected = try XCTUnwrap(Timestamp(iso8601: "2020-05-20T11:24:59Z"))
        XCTAssertEqual(Timestamp(iso8601: "2020-05-20T13:24:59+02:00"), expected)
        XCTAssertEqual(Timestamp(iso8601: "2020-05-20T13:24:59+0200"), expected)
        XCTAssertEqual(Timestamp(iso8601: "2020-05-20T05:54:59-05:30"), expected)
        XCTAssertEqual(Timestamp(iso8601: "2020-05-21T01:24:59+14"), expected)
        XCTAssertEqual(Timestamp(iso8601: "2020-05-19T23:24:59-12:00"), expected, "an offset can cross midnight")
        XCTAssertEqual(Timestamp(iso8601: "2021-01-01T00:30:00+01:00")?.iso8601, "2020-12-31T23:30:00Z",
                       "an offset can cross a year")
    }

    func test_init_readsFractionsToTheNanosecond() {
        XCTAssertEqual(Timestamp(iso8601: "2020-05-20T11:24:59.5Z")?.nanoseconds, 500_000_000)
        XCTAssertEqual(Timestamp(iso8601: "2020-05-20T11:24:59.123456789Z")?.nanoseconds, 123_456_789)
        XCTAssertEqual(Timestamp(iso8601: "2020-05-20T11:24:59.000000001+01:00")?.nanoseconds, 1)
        XCTAssertEqual(Timestamp(iso8601: "2020-05-20T11:24:59.1234567891Z")?.nanoseconds, 123_456_789,
                       "digits past the nanosecond are dropped")
        XCTAssertEqual(Timestamp(iso8601: "2020-05-20T11:24:59.000Z"), Timestamp(iso8601: "2020-05-20T11:24:59Z"))
    }

    func test_init_checksTheCalendar() {
        XCTAssertNotNil(Timestamp(iso8601: "2020-02-29T00:00:00Z"))
        XCTAssertNotNil(Timestamp(iso8601: "2000-02-29T00:00:00Z"))
        XCTAssertNil(Timestamp(iso8601: "2019-02-29T00:00:00Z"))
        XCTAssertNil(Timestamp(iso8601: "1900-02-29T00:00:00Z"))
        XCTAssertNil(Timestamp(iso8601: "2020-04-31T00:00:00Z"))
        XCTAssertNotNil(Timestamp(iso8601: "2020-12-31T23:59:59Z"))
        XCTAssertNil(Timestamp(iso8601: "2020-13-01T00:00:00Z"))
        XCTAssertNil(Timestamp(iso8601: "2020-00-01T00:00:00Z"))
        XCTAssertNil(Timestamp(iso8601: "2020-01-00T00:00:00Z"))
        XCTAssertNil(Timestamp(iso8601: "2020-01-32T00:00:00Z"))
    }

    /// A leap second (RFC 3339 allows second 60 there) is read as POSIX
    /// time counts it, the next day's first second; a comment dated in one
    /// rejected its whole response (found by the hunt). Second 60 of any
    /// other minute is no time.
    func test_init_readsALeapSecondAsTheNextDaysFirst() {
        XCTAssertEqual(Timestamp(iso8601: "2016-12-31T23:59:60Z"), Timestamp(iso8601: "2017-01-01T00:00:00Z"))
        XCTAssertEqual(Timestamp(iso8601: "2016-12-31T23:59:60.5Z"), Timestamp(iso8601: "2017-01-01T00:00:00.5Z"))
        XCTAssertEqual(Timestamp(iso8601: "2017-01-01T00:59:60+01:00"), Timestamp(iso8601: "2017-01-01T00:00:00Z"))
        XCTAssertEqual(Timestamp(iso8601: "2015-06-30T18:29:60-05:30"), Timestamp(iso8601: "2015-07-01T00:00:00Z"))
        XCTAssertNil(Timestamp(iso8601: "2016-12-31T23:58:60Z"))
        XCTAssertNil(Timestamp(iso8601: "2016-12-31T23:59:60+01:00"))
        XCTAssertNil(Timestamp(iso8601: "9999-12-31T23:59:60Z"), "past the last date written with four digits")
        XCTAssertNil(Timestamp(iso8601: "2016-12-31T23:59:61Z"))
    }

    func test_init_rejectsMalformedText() {
        let cases = [
            "", "2020-05-20", "2020-05-20T11:24:59", "2020-05-20 11:24:59Z", "2020-05-20T11:24Z",
            "2020-5-20T11:24:59Z", "20-05-20T11:24:59Z", "2020/05/20T11:24:59Z", "2020-05-20T11:24:59.Z",
            "2020-05-20T24:00:00Z", "2020-05-20T11:60:00Z", "2020-05-20T11:24:60Z",
            "2020-05-20T11:24:59+24:00", "2020-05-20T11:24:59+00:60", "2020-05-20T11:24:59+0",
            "2020-05-20T11:24:59+00:", "2020-05-20T11:24:59+00:0", "2020-05-20T11:24:59+000",
            "2020-05-20T11:24:59+0:00", "2020-05-20T11:24:59Z ", " 2020-05-20T11:24:59Z",
            "2020-05-20T11:24:59ZZ", "2020-05-20T11:24:59+00:00Z", "2020-05-20T11:24:59GMT",
            "2020-05-20T11:24:59+00Z", "yesterday", "1598627222", "２０２０-05-20T11:24:59Z",
        ]
        for text in cases {
            XCTAssertNil(Timestamp(iso8601: text), text)
        }
    }

    func test_iso8601_writesUTCWithZ() {
        XCTAssertEqual(Timestamp(seconds: 1_598_627_222).iso8601, "2020-08-28T15:07:02Z")
        XCTAssertEqual(Timestamp(seconds: 0).iso8601, "1970-01-01T00:00:00Z")
        XCTAssertEqual(Timestamp(seconds: -1).iso8601, "1969-12-31T23:59:59Z")
        XCTAssertEqual(Timestamp(seconds: -86_400).iso8601, "1969-12-31T00:00:00Z")
        XCTAssertEqual(Timestamp(seconds: 951_782_400).iso8601, "2000-02-29T00:00:00Z")
    }

    func test_iso8601_writesAFractionOnlyWhenThereIsOne() {
        XCTAssertEqual(Timestamp(seconds: 0, nanoseconds: 500_000_000).iso8601, "1970-01-01T00:00:00.5Z")
        XCTAssertEqual(Timestamp(seconds: 0, nanoseconds: 1).iso8601, "1970-01-01T00:00:00.000000001Z")
        XCTAssertEqual(Timestamp(seconds: 0, nanoseconds: 120_000_000).iso8601, "1970-01-01T00:00:00.12Z")
        XCTAssertEqual(Timestamp(seconds: 0, nanoseconds: 0).iso8601, "1970-01-01T00:00:00Z")
    }

    func test_iso8601_roundTripsThroughParsing() {
        let secondsSamples: [Int64] = [
            -62_135_596_800, // 0001-01-01
            -2_208_988_800, -86_401, -1, 0, 59, 86_399, 86_400, 951_868_799, 1_589_973_899,
            4_102_444_800, 253_402_300_799, // 9999-12-31T23:59:59Z
        ]
        for seconds in secondsSamples {
            for nanos: Int32 in [0, 1, 999_999_999, 250_000_000] {
                let t = Timestamp(seconds: seconds, nanoseconds: nanos)
                XCTAssertEqual(Timestamp(iso8601: t.iso8601), t, t.iso8601)
            }
        }
        var seconds: Int64 = -5_000_000_000
        while seconds < 5_000_000_000 {
            let t = Timestamp(seconds: seconds)
            XCTAssertEqual(Timestamp(iso8601: t.iso8601), t, t.iso8601)
            seconds += 7_777_777
        }
    }

    func test_iso8601_writesFarDatesWithFourDigitYears() {
        XCTAssertEqual(Timestamp(seconds: -62_135_596_800).iso8601, "0001-01-01T00:00:00Z")
        XCTAssertEqual(Timestamp(seconds: 253_402_300_799).iso8601, "9999-12-31T23:59:59Z")
    }

    /// A date whose offset moves it out of years 0000-9999 in UTC is no
    /// date: it could not be written back with four digits (it was
    /// written as "00-1-12-31T23:00:00Z" and "10000-01-01T00:59:59Z").
    func test_iso8601_refusesADateOutsideFourDigitYearsInUTC() {
        XCTAssertNil(Timestamp(iso8601: "0000-01-01T00:00:00+01:00"))
        XCTAssertNil(Timestamp(iso8601: "9999-12-31T23:59:59-01:00"))
        XCTAssertEqual(Timestamp(iso8601: "0000-01-01T00:00:00Z")?.iso8601, "0000-01-01T00:00:00Z")
        XCTAssertEqual(Timestamp(iso8601: "0000-01-01T01:00:00+01:00")?.iso8601, "0000-01-01T00:00:00Z")
        XCTAssertEqual(Timestamp(iso8601: "9999-12-31T23:59:59.999999999Z")?.iso8601, "9999-12-31T23:59:59.999999999Z")
        XCTAssertEqual(Timestamp(iso8601: "9999-12-31T22:59:59-01:00")?.iso8601, "9999-12-31T23:59:59Z")
    }

    /// A damaged store's timestamp may be anything: writing it never traps.
    func test_iso8601_ofTheFarthestSeconds_doesNotTrap() {
        for seconds in [Int64.min, Int64.min + 1, Int64.min + 86_399, Int64.max] {
            let t = Timestamp(seconds: seconds)
            var bytes: [UInt8] = []
            t.appendISO8601(to: &bytes)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), t.iso8601)
            XCTAssertTrue(t.iso8601.hasSuffix("Z"), t.iso8601)
        }
        XCTAssertEqual(Timestamp(seconds: -1).iso8601, "1969-12-31T23:59:59Z")
        XCTAssertEqual(Timestamp(seconds: -86_400).iso8601, "1969-12-31T00:00:00Z")
        XCTAssertEqual(Timestamp(seconds: -86_401).iso8601, "1969-12-30T23:59:59Z")
    }

    func test_comparison_ordersBySecondsThenNanoseconds() {
        XCTAssertLessThan(Timestamp(seconds: 1, nanoseconds: 999_999_999), Timestamp(seconds: 2))
        XCTAssertLessThan(Timestamp(seconds: 2, nanoseconds: 1), Timestamp(seconds: 2, nanoseconds: 2))
        XCTAssertLessThan(Timestamp(seconds: -2), Timestamp(seconds: -1))
        XCTAssertFalse(Timestamp(seconds: 2) < Timestamp(seconds: 2))
    }

    func test_appendISO8601_writesTheSameBytesAsTheString() {
        for text in ["2020-05-20T11:24:59Z", "1970-01-01T00:00:00Z", "2020-05-20T11:24:59.25Z", "2020-05-20T11:24:59.000000001Z",
                     "1969-12-31T23:59:59.5Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "2020-02-29T12:00:00+14:00"] {
            let timestamp = Timestamp(iso8601: text)!
            var bytes: [UInt8] = []
            timestamp.appendISO8601(to: &bytes)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), timestamp.iso8601, text)
            XCTAssertEqual(Timestamp(iso8601Bytes: Array(text.utf8)), timestamp, text)
        }
    }
}
