/// Text from records made safe to show on a terminal.
///
/// A record is data from a server: a username or a description may hold
/// escape sequences that would recolour, retitle, move the cursor of or
/// (on some terminals) answer back through the terminal that shows them.
/// Only the renderer's own styles reach the terminal: every control
/// character of the text (C0 but tab and line breaks, DEL, C1) and every
/// bidirectional embedding, override or isolate (which can reorder what a
/// line appears to say) is shown as U+FFFD, the replacement character.
public enum TerminalText {
    /// The character shown in place of a control character.
    public static let replacement: Character = "\u{FFFD}"

    /// `text` with nothing a terminal would act on: line breaks (LF, CR,
    /// CR LF, NEL, U+2028, U+2029) become "\n" when `multiline`, else a
    /// space; a tab becomes a space; other controls become U+FFFD.
    public static func visible(_ text: String, multiline: Bool) -> String {
        // The common case, printable ASCII and other safe text, is returned as it is.
        guard text.unicodeScalars.contains(where: needsReplacing) else { return text }
        var out = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar.value {
            case 0x0A where previousWasCR:
                continue  // CR LF is one break
            case 0x0A, 0x0D, 0x85, 0x2028, 0x2029:
                out.append(multiline ? "\n" : " ")
            case 0x09:
                out.append(" ")
            default:
                out.append(needsReplacing(scalar) ? "\u{FFFD}" : scalar)
            }
        }
        return String(out)
    }

    static func needsReplacing(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
        default: false
        }
    }
}
