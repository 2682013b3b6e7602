/// Text for a tool's `--help` made from data (the languages a tool
/// formats in, say), so that the help, and the completions scripts/completions
/// makes from it, cannot drift from what the tool accepts.
public enum HelpText {
    /// `words` as "a, b or c".
    public static func alternatives(_ words: [String]) -> String {
        guard let last = words.last else { return "" }
        return words.count == 1 ? last : words.dropLast().joined(separator: ", ") + " or " + last
    }

    /// `text` filled into lines of at most `width` columns, for an option's
    /// help that starts at `column`: the lines after the first are indented
    /// to it (a word longer than a line stands alone).
    public static func wrap(_ text: String, column: Int, width: Int = 78) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, column + line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n" + String(repeating: " ", count: column))
    }
}
