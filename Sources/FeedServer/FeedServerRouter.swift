import EssentialFeed
import Foundation

/// The pure part of serving one request: routes its target against the
/// fixtures and applies the faults that change the response itself
/// (`redirect`, `big`, `status`). The faults that change how it is sent
/// travel on in the ``Reply``.
struct FeedServerRouter {
    var fixtures: FeedServerFixtures
    /// The global faults.
    var faults: FeedServerFaults
    /// `http://127.0.0.1:PORT`, replacing `{{base}}`.
    var base: String
    /// Whether a 200 carries an ETag (`validated`).
    var etags = false

    static let defaultLimit = 10
    static let maximumLimit = 1000

    struct Reply: Equatable {
        var response: HTTPResponse
        /// The faults for this request: the global ones overridden by the prefix.
        var faults: FeedServerFaults
    }

    func reply(to request: HTTPRequestHead) -> Reply {
        let (path, query) = split(request.target)
        var segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)

        var faults = self.faults
        var prefixSpec: String?
        if segments.count >= 2, segments[0] == "_fault" {
            guard let spec = segments[1].removingPercentEncoding else {
                return Reply(response: .error(400, "malformed fault spec"), faults: faults)
            }
            do {
                faults = faults.overridden(by: try FeedServerFaults(spec: spec))
            } catch {
                return Reply(response: .error(400, error.message), faults: self.faults)
            }
            prefixSpec = spec
            segments.removeFirst(2)
        }

        guard request.method == "GET" || request.method == "HEAD" else {
            let allow = HTTPResponse.Field(name: "Allow", value: "GET, HEAD")
            return Reply(response: .error(405, "only GET and HEAD are served", fields: [allow]), faults: faults)
        }

        if let redirect = faults.redirect, redirect > 0 {
            let location = redirectLocation(spec: prefixSpec, redirect: redirect - 1, rest: segments, query: query)
            return Reply(response: .error(302, "redirecting to \(location)", fields: [.init(name: "Location", value: location)]), faults: faults)
        }

