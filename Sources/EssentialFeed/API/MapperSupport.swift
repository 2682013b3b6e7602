#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the mappers share: the `{"items":[…]}` envelope and field rules.
enum MapperSupport {
    /// Calls `body` with each item object of `{"items":[…]}` and its 1-based position.
    static func forEachItem(
        _ document: JSONDocument, _ root: Int, _ response: Response,
        _ body: (Int, Int) throws(ErrorRecord) -> Void
    ) throws(ErrorRecord) {
        guard document.kind(root) == .object else {
            throw ErrorRecord(.invalidData, "body is not a JSON object", context: response.errorContext)
        }
        guard let items = document.member(root, "items"), document.kind(items) == .array else {
            throw ErrorRecord(.invalidData, "body has no items array", context: response.errorContext)
        }
        var position = 0
        for item in document.elements(items) {
            position += 1
            guard document.kind(item) == .object else {
                throw ErrorRecord(.invalidData, "item \(position) is not an object", context: response.errorContext)
            }
            try body(item, position)
        }
    }

    static func uuid(_ document: JSONDocument, _ item: Int, _ key: String, _ fail: (String) -> ErrorRecord) throws(ErrorRecord) -> UUID {
        guard let node = document.member(item, key) else { throw fail("no \(key)") }
        guard let text = document.string(node), let id = Identifiers.uuid(text) else { throw fail("\(key) is not a UUID") }
        return id
    }

    /// A string, or nil when absent or `null`; any other type is an error.
    static func optionalString(_ document: JSONDocument, _ item: Int, _ key: String, _ fail: (String) -> ErrorRecord) throws(ErrorRecord) -> String? {
        guard let node = document.member(item, key), document.kind(node) != .null else { return nil }
        guard let value = document.string(node) else { throw fail("\(key) is not a string") }
        return value
    }
}
