import Foundation
import XCTest

/// feed-view's HTML and Atom formats and `feed-cache load --images`: golden
/// pages and feeds of the demo feed in three languages, a real feed reader's
/// parser (Python's feedparser) and xmllint on the Atom documents, hostile
/// text, and the states of the case study (error, empty). The pages in a
/// real browser: FeedPageBrowserTests.
///
/// The goldens are in Golden/; `FEED_UPDATE_GOLDEN=1` writes them anew.
final class FeedViewFormatTests: XCTestCase {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Golden"
    let env = ["LANG": "en_US.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "NO_COLOR": "1"]
    let locales = [("en", "en_US.UTF-8"), ("pt-BR", "pt_BR.UTF-8"), ("el", "el_GR.UTF-8")]
    /// The demo feed as `feed-cache load --images --cached-at` wrote it (one
    /// image, the fifth, without data).
    var demoFeed: String { try! String(contentsOfFile: Self.golden + "/demo-feed.ndjson", encoding: .utf8) }
    var demoComments: String { try! String(contentsOfFile: Self.golden + "/demo-comments.ndjson", encoding: .utf8) }

    private func assertGolden(_ text: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        let path = Self.golden + "/" + name
        if ProcessInfo.processInfo.environment["FEED_UPDATE_GOLDEN"] == "1" {
            try! text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let expected = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "(no golden \(name))"
        XCTAssertEqual(text, expected, name, file: file, line: line)
    }

    private func view(_ options: String, _ input: String, language: String) -> Run {
        var environment = env
        environment["LANG"] = language
        return sh("feed-view \(options)", stdin: input, environment: environment)
    }

    // MARK: Goldens

    func test_html_ofTheDemoFeedAndItsComments_matchesItsGolden_inEnglishPortugueseAndGreek() {
        for (tag, language) in locales {
            let page = view("--format html --now 2020-05-21T00:00:00Z", demoFeed, language: language)
            XCTAssertEqual(page.status, 0, page.stderr)
            assertGolden(page.out, "demo-feed.\(tag).html")
            let comments = view("--format html --now 2020-05-21T00:00:00Z", demoComments, language: language)
            XCTAssertEqual(comments.status, 0, comments.stderr)
            assertGolden(comments.out, "demo-comments.\(tag).html")
        }
    }

    func test_atom_ofTheDemoFeedAndItsComments_matchesItsGolden_inEnglishPortugueseAndGreek() {
        for (tag, language) in locales {
            let feed = view("--format atom --self https://feed.example/feed.atom --now 2020-05-21T00:00:00Z", demoFeed, language: language)
            XCTAssertEqual(feed.status, 0, feed.stderr)
            assertGolden(feed.out, "demo-feed.\(tag).atom")
            let comments = view("--format atom --now 2020-05-21T00:00:00Z", demoComments, language: language)
            XCTAssertEqual(comments.status, 0, comments.stderr)
            assertGolden(comments.out, "demo-comments.\(tag).atom")
        }
    }

    // MARK: The page's states and limits

    func test_html_ofAnErrorRecord_isTheLocalizedConnectionErrorPage_withItsStatus() {
        let run = view("--format html", #"{"error":"connectivity","message":"refused"}"# + "\n", language: "pt_BR.UTF-8")
        XCTAssertEqual(run.status, 69)
        XCTAssertTrue(run.out.contains(#"<p class="error" role="alert">Não foi possível conectar com o servidor</p>"#), run.out)
        XCTAssertTrue(run.out.contains("<title>Meu Feed</title>"), run.out)
        XCTAssertTrue(run.out.hasSuffix("</main>\n</body>\n</html>\n"), run.out)
        XCTAssertFalse(run.out.contains("refused"), "the message is for standard error upstream")
    }

    func test_html_ofNoRecords_isAnEmptyFeedUnderItsTitle_notABlankPage() {
        let run = view("--format html", "", language: "el_GR.UTF-8")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.out.hasPrefix("<!DOCTYPE html>\n<html lang=\"el\" dir=\"ltr\">"), run.out)
        XCTAssertTrue(run.out.contains("<h1>Το Feed μου</h1>\n<ol class=\"feed\"></ol>\n</main>"), run.out)
    }

    /// Records with `cached_at` (feed-cache load --cached-at): the page says
    /// under its title when the feed was last refreshed, in its language.
    func test_html_ofCachedImages_saysWhenTheCacheWasRefreshed_localized() {
        let record = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"https://h/a.png","cached_at":"2026-11-25T10:00:00Z"}"# + "\n"
        let run = view("--format html --now 2026-11-27T10:00:00Z", record, language: "pt_BR.UTF-8")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.out.contains("<h1>Meu Feed</h1>\n<p class=\"refreshed\"><time datetime=\"2026-11-25T10:00:00Z\">\u{21BB} há 2 dias</time></p>\n<ol"), run.out)
        let without = view("--format html", record.replacingOccurrences(of: #","cached_at":"2026-11-25T10:00:00Z""#, with: ""), language: "en_US.UTF-8")
        XCTAssertFalse(without.out.contains("refreshed\""), without.out)
    }

    func test_html_inArabic_isRightToLeft() {
        let run = view("--format html", "", language: "ar_EG.UTF-8")
        XCTAssertTrue(run.out.contains(#"<html lang="ar" dir="rtl">"#), run.out)
    }

    /// A record's text is in its own language, not the page's: on an
    /// Arabic page an English comment keeps its direction (its "!" at its
    /// end, by the bidirectional algorithm: found by the hunt).
    func test_html_recordsText_takesItsDirectionFromItself() {
        let comment = #"{"id":"A9496121-E218-466E-9685-E7A6C8DA9AD4","message":"Great photo!","created_at":"2026-11-20T10:00:00Z","username":"ann"}"#
        let html = view("--format html --now 2026-11-20T12:00:00Z", comment + "\n", language: "ar_EG.UTF-8")
        XCTAssertTrue(html.out.contains(#"<p class="message" dir="auto">Great photo!</p>"#), html.out)
        let images = #"{"id":"A9496121-E218-466E-9685-E7A6C8DA9AD4","description":"A harbour","location":"Sydney","url":"http://x/a.png"}"#
            + "\n" + #"{"id":"B9496121-E218-466E-9685-E7A6C8DA9AD4","url":"http://x/b.png"}"# + "\n"
        let page = view("--format html", images, language: "ar_EG.UTF-8")
        XCTAssertTrue(page.out.contains(#"<p class="location" dir="auto">Sydney</p>"#), page.out)
        XCTAssertTrue(page.out.contains(#"<p class="description" dir="auto">A harbour</p>"#), page.out)
    }

    func test_html_showsDataOverTheInlineLimit_orNotAnImage_fromItsURL() {
        let record = demoFeed.split(separator: "\n")[0] + "\n"
        let inline = view("--format html", String(record), language: "C")
        XCTAssertTrue(inline.out.contains(#"<div class="frame"><img src="data:image/png;base64,"#), inline.out)
        XCTAssertTrue(inline.out.contains(#"width="12" height="12" alt="Sunrise over the harbour, the first ferries already crossing."></div>"#), inline.out)
        for options in ["--format html --inline-limit 100", "--format html --inline-limit 0"] {
            let run = view(options, String(record), language: "C")
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertTrue(run.out.contains(#"<div class="frame placeholder"><img src="http://127.0.0.1:8080/image-0.png" alt="Sunrise over the harbour, the first ferries already crossing." loading="lazy" decoding="async"></div>"#), run.out)
            XCTAssertFalse(run.out.contains("src=\"data:"), options)
        }
        let notAnImage = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"https://h/a.png","image_data_base64":"aGVsbG8="}"# + "\n"
        XCTAssertTrue(view("--format html", notAnImage, language: "C").out.contains(#"<img src="https://h/a.png" alt="Image" loading="lazy""#))
        // Only http and https URLs are ever loaded; anything else keeps its placeholder.
        let otherScheme = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"javascript:alert(1)"}"# + "\n"
        let run = view("--format html", otherScheme, language: "C")
        XCTAssertTrue(run.out.contains(#"<div class="frame placeholder" role="img" aria-label="Image"></div>"#), run.out)
        XCTAssertFalse(run.out.contains("javascript"), run.out)
    }

    /// A password in a URL is never written, and the URL is not loaded or
    /// linked: with the password shown as ***, a browser or a feed reader
    /// asked for the image with *** as the password (found by the hunt).
    func test_html_andAtom_neverShowAPasswordInAURL_norLoadOrLinkTheURL() {
        for url in ["https://ann:s3cret@h/a.png", "http://ann:s3cret@h:8080/a.png"] {
            let record = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"\#(url)"}"# + "\n"
            for format in ["html", "atom"] {
                let run = view("--format \(format)", record, language: "C")
                XCTAssertEqual(run.status, 0, run.stderr)
                XCTAssertFalse(run.out.contains("s3cret"), format)
                XCTAssertFalse(run.out.contains("***"), run.out)
                XCTAssertFalse(run.out.contains("src="), run.out)
                XCTAssertFalse(run.out.contains("href=\"https://"), run.out)
            }
            XCTAssertTrue(view("--format html", record, language: "C").out.contains(#"<div class="frame placeholder" role="img" aria-label="Image"></div>"#))
        }
        // Nor as an entry's id: two images whose URLs differ in their
        // password had one id (their URL, shown as ***), so a reader kept one.
        let two = #"{"id":"x","url":"http://u:pw1@ex.com/a.png"}"# + "\n" + #"{"id":"y","url":"http://u:pw2@ex.com/a.png"}"# + "\n"
        let ids = view("--format atom", two, language: "C").out.components(separatedBy: "\n").filter { $0.hasPrefix("<id>tag:essential-feed,2026:entry:") }
        XCTAssertEqual(Set(ids).count, 2, "\(ids)")
        // The same id from release to release (a reader keeps an entry by it).
        let one = #"{"id":"x","url":"http://u:pw1@ex.com/a.png","description":"d"}"# + "\n"
        XCTAssertTrue(view("--format atom", one, language: "C").out.contains("<id>tag:essential-feed,2026:entry:39512ffe9af6251f</id>"))
        // Nor when their ids are numbers: they were left out of it.
        // Nor one a number, the other that number as a string.
        let numbered = [#"{"id":1,"url":"http://u:pw@ex.com/a.png"}"#, #"{"id":2,"url":"http://u:pw@ex.com/a.png"}"#, #"{"id":"1","url":"http://u:pw@ex.com/a.png"}"#]
        let numberedIDs = view("--format atom", numbered.joined(separator: "\n") + "\n", language: "C").out.components(separatedBy: "\n").filter { $0.hasPrefix("<id>tag:essential-feed,2026:entry:") }
        XCTAssertEqual(Set(numberedIDs).count, 3, "\(numberedIDs)")
    }

    /// Every entry has one id (RFC 4287, 4.1.2), however the record came: a
    /// comment without one had none, and images without a UUID or a web URL
    /// all had the feed's own. One made of what the entry shows, the same on
    /// every run. The feed's date is the latest of its entries' (an entry
    /// without a date has --now's; the feed's was older than it).
    /// Entries that cannot be held (the temporary folder full, or past
    /// `ulimit -f`): no document, the error said once, status 74 (the head
    /// and tail were written with no entry between them, not well-formed,
    /// and the error said twice: found by the hunt).
    func test_atom_whoseEntriesCannotBeHeld_writesNoDocument_andSaysSoOnce() throws {
        let dir = temporaryDirectory(self)
        // Entries of many spills, and of one (its failure found only when it is read).
        for count in [8000, 1300] {
            let records = (0..<count).map { #"{"id":"\#(UUID().uuidString)","description":"\#(String(repeating: "x", count: 200))","url":"http://h/\#($0).png"}"# }
            try (records.joined(separator: "\n") + "\n").write(toFile: dir + "/in", atomically: false, encoding: .utf8)
            let run = sh(#"ulimit -f 64; feed-view --format atom < "$D/in""#, environment: ["D": dir, "TMPDIR": dir])
            XCTAssertEqual(run.status, 74, run.stderr)
            XCTAssertEqual(run.out, "", "\(count)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
            XCTAssertTrue(run.stderr.hasPrefix("feed-view: cannot write a temporary file: "), run.stderr)
        }
    }

    func test_atom_everyEntryHasAnId_andTheFeedsDateIsTheLatestOfItsEntries() throws {
        let input = #"{"message":"no id","username":"ann","created_at":"2020-01-01T00:00:00Z"}"# + "\n"
            + #"{"id":"c-42","message":"no date","username":"bob"}"# + "\n"
            + #"{"id":"img-1","url":"ftp://h/a.png","description":"one"}"# + "\n"
            + #"{"id":"img-2","url":"ftp://h/b.png","description":"two"}"# + "\n"
        let run = view("--format atom --now 2020-05-21T00:00:00Z", input, language: "C")
        XCTAssertEqual(run.status, 0, run.stderr)
        try xmllint(run.out)
        let ids = run.out.components(separatedBy: "\n").filter { $0.hasPrefix("<id>") }.dropFirst()
        XCTAssertEqual(ids.count, 4, run.out)
        XCTAssertEqual(Set(ids).count, 4, run.out)
        XCTAssertTrue(ids.allSatisfy { $0.hasPrefix("<id>tag:essential-feed,2026:entry:") }, run.out)
        XCTAssertEqual(view("--format atom --now 2020-05-21T00:00:00Z", input, language: "C").out, run.out, "the same ids on every run")
        let feed = try feedparser(run.out)
        XCTAssertEqual(feed["bozo"] as? Int, 0, feed["error"] as? String ?? "")
        XCTAssertEqual(feed["updated"] as? String, "2020-05-21T00:00:00Z", "the undated entry's, --now")
    }

    func test_formats_refuseTheOtherFormatsOptions_andBadValues() {
        let cases = [
            ("--format pdf", "feed-view: --format takes text, html or atom"),
            ("--format html --width 40", "feed-view: --width goes with --format text only"),
            ("--format atom --color never", "feed-view: --color goes with --format text only"),
            ("--inline-limit 10", "feed-view: --inline-limit goes with --format html only"),
            ("--format html --self https://h/f.atom", "feed-view: --self goes with --format atom only"),
            ("--format text --author ann", "feed-view: --author goes with --format atom only"),
            ("--format html --inline-limit -1", "feed-view: --inline-limit takes a whole number from 0 to 1073741824, not '-1'"),
            ("--format atom --self feed.atom", "feed-view: --self takes an absolute URL, not 'feed.atom'"),
        ]
        for (options, message) in cases {
            let run = sh("feed-view \(options) < /dev/null", environment: env)
            XCTAssertEqual(run.status, 64, options)
            XCTAssertEqual(run.stderr.split(separator: "\n").first.map(String.init), message, options)
            XCTAssertEqual(run.out, "", options)
        }
    }

    // MARK: Atom, as a feed reader reads it

    /// What Python's feedparser (a real feed reader's parser) makes of `document`.
    private func feedparser(_ document: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        // Debian's python3-feedparser is for Debian's python3, whatever else is on PATH.
        guard let python = ["/usr/bin/python3", "python3"].first(where: { sh("\($0) -c 'import feedparser'").status == 0 }) else {
            throw XCTSkip("needs Python's feedparser (Debian: python3-feedparser; scripts/test installs it as root)")
        }
        let script = """
        import feedparser, json, sys
        d = feedparser.parse(sys.stdin.buffer.read())
        print(json.dumps({"version": d.version, "bozo": d.bozo, "error": str(d.get("bozo_exception", "")),
            "title": d.feed.get("title"), "id": d.feed.get("id"), "updated": d.feed.get("updated"),
            "language": d.feed.get("language"), "author": d.feed.get("author"),
            "self": [l.href for l in d.feed.get("links", []) if l.rel == "self"],
            "entries": [{"id": e.get("id"), "title": e.get("title"), "updated": e.get("updated"), "summary": e.get("summary"),
                         "author": e.get("author"), "content": [c.value for c in e.get("content", [])],
                         "enclosures": [[n.get("href", ""), n.get("type", ""), n.get("length", "")] for n in e.get("enclosures", [])],
                         "links": [[l.rel, l.href, l.get("type", "")] for l in e.get("links", [])]} for e in d.entries]}))
        """
        let run = sh("\(python) -c \(quoted(script))", stdin: document)
        XCTAssertEqual(run.status, 0, run.stderr, file: file, line: line)
        return try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any] ?? [:]
    }

    private func xmllint(_ document: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint") else {
            throw XCTSkip("needs xmllint (Debian: libxml2-utils; scripts/test installs it as root)")
        }
        let run = sh("xmllint --noout -", stdin: document)
        XCTAssertEqual(run.status, 0, "xmllint: " + run.stderr, file: file, line: line)
        XCTAssertEqual(run.stderr, "", file: file, line: line)
    }

    func test_atom_ofTheDemoFeed_isReadByAFeedReadersParserAsAtom10_withEveryEntry() throws {
        let run = view("--format atom --self https://feed.example/feed.atom --author ann --now 2026-01-01T00:00:00Z", demoFeed, language: "pt_BR.UTF-8")
        XCTAssertEqual(run.status, 0, run.stderr)
        try xmllint(run.out)
        let feed = try feedparser(run.out)
        XCTAssertEqual(feed["version"] as? String, "atom10")
        XCTAssertEqual(feed["bozo"] as? Int, 0, feed["error"] as? String ?? "")
        XCTAssertEqual(feed["title"] as? String, "Meu Feed")
        XCTAssertEqual(feed["id"] as? String, "https://feed.example/feed.atom")
        XCTAssertEqual(feed["self"] as? [String], ["https://feed.example/feed.atom"])
        XCTAssertEqual(feed["language"] as? String, "pt-BR")
        XCTAssertEqual(feed["author"] as? String, "ann")
        XCTAssertEqual(feed["updated"] as? String, "2020-05-20T12:00:00Z", "the cache's date, not now")
        let entries = feed["entries"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.count, 12)
        let records = demoFeed.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertEqual(entries.map { $0["id"] as? String }, records.map { "urn:uuid:" + ($0["id"] as! String).lowercased() })
        for (entry, record) in zip(entries, records) {
            let url = record["url"] as! String
            let links = entry["links"] as? [[String]] ?? []
            XCTAssertEqual(links.first?.prefix(2), ["alternate", url])
            XCTAssertEqual(links.last?.prefix(2), ["enclosure", url])
            XCTAssertEqual(entry["updated"] as? String, "2020-05-20T12:00:00Z")
            XCTAssertEqual(entry["title"] as? String, (record["description"] ?? record["location"] ?? "Imagem") as? String)
        }
        XCTAssertEqual((entries[0]["links"] as? [[String]])?.last?.last, "image/png", "the type of the data cached")
        XCTAssertEqual(entries[0]["summary"] as? String, "Sunrise over the harbour, the first ferries already crossing.\nSydney Harbour\nNew South Wales, Australia")
    }

    func test_atom_ofComments_isReadAsAtom10_anEntryPerCommentByItsAuthor() throws {
        let run = view("--format atom --now 2026-01-01T00:00:00Z", demoComments, language: "en_US.UTF-8")
        try xmllint(run.out)
        let feed = try feedparser(run.out)
        XCTAssertEqual(feed["version"] as? String, "atom10")
        XCTAssertEqual(feed["bozo"] as? Int, 0, feed["error"] as? String ?? "")
        XCTAssertEqual(feed["title"] as? String, "Comments")
        XCTAssertEqual(feed["updated"] as? String, "2020-05-20T11:24:59Z", "the latest comment's date")
        let entries = feed["entries"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.map { $0["author"] as? String }, ["ana", "bruno", "chen.li"])
        XCTAssertEqual(entries.first?["content"] as? [String], ["What a view! Which ferry is that?"])
        XCTAssertEqual(entries.first?["id"] as? String, "urn:uuid:7dcc550b-835d-46de-aa14-c5ede102f183")
    }

    func test_atom_ofHostileText_isWellFormed_andReadBackAsTheSameText_lessWhatXMLForbids() throws {
        let controls = "a\u{0}b\u{1}c\u{8}d\u{B}e\u{C}f\u{1B}[31mg\u{7F}h\u{85}i"
        let input = HostileRecords.lines + #"{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","description":"\#(controls.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? String(format: "\\u%04x", $0.value) : String($0) }.joined())","url":"http://h/b"}"# + "\n"
        let run = view("--format atom", input, language: "C")
        XCTAssertEqual(run.status, 0, run.stderr)
        try xmllint(run.out)
        let feed = try feedparser(run.out)
        XCTAssertEqual(feed["bozo"] as? Int, 0, feed["error"] as? String ?? "")
        let entries = feed["entries"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.count, 3)
        XCTAssertEqual(entries[0]["title"] as? String, HostileRecords.text)
        XCTAssertEqual((entries[0]["links"] as? [[String]])?.first?[1], HostileRecords.iri, "an IRI, as RFC 4287 asks")
        XCTAssertEqual(entries[1]["author"] as? String, HostileRecords.text)
        XCTAssertEqual(entries[1]["content"] as? [String], [HostileRecords.text])
        XCTAssertEqual(entries[2]["title"] as? String, "abcdef[31mghi")
    }

    /// An input that is only an error record gives no document (a valid
    /// empty feed would tell every reader the feed is empty): the error on
    /// standard error, its status; with entries beside it, the document.
    func test_atom_ofAnErrorRecordAlone_writesNoDocument_andGivesItsStatus() throws {
        let run = view("--format atom --now 2026-01-01T00:00:00Z", #"{"error":"not_found","message":"nothing cached"}"# + "\n", language: "C")
        XCTAssertEqual(run.status, 66)
        XCTAssertEqual(run.out, "")
        XCTAssertEqual(run.stderr, "feed-view: no feed written: the input held only errors: nothing cached\n")

        let mixed = view("--format atom --now 2026-01-01T00:00:00Z", #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://h/a.png"}"# + "\n"
                         + #"{"error":"connectivity","message":"refused"}"# + "\n", language: "C")
        XCTAssertEqual(mixed.status, 69)
        try xmllint(mixed.out)
        XCTAssertEqual(mixed.out.components(separatedBy: "<entry>").count, 2, mixed.out)

        // Lines that are no records, or records of no kind it shows, are errors too (a valid empty feed was written, with 65).
        for (input, reason) in [("garbage\n", "stdin:1: invalid JSON at byte 1: unexpected character 'g'"),
                                (#"{"x":1}"# + "\n", "stdin:1: not a feed image, image comment or error record")] {
            let invalid = view("--format atom --now 2026-01-01T00:00:00Z", input, language: "C")
            XCTAssertEqual(invalid.status, 65)
            XCTAssertEqual(invalid.out, "", "no document")
            XCTAssertEqual(invalid.stderr, "feed-view: \(reason)\nfeed-view: no feed written: the input held only errors: \(reason)\n")
        }
    }

    /// Links and content to http and https only: a javascript:, data: or
    /// vbscript: URL is left out, and the entry keeps its text.
    func test_atom_linksOnlyHTTPAndHTTPS() throws {
        var input = ""
        for (i, url) in ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "vbscript:msgbox", "JavaScript:x", "https://h/ok.png"].enumerated() {
            input += #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB08\#(i)","description":"d\#(i)","url":"\#(url)"}"# + "\n"
        }
        let run = view("--format atom", input, language: "C")
        XCTAssertEqual(run.status, 0, run.stderr)
        try xmllint(run.out)
        for scheme in ["javascript", "JavaScript", "data:", "vbscript"] { XCTAssertFalse(run.out.contains(scheme), run.out) }
        XCTAssertEqual(run.out.components(separatedBy: "<link rel=\"enclosure\"").count, 2, run.out)
        XCTAssertEqual(run.out.components(separatedBy: "<title>d").count, 6, "every entry keeps its text")
        // With no link and no text, an entry still has content, as RFC 4287 requires (it had neither).
        let bare = view("--format atom", #"{"id":"3F2504E0-4F89-11D3-9A0C-0305E82C3301","url":"ftp://x/a.png"}"# + "\n", language: "C")
        XCTAssertEqual(bare.status, 0, bare.stderr)
        try xmllint(bare.out)
        XCTAssertTrue(bare.out.contains("<content type=\"text\">Image</content>"), bare.out)
    }

    /// What a feed reader makes of an entry: feedparser (Debian's) reads the
    /// enclosure's type (from the data's header, else the URL's extension)
    /// and length (with the data), and the image in the content.
    func test_atom_enclosures_haveTypeAndLength_andTheContentHoldsTheImage() throws {
        let png = Array(Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!)
        let input = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"with data","url":"http://h/a","image_data_base64":"\#(Data(png).base64EncodedString())"}"# + "\n"
            + #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB087","description":"by name","url":"http://h/b.JPG"}"# + "\n"
        let run = view("--format atom", input, language: "C")
        XCTAssertEqual(run.status, 0, run.stderr)
        let feed = try feedparser(run.out)
        let entries = feed["entries"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.count, 2)
        XCTAssertEqual(entries.first?["enclosures"] as? [[String]], [["http://h/a", "image/png", "\(png.count)"]])
        XCTAssertEqual(entries.last?["enclosures"] as? [[String]], [["http://h/b.JPG", "image/jpeg", ""]])
        XCTAssertTrue((entries.first?["content"] as? [String])?.first?.contains(#"src="http://h/a""#) == true, "\(entries)")
    }

    // MARK: feed-sync --html, the page after each run

    func test_feedSync_html_writesThePageWithItsImagesAfterEachRun_replacingItWhole() throws {
        let server = try Served(["--builtin", "demo"], test: self)
        let directory = temporaryDirectory(self)
        let page = directory + "/www/feed.html"
        try FileManager.default.createDirectory(atPath: directory + "/www", withIntermediateDirectories: true)
        let environment = ["FEED_BASE_URL": server.base, "FEED_STORE": directory + "/feed.sqlite", "S": AcceptanceTests.scripts,
                           "P": page, "LANG": "pt_BR.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""]
        let first = sh(#""$S/feed-sync" --limit 5 --html "$P""#, environment: environment)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(first.out + first.stderr, "", "silent on success")
        var text = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertEqual(text.components(separatedBy: #"<img src="data:image/png;base64,"#).count - 1, 5)
        XCTAssertTrue(text.contains("<title>Meu Feed</title>"))
        XCTAssertTrue(text.contains("<h1>Meu Feed</h1>\n<p class=\"refreshed\"><time datetime=\""), "when the cache was refreshed")
        let mode = (try FileManager.default.attributesOfItem(atPath: page)[.posixPermissions] as? Int) ?? 0
        XCTAssertEqual(mode, 0o644, "a page to publish")

        let all = sh(#""$S/feed-sync" --all --limit 5 --html="$P""#, environment: environment)
        XCTAssertEqual(all.status, 0, all.stderr)
        text = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertEqual(text.components(separatedBy: #"<img src="data:image/png;base64,"#).count - 1, 12)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory + "/www"), ["feed.html"], "nothing left beside it")

        // A refresh that fails leaves the last page as it was.
        let expired = sh(#""$S/feed-sync" --base-url http://127.0.0.1:9 --retry 0 --html "$P" --now 2099-01-01T00:00:00Z"#, environment: environment)
        XCTAssertNotEqual(expired.status, 0)
        XCTAssertTrue(try String(contentsOfFile: page, encoding: .utf8).contains("<img src=\"data:"), "a failed refresh leaves the last page")

        for (options, message) in [("--html", "feed-sync: option '--html' needs a value"), ("--html=", "feed-sync: --html takes a file name"),
                                   ("--html /nonexistent/dir/feed.html", "feed-sync: --html: no directory '/nonexistent/dir' for '/nonexistent/dir/feed.html'")] {
            let run = sh(#""$S/feed-sync" "# + options, environment: environment)
            XCTAssertEqual(run.status, 64, options)
            XCTAssertEqual(run.stderr.split(separator: "\n").first.map(String.init), message)
        }
    }

    /// `feed-sync --atom FILE`: written whole after each run (mode 644),
    /// read from nginx by feedparser (the enclosure's type and length) and
    /// by newsboat (Debian's: every entry, the image in its content;
    /// newsboat 2.21 keeps only audio and video enclosures, by design); a
    /// run with no feed to write leaves the last one.
    func test_feedSync_atom_isPublishedWhole_andReadFromNginxByFeedparserAndNewsboat() throws {
        let server = try Served(["--builtin", "demo"], test: self)
        let nginx = try Nginx(test: self)
        let file = nginx.root + "/feed.atom"
        let environment = ["FEED_BASE_URL": server.base, "FEED_STORE": temporaryDirectory(self) + "/feed.sqlite", "S": AcceptanceTests.scripts,
                           "F": file, "LANG": "en_US.UTF-8", "LC_ALL": "", "XDG_CACHE_HOME": temporaryDirectory(self)]
        let run = sh(#""$S/feed-sync" --limit 4 --atom "$F" --now 2026-01-01T00:00:00Z"#, environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) ?? 0, 0o644)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: nginx.root), ["feed.atom"], "nothing left beside it")
        let published = try String(contentsOfFile: file, encoding: .utf8)

        let python = ["/usr/bin/python3", "python3"].first(where: { sh("\($0) -c 'import feedparser'").status == 0 })
        if let python {
            let script = """
            import feedparser, sys
            d = feedparser.parse(sys.argv[1])
            for e in d.entries: print(e.enclosures[0].type, e.enclosures[0].length, 'img' if '<img' in e.content[0].value else '-')
            """
            let read = sh("\(python) -c \(quoted(script)) \(nginx.base)/feed.atom")
            XCTAssertEqual(read.out, String(repeating: "image/png 512 img\n", count: 4), read.stderr)
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/newsboat") {
            let home = temporaryDirectory(self)
            try "\(nginx.base)/feed.atom\n".write(toFile: home + "/urls", atomically: true, encoding: .utf8)
            let reload = sh(#"HOME="$H" newsboat -u "$H/urls" -c "$H/cache.db" -C /dev/null -x reload"#, environment: ["H": home], timeout: 30)
            XCTAssertEqual(reload.status, 0, reload.stderr)
            let query = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(*c.execute(\"select count(*), sum(content like '%<img src=\\\"http://%') from rss_item\").fetchone())"
            let items = sh("/usr/bin/python3 -c \(quoted(query)) \(quoted(home + "/cache.db"))")
            XCTAssertEqual(items.out, "4 4\n", items.stderr)
        }
        // The next run (half an hour later, nothing new): every entry keeps
        // its date, and so does the feed, so readers see nothing change.
        let next = sh(#""$S/feed-sync" --limit 4 --atom "$F" --now 2026-01-01T00:30:00Z && feed-cache load --now 2026-01-01T00:31:00Z | wc -l"#, environment: environment)
        XCTAssertEqual(next.out, "4\n", next.stderr)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), published, "the same document")
        if let python {
            let script = "import feedparser, sys; d = feedparser.parse(sys.argv[1]); print(d.feed.updated, *[e.updated for e in d.entries])"
            let read = sh("\(python) -c \(quoted(script)) \(nginx.base)/feed.atom")
            XCTAssertEqual(read.out, Array(repeating: "2026-01-01T00:00:00Z", count: 5).joined(separator: " ") + "\n", read.stderr)
        }
        // No feed to write (the cache expired): the last one stays.
        let expired = sh(#""$S/feed-sync" --base-url http://127.0.0.1:9 --retry 0 --atom "$F" --now 2099-01-01T00:00:00Z"#, environment: environment)
        XCTAssertNotEqual(expired.status, 0)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), published)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: nginx.root), ["feed.atom"])
    }

    // MARK: feed-cache load --images, the page's source

    func test_loadImages_addsEachImagesDataAndTheCacheDate_inEveryFileStore() throws {
        let server = try Served(["--builtin", "demo"], test: self)
        let directory = temporaryDirectory(self)
        for store in ["feed.sqlite", "feed.json"] {
            let environment = ["FEED_BASE_URL": server.base, "FEED_STORE": directory + "/" + store, "S": AcceptanceTests.scripts]
            let sync = sh(#""$S/feed-sync" --limit 5 --now 2020-05-20T12:00:00Z"#, environment: environment)
            XCTAssertEqual(sync.status, 0, sync.stderr)
            let plain = sh("feed-cache load --now 2020-05-21T00:00:00Z", environment: environment)
            let run = sh("feed-cache load --images --cached-at --now 2020-05-21T00:00:00Z", environment: environment)
            XCTAssertEqual(run.status, 0, run.stderr)
            let records = run.records()
            XCTAssertEqual(records.count, 5, store)
            XCTAssertEqual(plain.records().map { $0["id"] as? String }, records.map { $0["id"] as? String })
            for (record, line) in zip(records, run.lines) {
                let url = record["url"] as! String
                let image = sh("feed-cache image --output - \(quoted(url))", environment: environment)
                XCTAssertEqual(Data(base64Encoded: record["image_data_base64"] as? String ?? ""), image.stdout, url)
                XCTAssertEqual(record["cached_at"] as? String, "2020-05-20T12:00:00Z")
                XCTAssertEqual(record["first_cached_at"] as? String, "2020-05-20T12:00:00Z")
                XCTAssertTrue(line.hasSuffix(#"","first_cached_at":"2020-05-20T12:00:00Z","image_data_base64":"\#(record["image_data_base64"]!)","cached_at":"2020-05-20T12:00:00Z"}"#), line)
            }
            // The records stay feed image records: another cache takes them as they are.
            let again = sh("feed-cache load --images --now 2020-05-21T00:00:00Z | feed-cache --store \(quoted(directory + "/copy-" + store)) save && feed-cache --store \(quoted(directory + "/copy-" + store)) load --now 2020-05-21T00:00:00Z",
                           environment: environment)
            XCTAssertEqual(again.status, 0, again.stderr)
            XCTAssertEqual(again.out, plain.out)
            // A later sync: each image cached before keeps when it was first cached; a new one has the sync's time.
            let later = sh(#""$S/feed-sync" --limit 6 --now 2020-05-20T12:30:00.5Z && feed-cache load --cached-at --now 2020-05-21T00:00:00Z"#, environment: environment)
            XCTAssertEqual(later.status, 0, later.stderr)
            XCTAssertEqual(later.records().map { $0["first_cached_at"] as? String }, Array(repeating: "2020-05-20T12:00:00Z", count: 5) + ["2020-05-20T12:30:00Z"], store)
            XCTAssertEqual(Set(later.records().map { $0["cached_at"] as? String }), ["2020-05-20T12:30:00.5Z"], store)
        }
    }

    func test_loadImages_leavesOutTheDataOfAnImageNotCached_andOnlyLoadTakesIt() throws {
        let directory = temporaryDirectory(self)
        let environment = ["FEED_STORE": directory + "/feed.sqlite"]
        let feed = #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","url":"http://h/image-0"}"# + "\n"
        XCTAssertEqual(sh("feed-cache save", stdin: feed, environment: environment).status, 0)
        let run = sh("feed-cache load --images < /dev/null", environment: environment.merging(["FEED_LOG": "debug"]) { $1 })
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.out, feed)
        XCTAssertTrue(run.stderr.contains("feed-cache: image data miss: http://h/image-0\n"), run.stderr)
        for command in ["save", "validate", "info"] {
            let refused = sh("feed-cache \(command) --images < /dev/null", environment: environment)
            XCTAssertEqual(refused.status, 64)
            XCTAssertEqual(refused.stderr.split(separator: "\n").first.map(String.init), "feed-cache: --images goes with load only")
        }
        let empty = sh("feed-cache --store \(quoted(directory + "/none.sqlite")) load --images < /dev/null")
        XCTAssertEqual(empty.status, 66)
        XCTAssertEqual(empty.records().first?["error"] as? String, "not_found")
    }
}
