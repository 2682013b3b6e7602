import Foundation
import XCTest

/// feed-view golden tests: what a person sees.
final class FeedViewToolTests: XCTestCase {
    let feed = [
        #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"a description that is long enough to wrap at a narrow width","location":"a location","url":"http://h/image-0"}"#,
        #"{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","url":"http://h/image-1"}"#,
    ].joined(separator: "\n") + "\n"
    let comments = [
        #"{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"a message","created_at":"2020-05-19T11:24:59Z","username":"a username"}"#,
        #"{"id":"1F4A3E1B-22D7-4B8E-9A4C-1B2C3D4E5F60","message":"another message","created_at":"2020-05-20T11:19:59Z","username":"another username","relative_date":"just now-ish"}"#,
    ].joined(separator: "\n") + "\n"
    let env = ["LANG": "en_US.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "NO_COLOR": ""]

    func test_view_rendersAFeedPage() {
        let run = sh("feed-view --width 80", stdin: feed, environment: env)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.out, """
        My Feed

          a location
          a description that is long enough to wrap at a narrow width
          http://h/image-0

          http://h/image-1


        """)
    }

    /// On a terminal, the loading indicator turns ten times a second while
    /// the input is awaited (here 1.5 s: past libdispatch's one-second
    /// check, which a confined tool that drew it with a Dispatch timer once
    /// died of), drawn by a thread the confinement allows; it is erased
    /// before the feed is shown.
    func test_view_onATerminal_turnsTheIndicatorWhileTheInputIsAwaited_thenErasesIt() throws {
        guard sh("command -v script").status == 0 else { throw XCTSkip("script (util-linux) is not installed") }
        let directory = temporaryDirectory(self)
        try feed.write(toFile: directory + "/feed", atomically: false, encoding: .utf8)
        try #"(sleep 1.5; cat "$D/feed") | feed-view --width 80; echo "status $?""#.write(toFile: directory + "/run", atomically: false, encoding: .utf8)
        let run = sh(#"script -qec "sh \"$D/run\"" /dev/null"#, environment: env.merging(["D": directory, "NO_COLOR": "1"]) { $1 })
        let out = run.out.replacingOccurrences(of: "\r\n", with: "\n")
        XCTAssertTrue(out.hasSuffix("status 0\n"), out.debugDescription)
        let erased = try XCTUnwrap(out.range(of: "\r\u{1B}[K"), out.debugDescription)
        let turns = out[..<erased.lowerBound].components(separatedBy: "\r").filter { $0.hasSuffix("Loading…") }
        XCTAssertGreaterThanOrEqual(turns.count, 10, out.debugDescription)
        XCTAssertEqual(Set(turns.map { $0.prefix(1) }), ["|", "/", "-", "\\"], "it turns")
        XCTAssertTrue(out[erased.upperBound...].hasPrefix("My Feed"), out.debugDescription)
        XCTAssertFalse(out[erased.upperBound...].contains("Loading"), "nothing drawn after it is erased")
        // Each frame leaves the cursor at the line's start, for another tool's message to cover.
        XCTAssertEqual(out[..<erased.lowerBound].components(separatedBy: "Loading…").dropFirst().filter { !$0.hasPrefix("\r") }, [], out.debugDescription)
    }

    /// A URL whose password holds a tab or a line break: the text shows it
    /// as `***`, and neither the page nor the Atom feed writes or loads it
    /// (the text showed it whole, and the page loaded it: found by the hunt).
    func test_view_aPasswordHoldingAControlCharacter_isNeverShownNorLoaded() {
        for byte in ["\\t", "\\n"] {
            let record = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://u:sec"# + byte + #"ret@h/x.png"}"# + "\n"
            let text = sh("feed-view --width 80", stdin: record, environment: env)
            XCTAssertTrue(text.out.contains("http://u:***@h/x.png"), text.out)
            for format in ["html", "atom"] {
                let out = sh("feed-view --format \(format)", stdin: record, environment: env).out
                XCTAssertFalse(out.contains("ret@h"), "\(format): \(out)")
            }
        }
    }

    /// The terminal's width is the one it has when the records come: a
    /// terminal made narrower while the input was awaited got lines of its
    /// old width (found by the hunt).
    func test_view_onATerminalResizedWhileTheInputIsAwaited_wrapsToItsNewWidth() throws {
        guard sh("command -v script").status == 0 else { throw XCTSkip("script (util-linux) is not installed") }
        let directory = temporaryDirectory(self)
        try feed.write(toFile: directory + "/feed", atomically: false, encoding: .utf8)
        try #"stty cols 80; (sleep 0.4; stty cols 30; sleep 0.6; cat "$D/feed") | feed-view 2> /dev/null"#.write(toFile: directory + "/run", atomically: false, encoding: .utf8)
        let run = sh(#"script -qec "sh \"$D/run\"" /dev/null"#, environment: env.merging(["D": directory, "NO_COLOR": "1"]) { $1 })
        let lines = run.out.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
        XCTAssertTrue(lines.contains("  a description that is long"), run.out.debugDescription)
        XCTAssertEqual(lines.filter { $0.count > 30 && !$0.contains("http") }, [], run.out.debugDescription)
    }

    /// A job in the background draws nothing on the terminal (it drew over
    /// the user's command line, and erased what they typed: found by the
    /// hunt), and a dumb terminal gets neither the indicator nor colour.
    func test_view_inTheBackgroundOrOnADumbTerminal_drawsNoIndicator() throws {
        guard sh("command -v script").status == 0 else { throw XCTSkip("script (util-linux) is not installed") }
        let directory = temporaryDirectory(self)
        try feed.write(toFile: directory + "/feed", atomically: false, encoding: .utf8)
        try #"set -m; (sleep 1; cat "$D/feed") | feed-view --width 80 > /dev/null & wait; echo "status $?""#.write(toFile: directory + "/background", atomically: false, encoding: .utf8)
        let background = sh(#"script -qec "bash \"$D/background\"" /dev/null"#, environment: env.merging(["D": directory]) { $1 })
        XCTAssertTrue(background.out.hasSuffix("status 0\r\n"), background.out.debugDescription)
        XCTAssertFalse(background.out.contains("Loading"), background.out.debugDescription)
        try #"(sleep 1; cat "$D/feed") | feed-view --width 80; echo "status $?""#.write(toFile: directory + "/dumb", atomically: false, encoding: .utf8)
        let dumb = sh(#"script -qec "sh \"$D/dumb\"" /dev/null"#, environment: env.merging(["D": directory, "TERM": "dumb", "NO_COLOR": ""]) { $1 })
        XCTAssertTrue(dumb.out.hasSuffix("status 0\r\n"), dumb.out.debugDescription)
        XCTAssertFalse(dumb.out.contains("Loading") || dumb.out.contains("\u{1B}"), dumb.out.debugDescription)
        XCTAssertTrue(dumb.out.contains("My Feed"), dumb.out.debugDescription)
    }

    /// GNU gettext's LANGUAGE chooses the language, as in every gettext
    /// program, unless the locale is C.
    func test_view_speaksTheFirstTranslatedLanguageOfLANGUAGE() {
        let german = sh("feed-view < /dev/null", environment: ["LANG": "de_DE.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""])
        XCTAssertFalse(german.out.contains("My Feed"), german.out)
        let listed = sh("feed-view < /dev/null", environment: ["LANG": "ca_ES.UTF-8", "LANGUAGE": "ca:de:en", "LC_ALL": "", "LC_MESSAGES": ""])
        XCTAssertEqual(listed.out, german.out)
        let c = sh("feed-view < /dev/null", environment: ["LANG": "C", "LANGUAGE": "de", "LC_ALL": "", "LC_MESSAGES": ""])
        XCTAssertEqual(c.out, "My Feed\n\n")
    }

    func test_view_wrapsToANarrowWidth() {
        let run = sh("feed-view --width 30", stdin: feed, environment: env)
        XCTAssertEqual(run.out, """
        My Feed

          a location
          a description that is long
          enough to wrap at a narrow
          width
          http://h/image-0

          http://h/image-1


        """)
    }

    /// Lines are as wide as the terminal shows them: an ideograph, a kana,
    /// a Hangul syllable, a fullwidth form or an emoji takes two columns, a
    /// combining mark none. Counted as characters, a Japanese description
    /// ran to twice the width and the terminal broke every line again.
    func test_view_wrapsWideCharactersByTheColumnsTheyTake() {
        let description = "日本語の説明はとても長いので折り返されます 👍🏽👍🏽👍🏽 ｗｉｄｅ Cafe\u{301} naïve 한국어"
        let record = #"{"id":"A9496121-E218-466E-9685-E7A6C8DA9AD4","url":"http://x/a","description":"\#(description)"}"#
        let run = sh("feed-view --width 20", stdin: record + "\n", environment: env)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines, [
            "My Feed",
            "",
            "  日本語の説明はとて",
            "  も長いので折り返さ",
            "  れます 👍🏽👍🏽👍🏽",
            "  ｗｉｄｅ Cafe\u{301}",
            "  naïve 한국어",
            "  http://x/a",
            "",
        ])
    }

    /// One character wider than a line (Hangul jamo that join: one
    /// cluster) is a line of its own, with no empty line before it (found
    /// in review).
    func test_view_aCharacterWiderThanALine_isALineOfItsOwn() {
        let jamo = String(repeating: "\u{1100}", count: 10)
        let record = #"{"id":"A9496121-E218-466E-9685-E7A6C8DA9AD4","url":"http://x/a","description":"\#(jamo)"}"#
        let run = sh("feed-view --width 20", stdin: record + "\n", environment: env)
        XCTAssertEqual(run.lines, ["My Feed", "", "  " + jamo, "  http://x/a", ""])
    }

    /// A word longer than a line is cut into lines, each character counted
    /// once: a server's description of one 2 MB word took minutes (the
    /// rest of the word counted again at every line), and stalled feed-show.
    func test_view_cutsAWordOfMegabytesIntoLines_inTime() {
        let word = String(repeating: "x", count: 2_000_000)
        let record = #"{"id":"A9496121-E218-466E-9685-E7A6C8DA9AD4","url":"http://x/a","description":"\#(word)y"}"#
        let run = sh("feed-view --width 30 | sed -n '4p;$=' ", stdin: record + "\n", environment: env, timeout: 30)
        XCTAssertEqual(run.status, 0, run.stderr)
        // Lines of 28 characters (30, less the indent), the last one short.
        XCTAssertEqual(run.lines, ["  " + String(repeating: "x", count: 28), "\(2_000_001 / 28 + 1 + 4)"])
    }

    func test_view_rendersCommentsWithRelativeDates() {
        let run = sh("feed-view --now 2020-05-20T11:24:59Z", stdin: comments, environment: env)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.out, """
        Comments

          a username · 1 day ago
          a message

          another username · just now-ish
          another message


        """)
    }

    func test_view_rendersAnErrorAsTheLocalizedConnectionErrorWithItsStatus() {
        let error = #"{"error":"not_found","message":"nothing cached"}"# + "\n"
        let expected = [
            ("en_US.UTF-8", "My Feed\n\nCouldn't connect to server\n\n"),
            ("pt_BR.UTF-8", "Meu Feed\n\nNão foi possível conectar com o servidor\n\n"),
            ("el_GR.UTF-8", "Το Feed μου\n\nΔεν ήταν δυνατή η σύνδεση στο διακομιστή\n\n"),
        ]
        for (lang, text) in expected {
            var environment = env
            environment["LANG"] = lang
            let run = sh("feed-view", stdin: error, environment: environment)
            XCTAssertEqual(run.status, 66)
            XCTAssertEqual(run.out, text, lang)
        }
    }

    func test_view_coloursOnlyWhenAskedOrOnATerminalWithoutNO_COLOR() {
        let always = sh("feed-view --color always --width 80", stdin: feed, environment: env)
        XCTAssertTrue(always.out.hasPrefix("\u{1B}[1mMy Feed\u{1B}[0m\n"), always.out)
        XCTAssertFalse(always.out.contains("\u{1B}[4"), "no background colours")
        let piped = sh("feed-view", stdin: feed, environment: env)
        XCTAssertFalse(piped.out.contains("\u{1B}["))
        var noColor = env
        noColor["NO_COLOR"] = "1"
        let terminal = sh(#"script -qec "feed-view --width 80 < $F" /dev/null"#, environment: noColor.merging(["F": writeInput()]) { $1 })
        XCTAssertFalse(terminal.out.contains("\u{1B}[1m"), terminal.out)
        let colourTerminal = sh(#"script -qec "feed-view --width 80 < $F" /dev/null"#, environment: env.merging(["F": writeInput()]) { $1 })
        XCTAssertTrue(colourTerminal.out.contains("\u{1B}[1mMy Feed"), colourTerminal.out)
    }

    func test_view_showsALoadingIndicatorOnATerminalUntilContentArrives() {
        let run = sh(#"script -qec "sh -c 'sleep 0.6; cat \"$F\"' | feed-view --color never --width 80" /dev/null"#,
                     environment: env.merging(["F": writeInput()]) { $1 }, timeout: 20)
        let out = run.out
        guard let loading = out.range(of: "Loading…"), let erase = out.range(of: "\r\u{1B}[K"),
              let title = out.range(of: "My Feed") else {
            return XCTFail("expected indicator, erase and content: \(out.debugDescription)")
        }
        XCTAssertLessThan(loading.lowerBound, erase.lowerBound)
        XCTAssertLessThan(erase.lowerBound, title.lowerBound)
    }

    func test_view_titlesInTheLocaleWhateverItsCase_EnglishWithoutATranslation_andRefusesMalformedNames() {
        let cases = [("PT_br", "Meu Feed"), ("it_IT", "Il mio feed"), ("ja_JP.UTF-8", "マイフィード"), ("ru_RU", "Моя лента"), ("sq_AL", "My Feed")]
        for (name, title) in cases {
            let run = sh("feed-view", stdin: feed, environment: env.merging(["LANG": name, "LC_ALL": "", "LC_MESSAGES": ""]) { $1 })
            XCTAssertEqual(run.lines.first, title, name)
        }
        let malformed = sh("feed-view --locale '!!'", stdin: feed, environment: env)
        XCTAssertEqual(malformed.status, 64)
        XCTAssertTrue(malformed.stderr.hasPrefix("feed-view: --locale takes a locale name"), malformed.stderr)
    }

    func test_view_showsNoIndicatorWhenStandardErrorIsNotATerminal() {
        let run = sh("feed-view", stdin: feed, environment: env)
        XCTAssertEqual(run.stderr, "")
    }

    func test_view_reportsInvalidLinesOnStandardErrorOnly() {
        let run = sh("feed-view", stdin: "not json\n", environment: env)
        XCTAssertEqual(run.status, 65)
        XCTAssertEqual(run.out, "My Feed\n\n", "no JSON among the text")
        XCTAssertTrue(run.stderr.contains("feed-view: stdin:1: invalid JSON"), run.stderr)
    }

    func test_view_reportsRecordsItCannotShow() {
        let run = sh("feed-view", stdin: #"{"something":"else"}"# + "\n", environment: env)
        XCTAssertEqual(run.status, 65)
        XCTAssertTrue(run.stderr.contains("feed-view: stdin:1"), run.stderr)
    }

    private func writeInput() -> String {
        let path = temporaryDirectory(self) + "/feed.ndjson"
        try! feed.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

extension FeedViewToolTests {
    /// Records come from a server: their text never drives the terminal.
    /// Escape sequences, other controls and bidirectional overrides show as
    /// U+FFFD; line breaks stay line breaks only where text may wrap.
    func test_view_showsControlCharactersFromRecordsAsReplacementCharacters() {
        let hostile = [
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"a\u001b[2Jb\r\nc\u0007","location":"x\ny\u009b","url":"http://h/\u001b]0;t\u0007"}"#,
            #"{"id":"7019D8A7-0B35-4057-B7F9-8C5471961ED0","message":"m\u202Eevil\u0000","created_at":"2020-05-19T11:24:59Z","username":"u\tv\u001b[31m","relative_date":"d\u007f"}"#,
        ].joined(separator: "\n") + "\n"
        for color in ["never", "always"] {
            let run = sh("feed-view --width 80 --color \(color)", stdin: hostile, environment: env)
            XCTAssertEqual(run.status, 0, run.stderr)
            let plain = color == "always" ? run.out.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression) : run.out
            XCTAssertEqual(plain, """
            My Feed

              x y\u{FFFD}
              a\u{FFFD}[2Jb
              c\u{FFFD}
              http://h/\u{FFFD}]0;t\u{FFFD}

              u v\u{FFFD}[31m · d\u{FFFD}
              m\u{FFFD}evil\u{FFFD}


            """, color)
        }
    }

    func test_view_usageErrorsGoToStandardErrorOnly() {
        for args in ["--bogus", "--width", "--kind x", "extra"] {
            let run = sh("feed-view \(args) < /dev/null")
            XCTAssertEqual(run.status, 64, args)
            XCTAssertEqual(run.out, "", args)
        }
    }
}
