#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An HTTP response as a record: `{"url","status","body"|"body_base64"}`.
public struct Response: Sendable {
    public var url: String?
    public var status: Int
    /// The body's JSON document and the node of the body value in it.
    public var body: Body
    /// The URL that answered, when redirects were followed: written as
    /// `final_url` after `status`.
    public var finalURL: String?
    /// The response's validators (`ETag`, `Last-Modified`) as the server
    /// sent them: written as `etag` and `last_modified`.
    public var etag: String?
    public var lastModified: String?

    public enum Body: Sendable {
        /// The body was JSON: the value sits at `node` of `document`.
        case json(JSONDocument, node: Int)
        /// The body was not JSON: its bytes.
        case bytes([UInt8])
    }

    public init(url: String?, status: Int, body: Body, finalURL: String? = nil, etag: String? = nil, lastModified: String? = nil) {
        self.url = url
        self.status = status
        self.body = body
        self.finalURL = finalURL
        self.etag = etag
        self.lastModified = lastModified
    }

    /// Why a record without `status` is not a response: with an `id`, it is
    /// one a mapper writes (`feed-cache load | feed-map`).
    public static func noStatus(hasID: Bool) -> String {
        hasID ? "not a response record: no status (a feed image or comment record, as a mapper writes)" : "not a response record: no status"
    }

    /// Reads a response record. Throws `invalid_data` naming what is wrong.
    public init(record document: JSONDocument, _ object: Int = 0) throws(ErrorRecord) {
        let url = document.member(object, "url").flatMap(document.string)
        let context = url.map { [ErrorRecord.Field("url", $0)] } ?? []
        guard let statusNode = document.member(object, "status") else {
            throw ErrorRecord(.invalidData, Self.noStatus(hasID: document.member(object, "id") != nil), context: context)
        }
        guard let status = document.int(statusNode), (0...999).contains(status) else {
            throw ErrorRecord(.invalidData, "status is not an HTTP status code", context: context)
        }
        let etag = document.member(object, "etag").flatMap(document.string)
        let lastModified = document.member(object, "last_modified").flatMap(document.string)
        if let body = document.member(object, "body") {
            self.init(url: url, status: status, body: .json(document, node: body), etag: etag, lastModified: lastModified)
        } else if let encodedNode = document.member(object, "body_base64") {
            // Decoded from the record's own bytes unless escaped (base64 needs no escape; `\/` is allowed).
            let encoded = document.kind(encodedNode) != .string ? nil
                : document.isEscaped(encodedNode) ? document.string(encodedNode).flatMap(Base64.decode)
                : Base64.decode(document.bytes[document.range(encodedNode)])
            guard let data = encoded else {
                throw ErrorRecord(.invalidData, "body_base64 is not base64", context: context)
            }
            self.init(url: url, status: status, body: .bytes(data), etag: etag, lastModified: lastModified)
        } else {
            throw ErrorRecord(.invalidData, "not a response record: no body or body_base64", context: context)
        }
    }

    /// The body as a JSON document and node, parsing bytes when needed.
    public func jsonBody() throws(ErrorRecord) -> (JSONDocument, Int) {
        switch body {
        case let .json(document, node):
            return (document, node)
        case let .bytes(bytes):
            do {
                let document = try JSONParser.parse(bytes)
                return (document, document.root)
            } catch {
                throw ErrorRecord(.invalidData, "body is not JSON: \(error)", context: errorContext)
            }
        }
    }

    /// Context fields for an error about this response.
    public var errorContext: [ErrorRecord.Field] {
        url.map { [ErrorRecord.Field("url", $0)] } ?? []
    }

    /// Writes the response record; a JSON body is embedded as JSON, other bytes as base64.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("url", url)
        writer.member("status", status)
        writer.member("final_url", finalURL)
        writer.member("etag", etag)
        writer.member("last_modified", lastModified)
        switch body {
        case let .json(document, node):
            writer.member("body", document, node)
        case let .bytes(bytes):
            writer.memberBase64("body_base64", bytes)
        }
        writer.endObject()
    }

    /// Builds a response record from raw body bytes: JSON when the bytes parse
    /// as JSON, else base64.
    public static func fromBody(
        url: String?, status: Int, bytes: [UInt8], finalURL: String? = nil, etag: String? = nil, lastModified: String? = nil
    ) -> Response {
        // A body whose first byte starts no JSON value (an image's) is not
        // given to the parser, which sets up for the whole body first.
        if mayBeJSON(bytes), let document = try? JSONParser.parse(bytes, maxDepth: maxBodyDepth) {
            return Response(url: url, status: status, body: .json(document, node: document.root), finalURL: finalURL, etag: etag, lastModified: lastModified)
        }
        return Response(url: url, status: status, body: .bytes(bytes), finalURL: finalURL, etag: etag, lastModified: lastModified)
    }

    /// The deepest body written as JSON in its record: one level less than
    /// a reader takes, since the record holds it. A body of 512 levels was
    /// embedded, and feed-map refused its record (513 levels); it goes as
    /// `body_base64`, whose body feed-map reads.
    public static let maxBodyDepth = JSONParser.defaultMaxDepth - 1

    /// Whether the first byte after JSON's blanks may start a JSON value
    /// (`{ [ " - 0-9 t f n`).
    static func mayBeJSON(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else { return false }
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): return true
        default: return false
        }
    }
}
