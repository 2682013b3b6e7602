/// Reads one NDJSON line as a record: a JSON object.
public enum RecordLine {
    /// Parses `line` (without its newline). Throws an `invalid_data` error
    /// about line `lineNumber`, e.g. `invalid JSON at byte 5: …`.
    public static func parse(_ line: ArraySlice<UInt8>, lineNumber: Int) throws(ErrorRecord) -> JSONDocument {
        let document: JSONDocument
        do {
            document = try JSONParser.parse(Array(line))
        } catch {
            throw ErrorRecord(.invalidData, "\(error)", line: lineNumber)
        }
        guard document.kind(document.root) == .object else {
            throw ErrorRecord(.invalidData, "not a JSON object", line: lineNumber)
        }
        return document
    }

    /// The error for a last line that did not end in a newline.
    public static func truncated(lineNumber: Int) -> ErrorRecord {
        ErrorRecord(.invalidData, "truncated line (no newline at end of input)", line: lineNumber)
    }
}
