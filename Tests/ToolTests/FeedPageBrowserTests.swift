import Foundation
import XCTest

/// feed-view's HTML page as a person opens it: the demo feed synced from
/// feed-serve, loaded with its images from the cache and rendered, then
/// opened from a file in headless Chromium (see `Browser`). Screenshots in
/// light and dark go to `.build/screenshots/` (kept, not committed), with
/// both side by side in `feed-view-html.png`.
final class FeedPageBrowserTests: XCTestCase {
    static let screenshots = DocumentedRecipeTests.root.path + "/.build/screenshots"
    let env = ["LANG": "en_US.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "NO_COLOR": "1"]

    /// The demo feed, synced into a fresh cache; its page written to `page.html`.
    private func demoPage(_ directory: String, locale: String = "en_US.UTF-8") throws -> String {
        let server = try Served(["--builtin", "demo"], test: self)
        var environment = env
        environment["LANG"] = locale
        environment["FEED_BASE_URL"] = server.base
        environment["FEED_STORE"] = directory + "/feed.sqlite"
        environment["S"] = AcceptanceTests.scripts
        environment["D"] = directory
        let run = sh(#""$S/feed-sync" --all --limit 5 && feed-cache load --images | feed-view --format html --now 2020-05-21T00:00:00Z > "$D/page.html""#,
                     environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        return directory + "/page.html"
    }

    func test_demoPage_inABrowser_showsEveryImageFromItsDataWithNoScript() throws {
        let directory = temporaryDirectory(self)
        let page = try demoPage(directory)
        let browser = try Browser(test: self)
        try browser.open(URL(fileURLWithPath: page).absoluteString)

        XCTAssertEqual(try browser.evaluate("document.title") as? String, "My Feed")
        XCTAssertEqual(try browser.evaluate("document.documentElement.lang") as? String, "en")
        XCTAssertEqual(try browser.evaluate("document.querySelectorAll('li.image').length") as? Int, 12, "one item per record")
        XCTAssertEqual(try browser.evaluate("document.querySelectorAll('img[src^=\"data:image/png;base64,\"]').length") as? Int, 12,
                       "every image from its cached data")
        // Every image decodes, at the size its attributes say.
        let decoded = try browser.evaluate("""
            Promise.all([...document.images].map(i => i.decode().then(() => i.naturalWidth > 0 && i.naturalWidth == +i.getAttribute('width') && i.naturalHeight == +i.getAttribute('height'), () => false)))
              .then(all => all.filter(ok => ok).length)
            """) as? Int
        XCTAssertEqual(decoded, 12)
        XCTAssertEqual(try browser.evaluate("[...document.images].filter(i => i.getAttribute('width') == '12' && i.getAttribute('height') == '12').length") as? Int, 12)
        // The case study's cell: the location under a pin, the description under the image.
        XCTAssertEqual(try browser.evaluate("document.querySelector('li.image .location').innerText") as? String,
                       "Sydney Harbour\nNew South Wales, Australia")
        XCTAssertEqual(try browser.evaluate("document.querySelectorAll('li.image .description').length") as? Int, 9)
        // No script: none in the document, no handler attribute, and the policy forbids any.
        XCTAssertEqual(try browser.evaluate("document.scripts.length") as? Int, 0)
        XCTAssertEqual(try browser.evaluate("[...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length") as? Int, 0)
        let policy = try browser.evaluate("document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]').content") as? String
        XCTAssertTrue(policy?.hasPrefix("default-src 'none';") == true, policy ?? "no policy")
        XCTAssertFalse(policy?.contains("script-src") == true)

        // Light, then dark, as the reader's system says.
        try browser.prefer(colorScheme: "light")
        XCTAssertEqual(try browser.evaluate("getComputedStyle(document.documentElement).backgroundColor") as? String, "rgb(255, 255, 255)")
        let light = try browser.screenshot()
        try browser.prefer(colorScheme: "dark")
        XCTAssertEqual(try browser.evaluate("getComputedStyle(document.documentElement).backgroundColor") as? String, "rgb(0, 0, 0)")
        XCTAssertEqual(try browser.evaluate("getComputedStyle(document.querySelector('h1')).color") as? String, "rgb(242, 242, 247)")
        let dark = try browser.screenshot()
        XCTAssertNotEqual(light, dark)

        // Kept as build artefacts, and both side by side (the README's picture).
        try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)
        try light.write(to: URL(fileURLWithPath: Self.screenshots + "/feed-view-html-light.png"))
        try dark.write(to: URL(fileURLWithPath: Self.screenshots + "/feed-view-html-dark.png"))
        let pair = directory + "/pair.html"
        try """
        <!DOCTYPE html><html><head><meta charset="utf-8"><style>html, body { margin: 0; background: #8e8e93; } body { display: flex; gap: 16px; padding: 16px; }
        img { display: block; width: 390px; height: 844px; border-radius: 12px; }</style></head>
        <body><img src="data:image/png;base64,\(light.base64EncodedString())"><img src="data:image/png;base64,\(dark.base64EncodedString())"></body></html>
        """.write(toFile: pair, atomically: true, encoding: .utf8)
        let composer = try Browser(test: self, width: 828, height: 876)
        try composer.open(URL(fileURLWithPath: pair).absoluteString)
        _ = try composer.evaluate("Promise.all([...document.images].map(i => i.decode())).then(() => true)")
        let both = try composer.screenshot()
        try both.write(to: URL(fileURLWithPath: Self.screenshots + "/feed-view-html.png"))
        XCTAssertLessThan(both.count, 200 * 1024, "the README's picture stays under 200 KB")
    }

    /// Images not cached (or past the inline limit) come from their URLs,
    /// here a real nginx's, over the placeholder; the page's policy lets them in.
    func test_pageOfImagesNotInline_inABrowser_loadsThemFromTheirURLsOnNginx() throws {
        let nginx = try Nginx(test: self)
        let directory = temporaryDirectory(self)
        let records = try demoFeedRecords(base: nginx.base)
        for (index, data) in records.images.enumerated() {
            try data.write(to: URL(fileURLWithPath: nginx.root + "/image-\(index).png"))
        }
        let page = directory + "/page.html"
        let run = sh("feed-view --format html --inline-limit 0 > \(quoted(page))", stdin: records.lines, environment: env)
        XCTAssertEqual(run.status, 0, run.stderr)
        let browser = try Browser(test: self, height: 20_000)
        try browser.open(URL(fileURLWithPath: page).absoluteString)
        XCTAssertEqual(try browser.evaluate("document.querySelectorAll('.frame.placeholder img[src^=\"http://127.0.0.1:\"]').length") as? Int, 12)
        let loaded = try browser.evaluate("""
            Promise.all([...document.images].map(i => i.decode().then(() => i.naturalWidth, () => 0))).then(w => w.filter(n => n == 12).length)
            """) as? Int
        XCTAssertEqual(loaded, 12, "every image from nginx")
    }

    /// The demo feed's records as `feed-cache load --images` gives them
    /// (Golden/demo-feed.ndjson), pointed at `base`, without their data; and that data.
    private func demoFeedRecords(base: String) throws -> (lines: String, images: [Data]) {
        let text = try String(contentsOfFile: FeedViewFormatTests.golden + "/demo-feed.ndjson", encoding: .utf8)
        var lines = "", images: [Data] = []
        for line in text.split(separator: "\n") {
            var record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            // The fifth has none in the golden: it takes the fourth's.
            images.append((record["image_data_base64"] as? String).flatMap { Data(base64Encoded: $0) } ?? images.last ?? Data())
            record["image_data_base64"] = nil
            record["url"] = (record["url"] as! String).replacingOccurrences(of: "http://127.0.0.1:8080", with: base)
            lines += String(decoding: try JSONSerialization.data(withJSONObject: record), as: UTF8.self) + "\n"
        }
        return (lines, images)
    }

    /// One column from a small phone's width to a desktop's: nothing wider
    /// than the screen at 320 px, even a word of 300 letters; at 1280 px a
    /// column of 36rem in the middle.
    func test_page_fitsAPhonesWidth_andCentresAColumnOnADesktop() throws {
        let directory = temporaryDirectory(self)
        let long = String(repeating: "x", count: 300)
        let records = [
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"\#(long)","location":"\#(long)","url":"http://127.0.0.1:9/\#(long).png"}"#,
            #"{"id":"7DCC550B-835D-46DE-AA14-C5EDE102F183","message":"\#(long)","created_at":"2020-05-20T11:24:59Z","username":"\#(long)"}"#,
        ].joined(separator: "\n") + "\n"
        let page = directory + "/page.html"
        XCTAssertEqual(sh("feed-view --format html --now 2020-05-21T00:00:00Z > \(quoted(page))", stdin: records, environment: env).status, 0)
        let phone = try Browser(test: self, width: 320, height: 640)
        try phone.open(URL(fileURLWithPath: page).absoluteString)
        XCTAssertEqual(try phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth") as? Bool, true, "no sideways scrolling")
        XCTAssertEqual(try phone.evaluate("Math.round(document.querySelector('.frame').getBoundingClientRect().width)") as? Int, 288, "the image spans the column")
        let desktop = try Browser(test: self, width: 1280, height: 800)
        try desktop.open(URL(fileURLWithPath: page).absoluteString)
        let main = try desktop.evaluate("(r => [Math.round(r.left), Math.round(r.width)])(document.querySelector('main').getBoundingClientRect())") as? [Int]
        XCTAssertEqual(main, [352, 576], "36rem in the middle of 1280 px")
    }

    func test_pageInGreek_inABrowser_isLocalizedWithItsComments() throws {
        let directory = temporaryDirectory(self)
        let comments = [
            #"{"id":"7DCC550B-835D-46DE-AA14-C5EDE102F183","message":"What a view!","created_at":"2020-05-20T11:24:59Z","username":"ana"}"#,
            #"{"id":"5381A75E-341C-4FCC-BD82-BBD07CA998C4","message":"The Manly ferry,\nI think.","created_at":"2020-05-19T08:02:11Z","username":"bruno"}"#,
        ].joined(separator: "\n") + "\n"
        let page = directory + "/comments.html"
        var environment = env
        environment["LANG"] = "el_GR.UTF-8"
        let run = sh("feed-view --format html --now 2020-05-21T12:00:00Z > \(quoted(page))", stdin: comments, environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        let browser = try Browser(test: self)
        try browser.open(URL(fileURLWithPath: page).absoluteString)
        XCTAssertEqual(try browser.evaluate("document.title") as? String, "Σχόλια")
        XCTAssertEqual(try browser.evaluate("document.documentElement.lang") as? String, "el")
        XCTAssertEqual(try browser.evaluate("[...document.querySelectorAll('li.comment .username')].map(e => e.innerText).join(',')") as? String, "ana,bruno")
        XCTAssertEqual(try browser.evaluate("[...document.querySelectorAll('li.comment .date')].map(e => e.innerText).join(',')") as? String,
                       "πριν από 1 ημέρα,πριν από 2 ημέρες")
        XCTAssertEqual(try browser.evaluate("document.querySelectorAll('li.comment .message')[1].innerText") as? String, "The Manly ferry,\nI think.")
    }

    /// Hostile text in every field shows as text: no element, no handler,
    /// and no script made from it.
    func test_hostilePage_inABrowser_showsTheTextAndRunsNothing() throws {
        let directory = temporaryDirectory(self)
        let page = directory + "/hostile.html"
        let run = sh("feed-view --format html --now 2020-05-21T12:00:00Z > \(quoted(page))", stdin: HostileRecords.lines, environment: env)
        XCTAssertEqual(run.status, 0, run.stderr)
        let browser = try Browser(test: self)
        try browser.open(URL(fileURLWithPath: page).absoluteString)
        XCTAssertEqual(try browser.evaluate("typeof window.pwned") as? String, "undefined")
        XCTAssertEqual(try browser.evaluate("document.scripts.length") as? Int, 0)
        XCTAssertEqual(try browser.evaluate("document.querySelectorAll('iframe, object, embed, form, a, base, link, svg').length") as? Int, 0)
        XCTAssertEqual(try browser.evaluate("[...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length") as? Int, 0)
        XCTAssertEqual(try browser.evaluate("document.images.length") as? Int, 1, "only the one image record's own")
        XCTAssertEqual(try browser.evaluate("document.querySelector('li.image .description').textContent") as? String, HostileRecords.text)
        XCTAssertEqual(try browser.evaluate("document.querySelector('li.image .location').textContent") as? String, HostileRecords.text)
        XCTAssertEqual(try browser.evaluate("document.querySelector('li.comment .username').textContent") as? String, HostileRecords.text)
        XCTAssertEqual(try browser.evaluate("document.querySelector('li.comment .message').textContent") as? String, HostileRecords.text)
        XCTAssertEqual(try browser.evaluate("document.images[0].getAttribute('src')") as? String, HostileRecords.iri)
        XCTAssertEqual(try browser.evaluate("document.images[0].getAttribute('alt')") as? String, HostileRecords.text)
        XCTAssertEqual(try browser.evaluate("document.querySelector('time').textContent") as? String, HostileRecords.text)
    }
}

/// Records whose every field tries to become markup or script.
enum HostileRecords {
    static let text = #"</p><script>window.pwned=1</script>"><img src=x onerror="window.pwned=2"><svg onload=window.pwned=3>' & &amp;"#
    static let url = #"http://127.0.0.1:9/"><script>window.pwned=4</script>.png?a=1&b=2"#
    /// `url` as the views link it: an IRI, what none may hold percent-encoded.
    static let iri = #"http://127.0.0.1:9/%22%3E%3Cscript%3Ewindow.pwned=4%3C/script%3E.png?a=1&b=2"#
    static var lines: String {
        func json(_ s: String) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes]), as: UTF8.self).dropFirst().dropLast().description
        }
        return [
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":\#(json(text)),"location":\#(json(text)),"url":\#(json(url)),"image_data_base64":"PHNjcmlwdD4="}"#,
            #"{"id":"7DCC550B-835D-46DE-AA14-C5EDE102F183","message":\#(json(text)),"created_at":"2020-05-20T11:24:59Z","username":\#(json(text)),"relative_date":\#(json(text))}"#,
        ].joined(separator: "\n") + "\n"
    }
}
