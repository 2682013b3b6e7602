/// Passwords in URLs, kept out of everything a person or a log sees.
///
/// A URL's user-info may hold a password (`http://alice:secret@host/`).
/// Wherever a URL is shown (diagnostics at every log level, error records,
/// response records, the view) it is shown as `http://alice:***@host/`.
/// The user name stays: it says which account was used.
public enum Secrets {
    /// What a password is shown as.
    public static let mask = "***"

    /// `text` with the password of every URL in it shown as `***`: a
    /// whole URL, or a message that names URLs. Text without `@` is
    /// returned as it is, without a copy of its bytes being made.
    public static func redact(_ text: String) -> String {
        redact(text, in: .message)
    }

    /// `redact` for text that is one URL, whatever it holds (a record's
    /// `url`): a blank or a control character is part of its user-info, not
    /// its end as in a message (a password with a tab was shown whole by
    /// the view, and loaded by the web page: found by the hunt).
    public static func redactURL(_ url: String) -> String {
        redact(url, in: .url)
    }

    /// What the text `redact` masks is: a message or a URL (`message`: a
    /// blank ends a URL), a record's line as it is written (`json`: a `"`
    /// too), or one URL (`url`: only the authority's own ends end it).
    private enum Context { case message, json, url }

    private static func redact(_ text: String, in context: Context) -> String {
        guard text.utf8.contains(UInt8(ascii: "@")) else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var changed = false
        var i = 0
        while i < bytes.count {
            // An authority starts after "://".
            guard i + 2 < bytes.count, bytes[i] == UInt8(ascii: ":"), bytes[i + 1] == UInt8(ascii: "/"), bytes[i + 2] == UInt8(ascii: "/") else {
                out.append(bytes[i])
                i += 1
                continue
            }
            out.append(contentsOf: bytes[i..<(i + 3)])
            let start = i + 3
            var end = start
            // Up to what ends an authority, or the next URL's "://".
            while end < bytes.count, !endsAuthority(bytes[end], in: context),
                  !(bytes[end] == UInt8(ascii: ":") && end + 2 < bytes.count && bytes[end + 1] == UInt8(ascii: "/") && bytes[end + 2] == UInt8(ascii: "/")) { end += 1 }
            let authority = bytes[start..<end]
            if let at = authority.lastIndex(of: UInt8(ascii: "@")),
               let colon = authority[..<at].firstIndex(of: UInt8(ascii: ":")) {
                out.append(contentsOf: bytes[start...colon])
                out.append(contentsOf: mask.utf8)
                out.append(contentsOf: bytes[at..<end])
                changed = true
            } else {
                out.append(contentsOf: authority)
            }
            i = end
            // One URL has one user-info, its own: a URL in its query is
            // part of it, as it is (masked, two images that differed there
            // were one image's data: found by the hunt).
            if context == .url {
                out.append(contentsOf: bytes[end...])
                break
            }
        }
        return changed ? String(decoding: out, as: UTF8.self) : text
    }

    /// A record's line (an error record passed on) with the password of
    /// every URL in it shown as `***`: the line itself when it has no `@`
    /// and no escape. With an escape (`http:\/\/u:pw@h`, `\u0040`), which
    /// would hide a URL from a scan of its bytes, the record is written
    /// anew, each string in it (keys too, at every depth) read and shown so (only when a
    /// password was in it: else the line as it came).
    public static func redacted(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        if line.contains(UInt8(ascii: "\\")), let document = try? RecordLine.parse(line, lineNumber: 0) {
            var writer = JSONWriter()
            var changed = false
            /// Writes `node` with each string in it, keys too, shown so (at
            /// every depth: nested values and keys were copied as they
            /// came, their passwords with them: found by the hunt).
            func write(_ node: Int) {
                switch document.kind(node) {
                case .string:
                    let text = document.string(node) ?? ""
                    let shown = redact(text)
                    if shown != text { changed = true }
                    writer.string(shown)
                case .object:
                    writer.beginObject()
                    for key in document.keys(node) {
                        let name = document.string(key) ?? ""
                        let shown = redact(name)
                        if shown != name { changed = true }
                        writer.key(shown)
                        write(key + 1)
                    }
                    writer.endObject()
                case .array:
                    writer.beginArray()
                    for element in document.elements(node) { write(element) }
                    writer.endArray()
                default:
                    writer.value(document, node)
                }
            }
            write(document.root)
            return changed ? writer.bytes[...] : line
        }
        guard line.contains(UInt8(ascii: "@")) else { return line }
        return ArraySlice(redact(String(decoding: line, as: UTF8.self), in: .json).utf8)
    }

    /// Whether `text` names a URL whose user-info holds a password.
    public static func containsPassword(_ text: String) -> Bool {
        redact(text) != text
    }

    /// Bytes that end a URL's authority: the path, query or fragment, a
    /// blank or a control byte (so that a URL inside a message ends where
    /// it should), and in a record's line a `"` (the end of its string).
    /// Any other byte may be in a password, as libcurl sends it as typed:
    /// RFC 3986's sub-delimiters (a password "s3cr(et" was shown whole),
    /// and `"`, `<`, `>`, `\` and `` ` `` (each ended the authority, and a
    /// password holding one was shown whole, in records and messages). A
    /// URL in a message quoted with any of them still has its password
    /// hidden: the last `@` before the path is the user information's;
    /// text after the URL up to a blank that holds an `@` is hidden too.
    private static func endsAuthority(_ byte: UInt8, in context: Context) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"):
            return true
        case UInt8(ascii: "\""):
            return context == .json
        default:
            return context != .url && (byte <= 0x20 || byte == 0x7F)
        }
    }
}
