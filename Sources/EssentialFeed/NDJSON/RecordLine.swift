/// Reads one NDJSON line as a record: a JSON object.
public enum RecordLine {
    /// Parses `line` (without its newline). Throws an `invalid_data` error whose
    /// message names the line, e.g. `stdin:3: invalid JSON at byte 5: …`.
    public static func parse(_ line: ArraySlice<UInt8>, lineNumber: Int, source: String = "stdin") throws(ErrorRecord) -> JSONDocument {
        let document: JSONDocument
        do {
            document = try JSONParser.parse(Array(line))
        } catch {
            throw ErrorRecord(.invalidData, "\(source):\(lineNumber): \(error)")
        }
        guard document.kind(document.root) == .object else {
            throw ErrorRecord(.invalidData, "\(source):\(lineNumber): not a JSON object")
        }
        return document
    }

    /// The error for a last line that did not end in a newline.
    public static func truncated(lineNumber: Int, source: String = "stdin") -> ErrorRecord {
        ErrorRecord(.invalidData, "\(source):\(lineNumber): truncated line (no newline at end of input)")
    }
}
