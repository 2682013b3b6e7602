import EssentialFeed
/// The head of an HTTP/1.x response: status line and the header fields
/// that decide how the body is framed, whether the connection may be
/// reused, and where a redirect points.
///
/// Parsed strictly (RFC 9112): an `HTTP/1.0` or `HTTP/1.1` status line
/// with a three-digit status, then `name: value` lines whose names are
/// tokens, up to an empty line; CRLF or a bare LF ends a line, and an
/// obsolete folded line continues the previous value. Anything else, a
/// head larger than the limit, a `Content-Length` that is not a number or
/// disagrees with another, and a transfer coding other than `chunked` are
/// a `badResponse` failure.
struct HTTPResponseHead: Equatable, Sendable {
    enum Framing: Equatable, Sendable {
        /// No body at all: 1xx, 204 and 304.
        case none
        case length(Int)
        case chunked
        /// The body ends when the server closes the connection.
        case untilClose
    }

    var status: Int
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    var minorVersion: Int
    var framing: Framing
    /// Whether the server lets the connection be reused after this response
    /// (`Connection: close`, or HTTP/1.0 without `keep-alive`, says no).
    var persistent: Bool
    var location: String?
    /// The content coding to decode (`Content-Encoding`: gzip, x-gzip or
    /// deflate alone); nil for a body as it is, which one in another coding
    /// (that was not asked for) is kept as.
    var contentCoding: Inflater.Coding?
    /// `Retry-After`, as sent.
    var retryAfter: String?
    /// The validators, as sent: `ETag` and `Last-Modified`.
    var etag: String?
    var lastModified: String?

