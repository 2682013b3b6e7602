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

    /// A list field's lines as one, joined by commas (RFC 9110, 5.3); nil without any.
    func listField(_ name: String) -> String? {
        let values = fields.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
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
    /// are skipped, and count towards the limit. A head longer than `limit`
    /// bytes, with them, fails with 431 (414 when its request line reaches
    /// past the limit).
    static func parse(_ bytes: [UInt8], limit: Int) -> ParseResult {
        var start = 0
        while start < bytes.count, bytes[start] == cr || bytes[start] == lf { start += 1 }
        // Without a bound, megabytes of them were kept and scanned again at
        // each read, the idle timeout never met (found by the hunt).
        if start > limit { return .failure(status: 431, message: "request head longer than \(limit) bytes (empty lines before it)") }

        // Find the blank line that ends the head.
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = start
        var end: Int?
        var index = start
        while index < bytes.count, index <= limit {
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
            if index > limit {
                return lines.isEmpty
                    ? .failure(status: 414, message: "request line too long: a head is at most \(limit) bytes")
                    : .failure(status: 431, message: "request head longer than \(limit) bytes")
            }
            return .incomplete
        }
        if end > limit {
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
        // RFC 9112, 3.2: an HTTP/1.1 request without a Host field, and any
        // with more than one, get 400 (they got 200: found by the hunt).
        let hosts = head.fields.lazy.filter { $0.name.caseInsensitiveCompare("Host") == .orderedSame }.count
        if hosts > 1 { return .failure(status: 400, message: "more than one Host field") }
        if hosts == 0, head.minorVersion >= 1 { return .failure(status: 400, message: "no Host field (HTTP/1.1 requires one)") }
        if let host = head.fields.first(where: { $0.name.caseInsensitiveCompare("Host") == .orderedSame }), !Self.isHostValue(host.value) {
            return .failure(status: 400, message: "invalid Host field")
        }
        return .complete(head, consumed: end)
    }

    /// RFC 9110, 7.2: `uri-host [ ":" port ]`, or empty; the host an IP
    /// literal in brackets or a reg-name (`Host: a, b`, two hosts in one
    /// field, got 200: found by the hunt). Read as every authority is
    /// (`URLAuthority`), with no user information.
    static func isHostValue(_ value: String) -> Bool {
        let authority = URLAuthority(Substring(value))
        guard authority.userInfo == nil, authority.port?.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) ?? authority.afterHost.isEmpty else { return false }
        let host = authority.host.utf8
        if host.first == UInt8(ascii: "[") {
            let literal = authority.hostName.utf8
            return host.last == UInt8(ascii: "]") && !literal.isEmpty
                && literal.allSatisfy { isUnreservedOrSubDelimiter($0) || $0 == UInt8(ascii: ":") }
        }
        // A reg-name: its `%` each followed by two hex digits.
        var bytes = host[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard bytes.count >= 2, bytes.prefix(2).allSatisfy({ ($0 >= 48 && $0 <= 57) || (($0 | 0x20) >= 97 && ($0 | 0x20) <= 102) }) else { return false }
                bytes = bytes.dropFirst(2)
            } else if !isUnreservedOrSubDelimiter(byte) {
                return false
            }
        }
        return true
    }

    /// RFC 3986's unreserved and sub-delims characters.
    private static func isUnreservedOrSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "-._~!$&'()*+,;=".utf8.contains(byte)
        }
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
