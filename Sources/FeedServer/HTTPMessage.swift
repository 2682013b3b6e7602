import EssentialFeed
import Foundation

/// The head of an HTTP/1.x request: request line and header fields.
struct HTTPRequestHead: Equatable {
    struct Field: Equatable {
        var name: String
        var value: String
    }

    var method: String
    /// The request target as sent (origin form `/path?query`).
    var target: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    var minorVersion: Int
    var fields: [Field]

    /// The first value of the named field (case-insensitive).
    func field(_ name: String) -> String? {
        fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The lower-cased tokens of every `Connection` field.
    var connectionOptions: Set<String> {
        Set(fields.filter { $0.name.lowercased() == "connection" }.flatMap {
            $0.value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        })
    }

    /// Whether the client wants the connection kept open after the response.
    var wantsKeepAlive: Bool {
        let options = connectionOptions
        if options.contains("close") { return false }
        return minorVersion >= 1 || options.contains("keep-alive")
    }

    /// The outcome of parsing the bytes received so far.
    enum ParseResult: Equatable {
        /// More bytes are needed.
        case incomplete
        /// A head, and how many bytes it took (with the blank line).
        case complete(HTTPRequestHead, consumed: Int)
        /// A request that cannot be served: answer `status` and close.
        case failure(status: Int, message: String)
    }

    /// Parses a request head from the start of `bytes`.
    ///
    /// Lines may end in CRLF or a bare LF; empty lines before the request line
    /// are skipped. A head longer than `limit` bytes fails with 431 (414 when
    /// the request line alone is that long).
    static func parse(_ bytes: [UInt8], limit: Int) -> ParseResult {
        var start = 0
        while start < bytes.count, bytes[start] == cr || bytes[start] == lf { start += 1 }

        // Find the blank line that ends the head.
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = start
        var end: Int?
        var index = start
        while index < bytes.count, index - start <= limit {
            if bytes[index] == lf {
                var line = bytes[lineStart..<index]
                if line.last == cr { line = line.dropLast() }
                if line.isEmpty { end = index + 1; break }
                lines.append(line)
                lineStart = index + 1
            }
            index += 1
        }
        guard let end else {
            if index - start > limit {
                return lines.isEmpty
                    ? .failure(status: 414, message: "request line longer than \(limit) bytes")
                    : .failure(status: 431, message: "request head longer than \(limit) bytes")
            }
            return .incomplete
        }
        if end - start > limit {
            return .failure(status: 431, message: "request head longer than \(limit) bytes")
        }

        for line in lines where line.contains(where: { $0 == 0 || $0 == cr }) {
            return .failure(status: 400, message: "control character in request head")
        }
        guard let requestLine = lines.first else { return .failure(status: 400, message: "missing request line") }
        var head: HTTPRequestHead
        switch Self.requestLine(requestLine) {
        case .success(let parsed): head = parsed
        case .failure(let failure): return .failure(status: failure.status, message: failure.message)
        }
        for line in lines.dropFirst() {
            guard let field = headerField(line) else {
                return .failure(status: 400, message: "malformed header field")
            }
            head.fields.append(field)
        }
        return .complete(head, consumed: end)
    }

    /// `METHOD SP TARGET SP HTTP/1.x`
    private static func requestLine(_ line: ArraySlice<UInt8>) -> Result<HTTPRequestHead, Failure> {
        let malformed = Failure(status: 400, message: "malformed request line")
        let parts = line.split(separator: space, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte),
              parts[1].allSatisfy({ $0 > 32 && $0 < 127 }), let target = originForm(parts[1])
        else { return .failure(malformed) }
        let version = Array(parts[2])
        let digit: (UInt8) -> Bool = { $0 >= 48 && $0 <= 57 }
        guard version.count == 8, version.starts(with: Array("HTTP/".utf8)), digit(version[5]),
              version[6] == UInt8(ascii: "."), digit(version[7])
        else { return .failure(malformed) }
        guard version[5] == UInt8(ascii: "1"), version[7] <= UInt8(ascii: "1") else {
            return .failure(Failure(status: 505, message: "only HTTP/1.0 and HTTP/1.1 are served"))
        }
        return .success(HTTPRequestHead(
            method: String(decoding: parts[0], as: UTF8.self), target: target,
            minorVersion: Int(version[7] - 48), fields: []
        ))
    }

    /// The origin form (`/path?query`) of a target in origin or absolute
    /// form (`http://host:port/path?query`, as sent to proxies); nil otherwise.
    private static func originForm(_ target: ArraySlice<UInt8>) -> String? {
        let text = String(decoding: target, as: UTF8.self)
        if text.hasPrefix("/") { return text }
        for scheme in ["http://", "https://"] where text.lowercased().hasPrefix(scheme) {
            let rest = text.dropFirst(scheme.count)
            guard let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }), authorityEnd > rest.startIndex else {
                return rest.isEmpty ? nil : "/"
            }
            return rest[authorityEnd] == "?" ? "/" + rest[authorityEnd...] : String(rest[authorityEnd...])
        }
        return nil
    }

    /// Why a request line cannot be served.
    struct Failure: Error, Equatable {
        var status: Int
        var message: String
    }

    /// `NAME ":" OWS VALUE OWS`; folded (obsolete) lines are rejected.
    private static func headerField(_ line: ArraySlice<UInt8>) -> Field? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else { return nil }
        var value = line[(colon + 1)...]
        while let first = value.first, first == space || first == tab { value = value.dropFirst() }
        while let last = value.last, last == space || last == tab { value = value.dropLast() }
        return Field(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// The length of the request body, nil when the framing is unacceptable
    /// (several different or malformed `Content-Length` values).
    var contentLength: Int? {
        let values = fields.filter { $0.name.lowercased() == "content-length" }
            .flatMap { $0.value.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = values.first else { return 0 }
        guard values.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.count <= 18,
              first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
        else { return nil }
        return Int(first)
    }
}

private let cr = UInt8(ascii: "\r")
private let lf = UInt8(ascii: "\n")
private let space = UInt8(ascii: " ")
private let tab = UInt8(ascii: "\t")

/// A response body: literal bytes and runs of one repeated byte, so that a
/// huge padded body is produced while it is sent rather than held in memory.
struct HTTPBody: Equatable {
    enum Segment: Equatable {
        case bytes([UInt8])
        case repeated(UInt8, count: Int)

        var count: Int {
            switch self {
            case .bytes(let bytes): bytes.count
            case .repeated(_, let count): count
            }
        }
    }

    var segments: [Segment]

    init(_ bytes: [UInt8] = []) { segments = bytes.isEmpty ? [] : [.bytes(bytes)] }
    init(segments: [Segment]) { self.segments = segments }

    var count: Int { segments.reduce(0) { $0 + $1.count } }

    /// All bytes (for tests and small bodies).
    var bytes: [UInt8] {
        segments.flatMap { segment -> [UInt8] in
            switch segment {
            case .bytes(let bytes): bytes
            case .repeated(let byte, let count): [UInt8](repeating: byte, count: count)
            }
        }
    }

    /// Calls `body` with consecutive pieces of at most `chunk` bytes, up to
    /// `limit` bytes in all; stops early and returns false when `body` does.
    func forEachChunk(limit: Int, chunk: Int, _ body: ([UInt8]) -> Bool) -> Bool {
        var left = limit
        for segment in segments where left > 0 {
            switch segment {
            case .bytes(let bytes):
                var offset = 0
                while offset < bytes.count, left > 0 {
                    let size = min(chunk, bytes.count - offset, left)
                    guard body(Array(bytes[offset..<(offset + size)])) else { return false }
                    offset += size
                    left -= size
                }
            case .repeated(let byte, let count):
                var remaining = min(count, left)
                left -= remaining
                let full = [UInt8](repeating: byte, count: min(chunk, remaining))
                while remaining > 0 {
                    let size = min(chunk, remaining)
                    guard body(size == full.count ? full : Array(full[..<size])) else { return false }
                    remaining -= size
                }
            }
        }
        return true
    }
}

/// A response before framing: the server adds `Date`, `Content-Length` and
/// `Connection`.
struct HTTPResponse: Equatable {
    struct Field: Equatable {
        var name: String
        var value: String
    }

    var status: Int
    var fields: [Field]
    var body: HTTPBody

    /// What the `Connection` field says.
    enum Connection {
        /// HTTP/1.1 persistence: no field.
        case persistent
        /// `Connection: keep-alive`, for an HTTP/1.0 client that asked.
        case keepAlive
        /// `Connection: close`
        case close
    }

    init(status: Int, contentType: String?, body: HTTPBody, fields: [Field] = []) {
        self.status = status
        self.fields = (contentType.map { [Field(name: "Content-Type", value: $0)] } ?? []) + fields
        self.body = body
    }

    /// A JSON response.
    static func json(_ status: Int, _ bytes: [UInt8], fields: [Field] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: HTTPBody(bytes), fields: fields)
    }

    /// `{"error":"not_found","message":"..."}` with the status's reason.
    static func error(_ status: Int, _ message: String, fields: [Field] = []) -> HTTPResponse {
        let kind = HTTPResponse.reason(status).lowercased()
            .map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
        var json = JSONWriter()
        json.beginObject()
        json.member("error", kind)
        json.member("message", message)
        json.endObject()
        return .json(status, json.bytes, fields: fields)
    }

    /// Whether a response with this status carries no body (1xx, 204, 304).
    var hasNoBody: Bool { status < 200 || status == 204 || status == 304 }

    /// The status line and header fields, ending in the blank line.
    func head(connection: Connection, date: String = HTTPDate.now()) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(HTTPResponse.reason(status))\r\n"
        text += "Date: \(date)\r\nServer: feed-serve\r\n"
        for field in fields { text += "\(field.name): \(field.value)\r\n" }
        if !hasNoBody { text += "Content-Length: \(body.count)\r\n" }
        switch connection {
        case .persistent: break
        case .keepAlive: text += "Connection: keep-alive\r\n"
        case .close: text += "Connection: close\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// The status line and the first header field only (for the `hang` fault).
    func partialHead() -> [UInt8] {
        let field = fields.first.map { "\($0.name): \($0.value)\r\n" } ?? "Server: feed-serve\r\n"
        return Array("HTTP/1.1 \(status) \(HTTPResponse.reason(status))\r\n\(field)".utf8)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 418: "I'm a teapot"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}

/// IMF-fixdate for the `Date` field, independent of the C locale.
enum HTTPDate {
    static func now() -> String { format(time(nil)) }

    static func format(_ seconds: time_t) -> String {
        var clock = seconds
        var parts = tm()
        gmtime_r(&clock, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