    /// The result of looking for a head at the start of some bytes.
    enum Parse: Equatable {
        /// The head is not complete yet.
        case incomplete
        /// The head, and how many bytes it took.
        case complete(HTTPResponseHead, consumed: Int)
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) throws(HTTPFailure) -> Parse {
        let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        // Empty lines before a status line are ignored (RFC 9112, 2.2).
        var start = 0
        while start < bytes.count, bytes[start] == cr || bytes[start] == lf { start += 1 }
        // The head ends at an empty line: LF (CR) LF.
        var end = -1
        var index = start
        while index < bytes.count {
            if bytes[index] == lf {
                if index + 1 < bytes.count, bytes[index + 1] == lf {
                    end = index + 2
                    break
                }
                if index + 2 < bytes.count, bytes[index + 1] == cr, bytes[index + 2] == lf {
                    end = index + 3
                    break
                }
            }
            index += 1
        }
        guard end >= 0 else {
            if bytes.count - start > limit { throw tooLarge(limit) }
            return .incomplete
        }
        guard end - start <= limit else { throw tooLarge(limit) }

        var lines = LineIterator(bytes: bytes, position: start, end: end)
        guard let statusLine = lines.next() else { throw bad("no status line") }
        var head = try parseStatusLine(bytes, statusLine)

        var contentLength: Int?
        var transferCodings: [String] = []
        var connectionTokens: [String] = []
        var location: [UInt8]?
        var contentCodings: [String] = []
        /// The field the previous line belonged to, for obsolete line folding.
        var previous: Field?
        while let line = lines.next(), line.lowerBound < line.upperBound {
            if bytes[line.lowerBound] == UInt8(ascii: " ") || bytes[line.lowerBound] == UInt8(ascii: "\t") {
                // obs-fold: the line continues the previous field's value.
                guard previous != nil else { throw bad("a header line starts with white space") }
                if previous == .location, location != nil {
                    location! += [UInt8(ascii: " ")] + trimmed(bytes, line)
                }
                continue
            }
            var colon = line.lowerBound
            while colon < line.upperBound, bytes[colon] != UInt8(ascii: ":") {
                guard isTokenByte(bytes[colon]) else { throw bad("malformed header line") }
                colon += 1
            }
            guard colon < line.upperBound, colon > line.lowerBound else { throw bad("malformed header line") }
            let field = Field(bytes, line.lowerBound..<colon)
            previous = field
            let value = trimmed(bytes, (colon + 1)..<line.upperBound)
            switch field {
            case .contentLength:
                for item in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                    let digits = item.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
                    guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                        throw bad("malformed Content-Length")
                    }
                    let number = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                    guard contentLength == nil || contentLength == number else { throw bad("conflicting Content-Length fields") }
                    contentLength = number
                }
            case .transferEncoding:
                transferCodings += tokens(value)
            case .connection:
                connectionTokens += tokens(value)
            case .location:
                location = value
            case .contentEncoding:
                contentCodings += tokens(value)
            case .retryAfter:
                head.retryAfter = String(decoding: value, as: UTF8.self)
            case .etag:
                // Kept only when it is an entity tag: the next run sends it back.
                head.etag = HTTPValidators.entityTag(String(decoding: value, as: UTF8.self))
            case .lastModified:
                head.lastModified = HTTPValidators.httpDate(String(decoding: value, as: UTF8.self))
            case .other:
                break
            }
        }

        let close = connectionTokens.contains("close")
        head.persistent = !close && (head.minorVersion >= 1 || connectionTokens.contains("keep-alive"))
        head.location = location.map { String(decoding: $0, as: UTF8.self) }
        head.contentCoding = Inflater.Coding(contentCodings: contentCodings)
        switch head.status {
        case 100..<200, 204, 304:
            head.framing = .none
        default:
            let codings = transferCodings.filter { $0 != "identity" }
            if !codings.isEmpty || !transferCodings.isEmpty {
                // Transfer-Encoding wins over Content-Length (RFC 9112, 6.3);
                // only chunked is supported, as the last coding.
                if let unsupported = codings.first(where: { $0 != "chunked" }) {
                    throw bad("unsupported transfer coding '\(unsupported)'")
                }
                if codings.count > 1 { throw bad("chunked applied more than once") }
                head.framing = codings.isEmpty ? .untilClose : .chunked
                if contentLength != nil || codings.isEmpty { head.persistent = false }
            } else if let contentLength {
                head.framing = .length(contentLength)
            } else {
                head.framing = .untilClose
            }
        }
        if head.framing == .untilClose { head.persistent = false }
        return .complete(head, consumed: end)
    }

    // MARK: Pieces

    private enum Field {
        case contentLength, transferEncoding, connection, location, contentEncoding, retryAfter, etag, lastModified, other

        init(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
            func matches(_ name: StaticString) -> Bool {
                guard name.utf8CodeUnitCount == range.count else { return false }
                let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
                for (offset, byte) in expected.enumerated() where bytes[range.lowerBound + offset] | 0x20 != byte {
                    return false
                }
                return true
            }
            switch range.count {
            case 14 where matches("content-length"): self = .contentLength
            case 17 where matches("transfer-encoding"): self = .transferEncoding
            case 10 where matches("connection"): self = .connection
            case 8 where matches("location"): self = .location
            case 16 where matches("content-encoding"): self = .contentEncoding
            case 11 where matches("retry-after"): self = .retryAfter
            case 4 where matches("etag"): self = .etag
            case 13 where matches("last-modified"): self = .lastModified
            default: self = .other
            }
        }
    }

    /// The lines of a head, without their CR LF or LF.
    private struct LineIterator {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int
        let end: Int

        mutating func next() -> Range<Int>? {
            guard position < end else { return nil }
            var stop = position
            while stop < end, bytes[stop] != UInt8(ascii: "\n") { stop += 1 }
            var last = stop
            if last > position, bytes[last - 1] == UInt8(ascii: "\r") { last -= 1 }
            defer { position = stop + 1 }
            return position..<last
        }
    }

    private static func parseStatusLine(_ bytes: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) throws(HTTPFailure) -> HTTPResponseHead {
        // "HTTP/1.x SSS[ reason]"
        let text = bytes[line]
        guard text.count >= 12, text.starts(with: "HTTP/1.".utf8) else { throw bad("not an HTTP/1.x status line") }
        let base = line.lowerBound
        let minor = bytes[base + 7]
        guard minor == UInt8(ascii: "0") || minor == UInt8(ascii: "1"), bytes[base + 8] == UInt8(ascii: " ") else {
            throw bad("not an HTTP/1.x status line")
        }
        var status = 0
        for offset in 9..<12 {
            let digit = bytes[base + offset]
            guard digit >= 0x30, digit <= 0x39 else { throw bad("malformed status code") }
            status = status * 10 + Int(digit - 0x30)
        }
        guard status >= 100, text.count == 12 || bytes[base + 12] == UInt8(ascii: " ") else { throw bad("malformed status code") }
        return HTTPResponseHead(status: status, minorVersion: Int(minor - 0x30), framing: .none, persistent: false, location: nil, contentCoding: nil, retryAfter: nil, etag: nil, lastModified: nil)
    }

    /// A token byte (RFC 9110, 5.6.2).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }

    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [UInt8] {
        var lower = range.lowerBound, upper = range.upperBound
        while lower < upper, bytes[lower] == 0x20 || bytes[lower] == 0x09 { lower += 1 }
        while upper > lower, bytes[upper - 1] == 0x20 || bytes[upper - 1] == 0x09 { upper -= 1 }
        return Array(bytes[lower..<upper])
    }

    /// The comma-separated tokens of a value, lower-cased, without empty ones.
    private static func tokens(_ value: [UInt8]) -> [String] {
        value.split(separator: UInt8(ascii: ",")).compactMap { item in
            let token = String(decoding: item, as: UTF8.self).lowercased().trimmingSpaces
            return token.isEmpty ? nil : token
        }
    }

    static func bad(_ reason: String) -> HTTPFailure {
        HTTPFailure(.badResponse, "bad response: \(reason)")
    }

    static func tooLarge(_ limit: Int) -> HTTPFailure {
        HTTPFailure(.badResponse, "bad response: response head larger than \(counted(limit, "byte"))")
    }
}

private extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}
