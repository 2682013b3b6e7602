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

    /// How many columns a terminal gives `character` (a grapheme cluster),
    /// as glibc's `wcwidth` counts them, which is how terminals allot
    /// cells: each scalar's width added up, two for an East Asian wide or
    /// fullwidth character (ideographs, kana, Hangul syllables, fullwidth
    /// forms), none for a mark that does not space, a format character or
    /// a Hangul vowel or final consonant, one for the rest (a vowel sign
    /// that spaces, as in Hindi or Tamil, takes its own column). An emoji,
    /// whatever sequence draws it (a skin tone, a flag, a family joined
    /// by U+200D, a text symbol asked to show as an emoji with U+FE0F), is
    /// two.
    public static func columns(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let base = scalars.first else { return 0 }
        if base.value < 0x300, scalars.count == 1 { return 1 }  // Latin, and the controls already replaced
        // A regional indicator alone is a letter in a box, one column (a pair, a flag, is two).
        if (0x1F1E6...0x1F1FF).contains(base.value), scalars.count == 1 { return 1 }
        if base.properties.isEmojiPresentation || (base.properties.isEmoji && scalars.contains("\u{FE0F}")) { return 2 }
        var total = 0
        for scalar in scalars { total += columns(scalar) }
        return total
    }

    /// The columns of one scalar, as `wcwidth` has them.
    static func columns(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x300 { return value == 0 ? 0 : 1 }
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }  // Hangul jamo that join
        switch scalar.properties.generalCategory {
        // A mark first: the kana's voicing marks (U+3099) lie among the wide.
        case .nonspacingMark, .enclosingMark: return 0
        // Shown: a soft hyphen, and the signs written before Arabic numbers.
        case .format: return value == 0xAD || (0x600...0x605).contains(value) || [0x6DD, 0x70F, 0x890, 0x891, 0x8E2, 0x110BD, 0x110CD].contains(value) ? 1 : 0
        default: return isWide(value) ? 2 : 1
        }
    }

    /// The columns of `text`, character by character; printable ASCII,
    /// the usual text, a column a byte without a look at its characters.
    public static func columns<Text: StringProtocol>(_ text: Text) -> Int {
        let bytes = text.utf8
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return bytes.count }
        var total = 0
        for character in text { total += columns(character) }
        return total
    }

    /// East Asian Width W and F (Unicode's EastAsianWidth.txt), emoji aside:
    /// the blocks that are wide throughout.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
             0x3400...0x4DFF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x16FF0...0x16FF1,
             0x17000...0x18CFF, 0x18D00...0x18D08, 0x1AFF0...0x1B2FF, 0x1F200...0x1F2FF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default:
            false
        }
    }
}
