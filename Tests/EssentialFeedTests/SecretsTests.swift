import XCTest
import EssentialFeed

final class SecretsTests: XCTestCase {
    /// One URL (a record's `url`): a blank or a control character in its
    /// user-info is part of it, as it is not in a message (a password with
    /// a tab was shown whole by feed-view: found by the hunt).
    func test_redactURL_masksAPasswordHoldingBlanksOrControlCharacters() {
        for byte in ["\t", "\n", " ", "\u{7F}", "\u{1B}"] {
            XCTAssertEqual(Secrets.redactURL("http://u:sec\(byte)ret@h/x"), "http://u:***@h/x", byte.debugDescription)
        }
        XCTAssertEqual(Secrets.redactURL("http://h/a b@c"), "http://h/a b@c", "an @ past the authority")
        // Its own user-info only: a URL in its query is part of its path,
        // and two images that differed there had one key (found by the hunt).
        XCTAssertEqual(Secrets.redactURL("http://h/img?src=http://u:tokenA@cdn/a.png"), "http://h/img?src=http://u:tokenA@cdn/a.png")
        XCTAssertEqual(Secrets.redactURL("http://u:p@h/?src=http://v:q@cdn"), "http://u:***@h/?src=http://v:q@cdn")
        XCTAssertEqual(Secrets.redact("see http://h/?src=http://v:q@cdn"), "see http://h/?src=http://v:***@cdn", "a message hides every one")
        XCTAssertEqual(Secrets.redact("see http://h/x and a:b@c"), "see http://h/x and a:b@c", "a message: a blank ends the URL")
    }