        var response = route(segments, query: query)
        if let big = faults.big { response = padded(response, to: big) }
        if let status = faults.status { response.status = status }
        if etags, response.status == 200, faults.big == nil, faults.status == nil {
            response = Self.validated(response, ifNoneMatch: request.listField("If-None-Match"))
        }
        return Reply(response: response, faults: faults)
    }

    /// A fixture's 200 with a strong ETag, its body's hash; or 304 with the
    /// tag alone when `ifNoneMatch` names it (RFC 9110 13.1.2 and 13.2.2:
    /// weakly compared, one tag of a list, or `*`). The conditional
    /// refresh then gets its 304 from this server as from nginx.
    static func validated(_ response: HTTPResponse, ifNoneMatch: String?) -> HTTPResponse {
        var hash = FNV1a()
        // Bytes only: a padded body (`big`) is never tagged.
        for case .bytes(let bytes) in response.body.segments { hash.add(bytes) }
        let tag = "\"" + hash.hex + "\""
        let field = HTTPResponse.Field(name: "ETag", value: tag)
        if let ifNoneMatch, ifNoneMatch.split(separator: ",").contains(where: { listed in
            let listed = listed.trimmingCharacters(in: .whitespaces)
            return listed == "*" || (listed.hasPrefix("W/") ? String(listed.dropFirst(2)) : listed) == tag
        }) {
            return HTTPResponse(status: 304, contentType: nil, body: HTTPBody(), fields: [field])
        }
        var tagged = response
        tagged.fields.append(field)
        return tagged
    }

    // MARK: Routes

    private func route(_ rawSegments: [String], query: String?) -> HTTPResponse {
        let decoded = rawSegments.map { $0.removingPercentEncoding }
        guard !decoded.contains(where: { $0 == nil }) else { return .error(400, "malformed percent-encoding in path") }
        let segments = decoded.map { $0! }
        guard let parameters = Self.parameters(query) else { return .error(400, "malformed query") }

        switch segments.count {
        case 2 where segments == ["v1", "feed"]:
            return feed(parameters)
        case 4 where segments[0] == "v1" && segments[1] == "image" && segments[3] == "comments":
            guard let id = UUID(uuidString: segments[2]) else {
                return .error(400, "image id '\(segments[2])' is not a UUID")
            }
            return comments(of: id)
        case 1 where !segments[0].isEmpty:
            return image(named: segments[0])
        default:
            return .error(404, "no such resource")
        }
    }

    /// `GET /v1/feed?limit=N&after_id=UUID`: keyset pagination in feed order.
    /// An `after_id` that is not in the feed gives an empty page.
    private func feed(_ parameters: [String: String]) -> HTTPResponse {
        var limit = Self.defaultLimit
        if let text = parameters["limit"] {
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), text.contains(where: { $0 != "0" }) else {
                return .error(400, "limit must be a positive integer, got '\(text)'")
            }
            limit = min(Int(text) ?? Self.maximumLimit, Self.maximumLimit)
        }
        var page = fixtures.feed[...]
        if let text = parameters["after_id"] {
            guard let after = UUID(uuidString: text) else {
                return .error(400, "after_id must be a UUID, got '\(text)'")
            }
            if let index = fixtures.feed.firstIndex(where: { UUID(uuidString: $0.id) == after }) {
                page = fixtures.feed[(index + 1)...]
            } else {
                page = []
            }
        }
        var json = JSONWriter()
        json.beginObject()
        json.key("items")
        json.beginArray()
        for item in page.prefix(limit) {
            json.beginObject()
            json.member("id", item.id)
            json.member("description", item.description)
            json.member("location", item.location)
            json.member("image", item.image)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return .json(200, substitutingBase(json.bytes))
    }

    /// `GET /v1/image/UUID/comments`: an image without comments gives no items.
    private func comments(of image: UUID) -> HTTPResponse {
        var json = JSONWriter()
        json.beginObject()
        json.key("items")
        json.beginArray()
        for comment in fixtures.comments[image] ?? [] {
            json.beginObject()
            json.member("id", comment.id)
            json.member("message", comment.message)
            json.member("created_at", comment.createdAt)
            json.key("author")
            json.beginObject()
            json.member("username", comment.username)
            json.endObject()
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return .json(200, substitutingBase(json.bytes))
    }

    /// `GET /NAME`: the bytes of a fixture image. Names are looked up in
    /// memory, never on disk, so no path can escape the fixtures.
    private func image(named name: String) -> HTTPResponse {
        guard let bytes = fixtures.images[name] else { return .error(404, "no image named '\(name)'") }
        let type = Self.contentType(name: name, bytes: bytes)
        return HTTPResponse(
            status: 200, contentType: type,
            body: HTTPBody(type == "application/json" ? substitutingBase(bytes) : bytes)
        )
    }

    // MARK: Faults

    /// The same URL with the redirect count replaced by `redirect`.
    private func redirectLocation(spec: String?, redirect: Int, rest: [String], query: String?) -> String {
        let items = (spec ?? "").split(separator: ",").map(String.init)
            .filter { $0 != "redirect" && !$0.hasPrefix("redirect=") } + ["redirect=\(redirect)"]
        let path = "/_fault/" + items.joined(separator: ",") + "/" + rest.joined(separator: "/")
        return base + path + (query.map { "?" + $0 } ?? "")
    }

    /// A JSON object body grown to exactly `size` bytes by a `"pad"` member
    /// of `x`s; other bodies, and bodies already too big, are unchanged.
    private func padded(_ response: HTTPResponse, to size: Int) -> HTTPResponse {
        guard response.fields.contains(HTTPResponse.Field(name: "Content-Type", value: "application/json")) else {
            return response
        }
        let body = response.body.bytes
        guard body.first == UInt8(ascii: "{"), body.last == UInt8(ascii: "}") else { return response }
        let comma = body.count > 2 ? [UInt8(ascii: ",")] : []
        let padding = size - body.count - comma.count - 8
        guard padding >= 0 else { return response }
        var result = response
        result.body = HTTPBody(segments: [
            .bytes(Array(body.dropLast()) + comma + Array(#""pad":""#.utf8)),
            .repeated(UInt8(ascii: "x"), count: padding),
            .bytes(Array(#""}"#.utf8)),
        ])
        return result
    }

    // MARK: Helpers

    private func substitutingBase(_ bytes: [UInt8]) -> [UInt8] {
        bytes.replacing(Array("{{base}}".utf8), with: Array(base.utf8))
    }

    /// Splits a target into its path and its query (without the `?`).
    private func split(_ target: String) -> (path: Substring, query: String?) {
        guard let mark = target.firstIndex(of: "?") else { return (target[...], nil) }
        return (target[..<mark], String(target[target.index(after: mark)...]))
    }

    /// The query's parameters, percent-decoded; the first of repeated names
    /// wins. Nil when the query is not well encoded.
    static func parameters(_ query: String?) -> [String: String]? {
        var parameters: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts[0].replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
                  let value = (parts.count > 1 ? String(parts[1]) : "").replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            else { return nil }
            if parameters[name] == nil { parameters[name] = value }
        }
        return parameters
    }

    /// The media type of an image: by extension, else by its first bytes.
    static func contentType(name: String, bytes: [UInt8]) -> String {
        let byExtension = [
            "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
            "webp": "image/webp", "svg": "image/svg+xml", "ppm": "image/x-portable-pixmap",
            "json": "application/json", "txt": "text/plain; charset=utf-8", "html": "text/html; charset=utf-8",
        ]
        if let dot = name.lastIndex(of: "."), let type = byExtension[name[name.index(after: dot)...].lowercased()] {
            return type
        }
        let signatures: [([UInt8], String)] = [
            ([0x89, 0x50, 0x4E, 0x47], "image/png"), ([0xFF, 0xD8, 0xFF], "image/jpeg"),
            (Array("GIF8".utf8), "image/gif"), (Array("P6".utf8), "image/x-portable-pixmap"),
        ]
        return signatures.first { bytes.starts(with: $0.0) }?.1 ?? "application/octet-stream"
    }
}
