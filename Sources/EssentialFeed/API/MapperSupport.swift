#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the document mappers share: the status and `{"items":[…]}` envelope
/// rules, and reading an item's fields from a parsed document.
enum MapperSupport {
    /// Calls `body` with the document, each item object of `{"items":[…]}`
    /// and the document's bytes, after the status and envelope rules of `kind`.
    static func forEachItem(
        _ kind: ResponseKind, _ response: Response,
        _ body: (JSONDocument, Int, UnsafeBufferPointer<UInt8>) throws(MappingRejection) -> Void
    ) throws(ErrorRecord) {
        guard kind.accepts(response.status) else { throw error(.status(response.status), kind, response) }
        let (document, root) = try response.jsonBody()
        let failure: MappingRejection? = document.bytes.withUnsafeBufferPointer { bytes in
            guard document.kind(root) == .object else { return .bodyNotObject }
            guard let items = document.member(root, "items"), document.kind(items) == .array else { return .noItemsArray }
            var position = 0
            for item in document.elements(items) {
                position += 1
                guard document.kind(item) == .object else { return .itemNotObject(position: position) }
                do throws(MappingRejection) {
                    try body(document, item, bytes)
                } catch {
                    return error
                }
            }
            return nil
        }
        if let failure { throw error(failure, kind, response) }
    }

    private static func error(_ rejection: MappingRejection, _ kind: ResponseKind, _ response: Response) -> ErrorRecord {
        ErrorRecord(.invalidData, rejection.message(kind), context: response.errorContext)
    }

    /// The member `key` of `object` as the item rules read it.
    static func field(_ document: JSONDocument, _ object: Int, _ key: String, _ bytes: UnsafeBufferPointer<UInt8>) -> ItemField {
        guard let node = document.member(object, key) else { return ItemField() }
        switch document.kind(node) {
        case .string:
            return ItemField(kind: .string, bytes: UnsafeBufferPointer(rebasing: bytes[document.range(node)]), escaped: document.isEscaped(node))
        case .null:
            return ItemField(kind: .null)
        default:
            return ItemField(kind: .other)
        }
    }

    /// A string field's decoded text; nil when absent or `null`.
    static func text(_ field: ItemField) -> String? {
        guard field.isString else { return nil }
        var scratch: [UInt8] = []
        return field.content(&scratch) { String(decoding: $0, as: UTF8.self) }
    }

    /// The UUID of an id the rules have accepted.
    static func uuid(_ field: ItemField) -> UUID {
        var scratch: [UInt8] = []
        guard let id = field.content(&scratch, { Identifiers.uuid(bytes: $0) }) else {
            preconditionFailure("an id the item rules accepted is not a UUID")
        }
        return id
    }

    /// The date of a `created_at` the rules have accepted.
    static func date(_ field: ItemField) -> Timestamp {
        var scratch: [UInt8] = []
        guard let date = field.content(&scratch, { Timestamp(iso8601Bytes: $0) }) else {
            preconditionFailure("a date the item rules accepted does not parse")
        }
        return date
    }
}