    func test_redact_showsThePasswordOfAURLAsStars() {
        XCTAssertEqual(Secrets.redact("http://alice:secret@host/v1/feed"), "http://alice:***@host/v1/feed")
        XCTAssertEqual(Secrets.redact("https://alice:secret@host:8443"), "https://alice:***@host:8443")
        XCTAssertEqual(Secrets.redact("http://alice:@host/"), "http://alice:***@host/")
        XCTAssertEqual(Secrets.redact("http://alice:p%40ss@host/?q=a@b"), "http://alice:***@host/?q=a@b")
        XCTAssertEqual(Secrets.redact("http://alice:p@ss@host/x"), "http://alice:***@host/x", "an unescaped @ in the password")
        XCTAssertEqual(Secrets.redact("http://a:b:c@host#f"), "http://a:***@host#f")
        // RFC 3986's sub-delimiters are a password's characters too (they ended the authority).
        XCTAssertEqual(Secrets.redact("http://alice:s3cr(et@h/x"), "http://alice:***@h/x")
        XCTAssertEqual(Secrets.redact("http://alice:it's@h"), "http://alice:***@h")
        XCTAssertEqual(Secrets.redact("http://alice:p)w@h:8/"), "http://alice:***@h:8/")
        XCTAssertEqual(Secrets.redact("'http://alice:p)w@h' (http://b:(x)@k)"), "'http://alice:***@h' (http://b:***@k)")
        // So are `"`, `<`, `>`, `\` and `` ` ``, which libcurl sends as typed (they ended the authority: shown whole).
        for byte in ["\"", "<", ">", "\\", "`"] {
            XCTAssertEqual(Secrets.redact("http://alice:se\(byte)cret@127.0.0.1:9/x"), "http://alice:***@127.0.0.1:9/x", byte)
            XCTAssertEqual(Secrets.redact("http://alice:se\(byte)cret@h: connection refused"), "http://alice:***@h: connection refused", byte)
            XCTAssertEqual(Secrets.redact("<http://alice:se\(byte)cret@h>"), "<http://alice:***@h>", byte)
            // In a record's line, escaped as JSON writes it: read and written anew.
            var writer = JSONWriter()
            writer.beginObject()
            writer.member("url", "http://alice:se\(byte)cret@h/x")
            writer.endObject()
            XCTAssertEqual(String(decoding: Array(Secrets.redacted(writer.bytes[...])), as: UTF8.self), #"{"url":"http://alice:***@h/x"}"#, byte)
        }
        // A record's line with no escape: a `"` ends the URL's string.
        XCTAssertEqual(String(decoding: Array(Secrets.redacted(ArraySlice(#"{"url":"http://h","m":"a:b@c"}"#.utf8))), as: UTF8.self), #"{"url":"http://h","m":"a:b@c"}"#)
        XCTAssertEqual(String(decoding: Array(Secrets.redacted(ArraySlice(#"{"url":"http://u:p<w@h","m":"x@y"}"#.utf8))), as: UTF8.self), #"{"url":"http://u:***@h","m":"x@y"}"#)
        // The next URL's "://" ends an authority: it is not swallowed, and its own password is masked.
        XCTAssertEqual(Secrets.redact("x(http://h)(http://u:pw@k/v1/feed)"), "x(http://h)(http://u:***@k/v1/feed)")
        XCTAssertEqual(Secrets.redact("http://h'http://u:pw@k/v1"), "http://h'http://u:***@k/v1")
        XCTAssertEqual(Array(Secrets.redacted(ArraySlice(#"{"url":"http://u:pw@k"}"#.utf8))), Array(#"{"url":"http://u:***@k"}"#.utf8))
        // JSON escapes hide nothing: the record is read and written anew (PHP writes "http:\/\/").
        for escaped in [#"{"error":"connectivity","n":1,"url":"http:\/\/u:pw@k\/x"}"#, #"{"error":"connectivity","n":1,"url":"http://u:pw\u0040k/x"}"#] {
            XCTAssertEqual(String(decoding: Array(Secrets.redacted(ArraySlice(escaped.utf8))), as: UTF8.self), #"{"error":"connectivity","n":1,"url":"http://u:***@k/x"}"#, escaped)
        }
        // At every depth, and in keys: nested values were copied as they came.
        for (escaped, shown) in [(#"{"error":"connectivity","message":"caf\u00e9","detail":{"u":"http://a:pw@h/"}}"#,
                                  #"{"error":"connectivity","message":"café","detail":{"u":"http://a:***@h/"}}"#),
                                 (#"{"error":"connectivity","list":[1,["http://a:pw@h/"]],"k":"\/"}"#,
                                  #"{"error":"connectivity","list":[1,["http://a:***@h/"]],"k":"/"}"#),
                                 (#"{"error":"connectivity","message":"\/","http://a:pw@h/":{"x":null}}"#,
                                  #"{"error":"connectivity","message":"/","http://a:***@h/":{"x":null}}"#)] {
            XCTAssertEqual(String(decoding: Array(Secrets.redacted(ArraySlice(escaped.utf8))), as: UTF8.self), shown, escaped)
        }
        // Without a password, a record with escapes passes byte for byte.
        let plain = #"{"error":"connectivity","message":"caf\u00e9 \"x\"","url":"http:\/\/h\/x"}"#
        XCTAssertEqual(Array(Secrets.redacted(ArraySlice(plain.utf8))), Array(plain.utf8))
    }

    func test_redact_leavesURLsWithoutAPasswordAsTheyAre() {
        for text in ["http://host/v1/feed", "http://alice@host/x", "http://host/path@x", "http://host/?u=a:b@c", "no url at all", "", "mail me: a@b.c"] {
            XCTAssertEqual(Secrets.redact(text), text)
            XCTAssertFalse(Secrets.containsPassword(text), text)
        }
    }

    func test_redact_findsEveryURLInAMessageOrARecord() {
        XCTAssertEqual(Secrets.redact("GET http://a:s1@h/x: 200, redirected to https://b:s2@k/y"),
                       "GET http://a:***@h/x: 200, redirected to https://b:***@k/y")
        XCTAssertEqual(Secrets.redact(#"{"url":"http://a:s@h","status":200}"#), #"{"url":"http://a:***@h","status":200}"#)
        XCTAssertEqual(Secrets.redact("(http://a:s@h) 'http://a:s@h'"), "(http://a:***@h) 'http://a:***@h'")
        XCTAssertTrue(Secrets.containsPassword("see http://a:s@h"))
    }

    func test_redact_isIdempotent() {
        let once = Secrets.redact("http://alice:secret@host/")
        XCTAssertEqual(Secrets.redact(once), once)
    }
}

final class CountedTests: XCTestCase {
    func test_counted_isSingularForOneOnly() {
        XCTAssertEqual(counted(1, "item"), "1 item")
        XCTAssertEqual(counted(0, "item"), "0 items")
        XCTAssertEqual(counted(2, "byte"), "2 bytes")
        XCTAssertEqual(counted(3, "entry", "entries"), "3 entries")
    }
}
