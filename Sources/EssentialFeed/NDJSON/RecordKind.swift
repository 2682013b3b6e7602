/// How to tell records apart.
public enum RecordKind {
    /// The kind of an error record, or nil when the record is not one.
    /// An error record with an unknown kind counts as `internal`.
    public static func errorKind(of document: JSONDocument, _ object: Int = 0) -> ErrorKind? {
        guard let node = document.member(object, "error") else { return nil }
        return document.string(node).flatMap(ErrorKind.init(rawValue:)) ?? .internal
    }

    /// Whether the record is a page record (``PageRecord``), which tools
    /// reading feed image records pass over.
    public static func isPage(_ document: JSONDocument, _ object: Int = 0) -> Bool {
        document.member(object, "page") != nil && document.member(object, "id") == nil
    }
}
