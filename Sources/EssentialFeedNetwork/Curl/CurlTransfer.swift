import CCurl
import Dispatch
import EssentialFeed

/// One request: the header fields it needs from the response, its body
/// as it arrives (decoded, bounded: ``ResponseBody``), and its outcome,
/// decided once (by the transfer's end, or before it by `cancel()`).
final class CurlTransfer: HTTPClientTask, @unchecked Sendable {
    let request: HTTPRequest
    var url: String { request.url }
    private let limit: Int
    private let spilling: BodySpilling?
    private let completion: @Sendable (Result<HTTPResult, HTTPFailure>) -> Void
    private let lock = Lock()
    private var decided = false
    /// Written by the transfer's thread only.
    private var contentCodings: [String] = []
    /// The last response's `Retry-After`, `ETag` and `Last-Modified`, as sent.
    private(set) var retryAfter: String?
    private(set) var etag: String?
    private(set) var lastModified: String?
    private var body: ResponseBody?
    /// Why the body was refused (the limit, a corrupt stream), if it was.
    private(set) var failure: HTTPFailure?
    /// libcurl's message of a failure (`CURLOPT_ERRORBUFFER`), and the
    /// request's header fields: the easy handle's while it runs.
    let errors: UnsafeMutablePointer<CChar> = {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        return buffer
    }()
    var headers: UnsafeMutablePointer<curl_slist>?
    /// The `errno` of a socket refused for want of descriptors, if one was.
    var outOfDescriptors: Int32?
    /// When the request's bound is met (`DispatchTime` nanoseconds), as the
    /// engine keeps it (moved on when a completion held the engine up), and
    /// its failure then. Looked at as the body is decoded and at libcurl's
    /// progress calls, not only between libcurl's rounds: in one round, a
    /// compressed body can decode to gigabytes (gzip members of zeros ran
    /// 18 s past a timeout of 1 s). The engine's thread's alone once it runs.
    var deadline: UInt64 = .max
    var timedOut: HTTPFailure?

    init(_ request: HTTPRequest, limit: Int, spilling: BodySpilling?, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) {
        self.request = request
        self.spilling = spilling
        self.limit = limit
        self.completion = completion
    }

    deinit {
        errors.deallocate()
        curl_slist_free_all(headers)
    }

    var isDecided: Bool { lock.withLock { decided } }

    /// The largest response head accepted, in bytes.
    static let headLimit = 64 << 10
    /// Whether the last response's head came whole (its blank line), and
    /// its size so far; the `Content-Length` it gave.
    private(set) var headEnded = false
    private var headBytes = 0
    private var contentLength: String?
    /// The last response's status, and whether its head gave a Location,
    /// and a chunked body (after which trailer fields may come).
    private var status = 0
    private var location = false
    private var chunked = false
    /// Whether the connection ends after the last head's response (HTTP/1.0
    /// without keep-alive, or `Connection: close`).
    private var closes = false
    /// Whether the transfer was stopped at the end of a 304's head (see
    /// `header`): its outcome is that response, not a failure.
    private(set) var stoppedAtNotModified = false
    /// Whether libcurl follows redirects for it (`--max-redirects` above 0).
    var followsRedirects = true
    /// How many more redirects it may follow (the request's, less those
    /// its earlier hops followed: see `CurlHTTPClient.send`).
    var redirects = 0
    /// A redirect to the other scheme, which needs another proxy: where it
    /// goes, and the redirects followed up to it. The request goes on there
    /// as a transfer of its own (set by the outcome, read by the completion).
    var crossing: (url: String, redirects: Int)? {
        get { lock.withLock { crossingValue } }
        set { lock.withLock { crossingValue = newValue } }
    }
    private var crossingValue: (url: String, redirects: Int)?
    /// Whether a response's head has begun (its status line came) and not ended.
    var isInHead: Bool { status != 0 && !headEnded }
    /// Whether the last head is the final response's: no other head follows.
    private var isFinal: Bool {
        status >= 200 && !(location && followsRedirects && (300...399).contains(status) && status != 304)
    }

