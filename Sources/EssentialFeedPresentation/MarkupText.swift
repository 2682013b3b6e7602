/// Record text made safe to put in an HTML or XML document, as text or as an
/// attribute's value (always quoted with `"`).
///
/// A record is data from a server: a description may hold `<script>`, a
/// quote that would end an attribute, or characters XML forbids. Every
/// `&`, `<`, `>`, `"` and `'` is written as a reference, so text never
/// becomes markup. Control characters (C0 but tab and line breaks, DEL, C1)
/// are shown as U+FFFD in HTML, as on a terminal, and dropped from XML,
/// where most of them may not appear at all.
public enum MarkupText {
    /// `text` escaped for HTML; line breaks kept (a stylesheet shows them).
    public static func html(_ text: String) -> String {
        escape(text, dropControls: false)
    }

    /// `text` escaped for XML 1.0, without the characters it forbids.
    public static func xml(_ text: String) -> String {
        escape(text, dropControls: true)
    }

    /// A URL as an IRI (RFC 3987), as an Atom link must be: the ASCII
    /// characters neither may hold (space, `"`, `<`, `>`, `\`, `^`, `` ` ``,
    /// `{`, `|`, `}`, controls) percent-encoded; to escape for XML after.
    public static func iri(_ url: String) -> String {
        guard url.utf8.contains(where: notInIRI) else { return url }
        var out = [UInt8]()
        out.reserveCapacity(url.utf8.count + 16)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in url.utf8 {
            if notInIRI(byte) {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func notInIRI(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00...0x20, 0x7F, UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"),
             UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"): true
        default: false
        }
    }

    private static func escape(_ text: String, dropControls: Bool) -> String {
        guard text.utf8.contains(where: mayNeedWork) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar {
            case "\n" where previousWasCR: continue  // CR LF is one break
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\r": out += "\n"  // a break, as XML parsers read it
            default:
                if isControl(scalar) {
                    if !dropControls { out.unicodeScalars.append("\u{FFFD}") }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// One pass over the bytes tells the common case, text to keep as it
    /// is: no markup character, no control (C0 but tab and LF, DEL), and no
    /// lead byte of a C1 control (0xC2) or of U+FFFE and U+FFFF (0xEF).
    private static func mayNeedWork(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"): true
        case 0x09, 0x0A: false
        case 0x00...0x1F, 0x7F, 0xC2, 0xEF: true
        default: false
        }
    }

    /// C0 but tab, LF and CR; DEL; C1; and U+FFFE, U+FFFF (not characters).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F...0x9F, 0xFFFE, 0xFFFF: true
        default: false
        }
    }
}
