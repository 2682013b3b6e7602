import EssentialFeed

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