    /// Takes one header line of a response (libcurl gives every response's,
    /// redirects' and 1xx included: a status line starts the next); false
    /// (stop) when the head breaks HTTP's rules.
    ///
    /// libcurl is lenient with what a server sends: it takes a head cut
    /// short by the end of the connection as a whole response (a 200 with
    /// no body), a status line of any version, fields without a colon, and
    /// a Content-Length given twice. A record made of such a response would
    /// pass for the server's answer, so the head is checked here, as
    /// strictly as HTTP/1.1 says (RFC 9112): anything else is `badResponse`,
    /// and a head cut short is `connectionLost` (``outcome``).
    func header(_ line: UnsafeRawBufferPointer) -> Bool {
        headBytes += line.count
        guard headBytes <= Self.headLimit else { return refuse("response head larger than \(counted(Self.headLimit, "byte"))") }
        guard line.last == UInt8(ascii: "\n") else { return refuse("a head line without its end") }
        var end = line.count - 1
        if end > 0, line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let bytes = UnsafeRawBufferPointer(rebasing: line[..<end])
        // A chunked body's trailer fields come after the head has ended:
        // they are not the head's (RFC 9110, 6.5.1), and a validator there
        // does not replace the head's. After the chunked head of the final
        // response (not a 1xx, not a redirect that is followed, whose next
        // head comes), or once body bytes have come, even a field that
        // looks like a status line is one: libcurl hands over any trailer
        // line with a colon (after an empty body, one began a head, and
        // the response was "connection lost"). A proxy's answer to a
        // CONNECT is no head of ours (CURLOPT_SUPPRESS_CONNECT_HEADERS).
        if headEnded, body != nil || (isFinal && chunked) { return true }
        if bytes.starts(with: Self.httpPrefix) {
            // The head before it never ended: the connection closed in it,
            // and libcurl went on (a redirect's, its Location line whole).
            if isInHead {
                failure = HTTPFailure(.connectionLost, "connection lost")
                return false
            }
            guard let status = Self.status(ofStatusLine: bytes, http2: isHTTPS) else { return refuse("malformed status line") }
            self.status = status
            contentCodings = []
            retryAfter = nil
            etag = nil
            lastModified = nil
            contentLength = nil
            location = false
            chunked = false
            closes = bytes.starts(with: Self.http10Prefix)
            headEnded = false
            downloadedAtHead = downloaded
            return true
        }
        if headEnded { return true }
        if bytes.isEmpty {
            headEnded = true
            headBytes = 0
            // A 304 is no redirect, whatever Location it gives; libcurl
            // would follow one (it follows any 3xx with a Location). It has
            // no body: the transfer stops here, and the response is this head.
            if status == 304, location, followsRedirects {
                stoppedAtNotModified = true
                return false
            }
            // No request asks to switch protocols (RFC 9110, 15.2.2).
            if status == 101 { return refuse("101 Switching Protocols, not asked for") }
            // Two lengths: a server never sends both, and a message with
            // both "ought to be handled as an error" (RFC 9112, 6.3), a sign
            // of a response split in two. libcurl took the chunked one.
            if chunked, contentLength != nil { return refuse("both Content-Length and Transfer-Encoding") }
            // A body its length shows to be over the limit is refused at
            // once, before any of it comes: the final response's when it is
            // kept as sent (a coded one's limit is its size decoded, counted
            // as it is decoded), and a followed redirect's as sent (libcurl
            // reads it through to reuse the connection: a server could
            // make every request drain data until its timeout), unless the
            // connection closes after it (then libcurl reads none of it and
            // follows on a new connection). A 204 or a
            // 304 has no body, whatever length it gives (a 304 may give the
            // 200's). libcurl's own limit (CURLOPT_MAXFILESIZE) held every
            // response's Content-Length to it, as sent: a gzip body of
            // 1 MiB and a few bytes, 12 bytes decoded, was refused.
            if status >= 200, status != 204, status != 304, let length = contentLength?.drop(while: { $0 == "0" }),
               isFinal ? Inflater.Coding.toUndo(contentCodings: contentCodings).isEmpty : !closes,
               length.count > 18 || Int(length) ?? 0 > limit {
                failure = ResponseBody.tooLarge(limit)
                return false
            }
            return true
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              bytes[..<colon].allSatisfy(Self.isTokenByte) else { return refuse("malformed header field") }
        let name = UnsafeRawBufferPointer(rebasing: bytes[..<colon])
        // The fields read, told by name without making a string of any:
        // their names are all of different lengths.
        guard let field = Self.fieldRead(name) else { return true }
        var value = UnsafeRawBufferPointer(rebasing: bytes[(colon + 1)...])
        while let first = value.first, first == 0x20 || first == 0x09 { value = UnsafeRawBufferPointer(rebasing: value.dropFirst()) }
        while let last = value.last, last == 0x20 || last == 0x09 { value = UnsafeRawBufferPointer(rebasing: value.dropLast()) }
        switch field {
        case .contentLength:
            guard !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return refuse("malformed Content-Length") }
            let trimmed = String(decoding: value, as: UTF8.self)
            if let earlier = contentLength, earlier != trimmed { return refuse("conflicting Content-Length") }
            contentLength = trimmed
        case .transferEncoding:
            var codings = 0
            var chunkedOnly = true
            Self.forEachListElement(value) { coding in
                codings += 1
                chunkedOnly = chunkedOnly && Self.equalsIgnoringCase(coding, Self.chunkedName)
            }
            guard codings == 1, chunkedOnly else { return refuse("unsupported transfer coding '\(String(decoding: value, as: UTF8.self))'") }
            chunked = true
        case .contentEncoding:
            Self.forEachListElement(value) { coding in contentCodings.append(String(decoding: coding, as: UTF8.self).lowercased()) }
        case .retryAfter:
            retryAfter = String(decoding: value, as: UTF8.self)
        case .etag:
            // Kept only when it is an entity tag: the next run sends it
            // back. One with bytes past ASCII (obs-text, which HTTP allows
            // in one) could not be sent back as it came from a record's
            // UTF-8, so it is not kept either. Given twice (a server's
            // mistake: it is one value), one that is no entity tag does not
            // take the place of one that is; of two, the last is kept.
            if value.allSatisfy({ $0 < 0x80 }), let tag = HTTPValidators.entityTag(bytes: value) { etag = tag }
        case .location:
            location = true
        case .connection:
            // As libcurl reads it: close ends the connection after this
            // response; keep-alive keeps an HTTP/1.0 one.
            Self.forEachListElement(value) { option in
                if Self.equalsIgnoringCase(option, Self.closeName) { closes = true } else if Self.equalsIgnoringCase(option, Self.keepAliveName) { closes = false }
            }
        case .lastModified:
            // As ETag: a field that is no date does not drop an earlier one that is.
            if let date = HTTPValidators.httpDate(bytes: value) { lastModified = date }
        }
        return true
    }

    private static let httpPrefix = Array("HTTP/".utf8)
    private static let http10Prefix = Array("HTTP/1.0 ".utf8)
    private static let chunkedName = Array("chunked".utf8)
    private static let closeName = Array("close".utf8)
    private static let keepAliveName = Array("keep-alive".utf8)
    private lazy var isHTTPS = URLText.scheme(of: url) == "https"

    /// The header fields read.
    private enum Field: CaseIterable {
        case contentLength, transferEncoding, contentEncoding, retryAfter, etag, location, connection, lastModified

        var name: String {
            switch self {
            case .contentLength: "content-length"
            case .transferEncoding: "transfer-encoding"
            case .contentEncoding: "content-encoding"
            case .retryAfter: "retry-after"
            case .etag: "etag"
            case .location: "location"
            case .connection: "connection"
            case .lastModified: "last-modified"
            }
        }
    }

    /// The fields read by the length of their name, with that name in lower case.
    private static let fieldsByLength: [(field: Field, name: [UInt8])?] = {
        var table: [(field: Field, name: [UInt8])?] = Array(repeating: nil, count: 18)
        for field in Field.allCases {
            precondition(table[field.name.utf8.count] == nil, "two fields read with names of one length")
            table[field.name.utf8.count] = (field, Array(field.name.utf8))
        }
        return table
    }()

    /// The field read under `name` (in any case), if it is one.
    private static func fieldRead(_ name: UnsafeRawBufferPointer) -> Field? {
        guard name.count < fieldsByLength.count, let entry = fieldsByLength[name.count], equalsIgnoringCase(name, entry.name) else { return nil }
        return entry.field
    }

    /// `lower` (lower-case ASCII) in any case: only the letters A to Z are folded.
    private static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lower: [UInt8]) -> Bool {
        guard bytes.count == lower.count else { return false }
        for index in 0..<bytes.count {
            let byte = bytes[index]
            guard (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == lower[index] else { return false }
        }
        return true
    }

    /// Calls `body` with each element of a comma-separated list, blanks
    /// around it dropped, empty ones skipped.
    private static func forEachListElement(_ list: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        var start = 0
        while start <= list.count {
            var end = start
            while end < list.count, list[end] != UInt8(ascii: ",") { end += 1 }
            var element = UnsafeRawBufferPointer(rebasing: list[start..<end])
            while let first = element.first, first == 0x20 || first == 0x09 { element = UnsafeRawBufferPointer(rebasing: element.dropFirst()) }
            while let last = element.last, last == 0x20 || last == 0x09 { element = UnsafeRawBufferPointer(rebasing: element.dropLast()) }
            if !element.isEmpty { body(element) }
            start = end + 1
        }
    }

    private func refuse(_ reason: String) -> Bool {
        failure = HTTPFailure(.badResponse, "bad response: \(reason)")
        return false
    }

    /// The status of a status line: `HTTP/1.0` or `HTTP/1.1` (`HTTP/2` too
    /// over TLS, where libcurl may speak it), a space, a three-digit
    /// status, then a reason or nothing; nil for anything else.
    private static func status(ofStatusLine line: UnsafeRawBufferPointer, http2: Bool) -> Int? {
        guard let version = (http2 ? versionsOverTLS : versions).first(where: { line.starts(with: $0) }) else { return nil }
        let rest = line.dropFirst(version.count)
        let digits = rest.prefix(3)
        guard digits.count == 3, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let after = rest.dropFirst(3)
        guard after.isEmpty || after.first == 0x20 else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static let versions = ["HTTP/1.0 ", "HTTP/1.1 "].map { Array($0.utf8) }
    private static let versionsOverTLS = versions + [Array("HTTP/2 ".utf8)]

    /// A byte of a field name (RFC 9110's `tchar`): a table, since every
    /// byte of every field name of every response is asked.
    private static func isTokenByte(_ byte: UInt8) -> Bool { tokenBytes[Int(byte)] }

    private static let tokenBytes: [Bool] = (0...255).map { byte in
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: "!#$%&'*+-.^_`|~".utf8.contains(UInt8(byte))
        }
    }

    /// Takes the next bytes of the body as sent; false (stop) when they are
    /// refused.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        do throws(HTTPFailure) {
            let body: ResponseBody
            if let existing = self.body {
                body = existing
            } else {
                body = ResponseBody(limit: limit, reportedLimit: limit, codings: Inflater.Coding.toUndo(contentCodings: contentCodings), spilling: spilling,
                                    checkpoint: { [unowned self] () throws(HTTPFailure) in try checkDeadline() })
                self.body = body
                // Room for the whole body at once, when its length is known
                // and it is kept as sent (grown piece by piece, a 200 KiB
                // body was copied five times).
                if body.isPlain, let length = contentLength.flatMap({ Int($0) }) { try body.reserve(length) }
            }
            try body.write(bytes)
            return true
        } catch {
            failure = error
            return false
        }
    }

    /// Throws the request's timeout once its deadline is met.
    private func checkDeadline() throws(HTTPFailure) {
        if let timedOut, DispatchTime.now().uptimeNanoseconds >= deadline { throw timedOut }
    }

    /// The whole body, once the transfer has ended.
    func finishBody() throws(HTTPFailure) -> (bytes: [UInt8], spilled: SpilledBody?) {
        try body?.finish() ?? ([], nil)
    }

    /// Delivers `result` unless the outcome was decided already.
    func finish(_ result: Result<HTTPResult, HTTPFailure>) {
        guard lock.withLock({ () -> Bool in
            defer { decided = true }
            return !decided
        }) else { return }
        completion(result)
    }

    /// libcurl's count of body bytes read when the last head began.
    private var downloadedAtHead: Int64 = 0
    private var downloaded: Int64 = 0

    /// Takes libcurl's count of body bytes read so far (at its progress
    /// calls, on the transfer's thread); false (stop) when the outcome is
    /// decided, or when a followed redirect's body passes the limit: libcurl
    /// reads it through without handing it over, and a chunked one of no
    /// length would be read until the timeout (17.7 GB in 8 s).
    func progress(downloaded: Int64) -> Bool {
        if isDecided { return false }
        do throws(HTTPFailure) { try checkDeadline() } catch {
            failure = error
            return false
        }
        self.downloaded = downloaded
        if downloaded < downloadedAtHead { downloadedAtHead = 0 }  // counted anew for the next request
        if headEnded, !isFinal, status >= 300, downloaded - downloadedAtHead > Int64(limit) {
            failure = ResponseBody.tooLarge(limit)
            return false
        }
        return true
    }

    /// Decides the outcome now (the transfer stops at libcurl's next progress call).
    func cancel() {
        finish(.failure(HTTPFailure(.cancelled, "cancelled")))
    }
}
