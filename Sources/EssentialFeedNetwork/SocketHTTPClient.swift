import EssentialFeed
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `HTTPClient` for `http://` URLs on POSIX sockets: HTTP/1.1 GET with
/// keep-alive connections, written for feed-fetch's many small requests
/// to one host, and for servers that misbehave (a connection closed in the
/// middle of a response head is `connectionLost`, never a crash).
///
/// It keeps the promises of ``CurlHTTPClient``, with the same
/// failures and messages: the whole request, redirects and the wait for a
/// connection included, is bounded by `timeout`; up to `maxRedirects`
/// redirects (301, 302, 303, 305, 307, 308 with a `Location`, relative or
/// absolute) are followed and one more is `tooManyRedirects`, except that
/// with `maxRedirects` 0 the 3xx itself is the response; a body longer than
/// `maxBodyBytes`, by its `Content-Length` or as it arrives, stops the
/// transfer at once (`bodyTooLarge`); a body cut short of its
/// `Content-Length`, or of its last chunk, is `connectionLost`.
///
/// Requests: `GET` with `Host`, `User-Agent`, `Accept: */*`,
/// `Accept-Encoding: identity` (bodies arrive as sent) and
/// `Connection: keep-alive`; `user:password@` in a URL (else the `.netrc`
/// entry of its host) becomes a `Basic` `Authorization`. Responses: HTTP/1.0 or 1.1, heads up to
/// ``headLimit`` bytes, parsed strictly (``HTTPResponseHead``; anything
/// else is `badResponse`), 1xx heads skipped, bodies framed by
/// `Content-Length`, `Transfer-Encoding: chunked` or the end of the
/// connection; 204 and 304 have none.
///
/// Connections: host names are resolved with `getaddrinfo` (every address
/// is tried in turn, IPv6 literals in brackets work) and the connections
/// kept open per host and port, at most `maxConnectionsPerHost` of them
/// (idle or in use; a request beyond waits for one). A request on an idle
/// connection that the server closed meanwhile (closed or reset before any
/// byte of the response) is sent once more on a new connection: GET is
/// safe to repeat.
///
/// Other schemes (https) go to `fallback`, e.g. a ``CurlHTTPClient``:
/// the URLs given, and redirects from http to https. The time left of this
/// request's bound still applies to such a redirect (the fallback's task is
/// cancelled at the deadline), but the fallback counts its own redirects
/// with its own limit, so a chain that crosses from http to https may
/// follow up to that limit more. Without a fallback, such a URL fails
/// (`other`, "unsupported URL: no client for https").
///
/// Threads: each request runs on a thread of a shared set (as many as
/// requests run at once), with non-blocking sockets waiting in `poll`
/// until the deadline; completions are called on that thread, or, for a
/// cancellation or a timeout decided from outside, on a global queue.
/// Each completion is called exactly once.
public final class SocketHTTPClient: HTTPClient {
    /// The most redirects a client can be told to follow (either client).
    public static let maximumRedirects = 20
    /// The largest response head accepted, in bytes.
    public static let headLimit = 64 << 10

    private let configuration: Configuration
    private let pool: ConnectionPool
    private let fallback: (any HTTPClient)?

    struct Configuration: Sendable {
        var timeout: Double
        var maxRedirects: Int
        var maxBodyBytes: Int
        var userAgent: String
        var netrc: Netrc?
    }

    /// - Parameters:
    ///   - timeout: the bound on each whole request, in seconds.
    ///   - maxConnectionsPerHost: connections open to one host and port at most.
    ///   - maxRedirects: redirects followed at most, 0 to 20.
    ///   - maxBodyBytes: the largest body accepted.
    ///   - userAgent: the `User-Agent` field.
    ///   - netrc: credentials by host, for URLs without `user:password@`.
    ///   - fallback: the client for other schemes than http (https).
    public init(
        timeout: Double = 30, maxConnectionsPerHost: Int = 8, maxRedirects: Int = 5, maxBodyBytes: Int = 64 << 20,
        userAgent: String = "feed-fetch", netrc: Netrc? = nil, fallback: (any HTTPClient)? = nil
    ) {
        precondition((0...Self.maximumRedirects).contains(maxRedirects), "maxRedirects out of range")
        precondition(maxBodyBytes >= 0, "maxBodyBytes is negative")
        precondition(timeout > 0, "timeout is not positive")
        configuration = Configuration(timeout: timeout, maxRedirects: maxRedirects, maxBodyBytes: maxBodyBytes, userAgent: userAgent, netrc: netrc)
        pool = ConnectionPool(limit: maxConnectionsPerHost)
        self.fallback = fallback
    }

    deinit {
        pool.closeAll()
    }

    @discardableResult
    public func get(_ url: String, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) -> HTTPClientTask {
        if let fallback, SocketHTTPURL.hasScheme("https", url) {
            return fallback.get(url, completion: completion)
        }
        let request = SocketHTTPRequest(url: url, deadline: Deadline(timeout: configuration.timeout), pool: pool, completion: completion)
        let configuration = configuration, pool = pool, fallback = fallback
        WorkerThreads.shared.run {
            Exchange(request: request, configuration: configuration, pool: pool, fallback: fallback).run()
        }
        return request
    }
}

/// One GET in flight: its outcome, decided once, by the thread running it
/// or by a cancellation or the deadline from outside.
final class SocketHTTPRequest: HTTPClientTask {
    private struct State {
        var decided = false
        /// The socket in use, shut down by a cancellation to wake the thread waiting on it.
        var socket: Int32 = -1
        /// The fallback's task, after a redirect to https.
        var handedOff: (any HTTPClientTask)?
        var watched = false
    }

    let url: String
    let deadline: Deadline
    private let pool: ConnectionPool
    private let completion: @Sendable (Result<HTTPResult, HTTPFailure>) -> Void
    private let state = Mutex(State())

    init(url: String, deadline: Deadline, pool: ConnectionPool, completion: @escaping @Sendable (Result<HTTPResult, HTTPFailure>) -> Void) {
        self.url = url
        self.deadline = deadline
        self.pool = pool
        self.completion = completion
    }

    var isDecided: Bool { state.withLock { $0.decided } }

    func cancel() {
        stop(HTTPFailure(.cancelled, "cancelled"))
    }

    /// Decides `failure` unless the outcome is decided, wakes the thread
    /// running the request, and delivers the failure on a global queue.
    func stop(_ failure: HTTPFailure) {
        let (won, handedOff): (Bool, (any HTTPClientTask)?) = state.withLock { state in
            guard !state.decided else { return (false, nil) }
            state.decided = true
            if state.socket >= 0 { shutdown(state.socket, Int32(SHUT_RDWR)) }
            defer { state.handedOff = nil }
            return (true, state.handedOff)
        }
        guard won else { return }
        pool.wake()
        handedOff?.cancel()
        let completion = completion
        DispatchQueue.global().async { completion(.failure(failure)) }
    }

    /// Delivers `result` on this thread unless the outcome is decided.
    func finish(_ result: Result<HTTPResult, HTTPFailure>) {
        let won = state.withLock { state in
            guard !state.decided else { return false }
            state.decided = true
            state.socket = -1
            return true
        }
        if won { completion(result) }
    }

    /// Notes the socket in use; false (and nothing noted) when the outcome is decided.
    func attach(_ fd: Int32) -> Bool {
        state.withLock { state in
            guard !state.decided else { return false }
            state.socket = fd
            return true
        }
    }

    /// Forgets the socket; false when the outcome was decided meanwhile
    /// (the socket may have been shut down: it cannot be reused).
    @discardableResult
    func detach() -> Bool {
        state.withLock { state in
            state.socket = -1
            return !state.decided
        }
    }

    /// Makes the deadline decide the outcome even while the thread is
    /// where no deadline reaches (resolving a name) or gone (handed off).
    func watch() {
        let arm = state.withLock { state in
            guard !state.decided, !state.watched else { return false }
            state.watched = true
            return true
        }
        guard arm else { return }
        let failure = deadline.failure
        DispatchQueue.global().asyncAfter(deadline: deadline.dispatchTime) { [weak self] in self?.stop(failure) }
    }

    /// Lets `fallback` answer `url` in this request's place, within its deadline.
    func handOff(_ url: String, to fallback: any HTTPClient, redirected: Bool) {
        watch()
        let task = fallback.get(url) { [self] result in
            finish(result.map { response in
                guard redirected, response.finalURL == nil else { return response }
                return HTTPResult(status: response.status, body: response.body, finalURL: url)
            })
        }
        let kept = state.withLock { state in
            guard !state.decided else { return false }
            state.handedOff = task
            return true
        }
        if !kept { task.cancel() }
    }
}

/// The work of one request, on a worker thread: connections, the request,
/// the response, redirects.
private struct Exchange {
    let request: SocketHTTPRequest
    let configuration: SocketHTTPClient.Configuration
    let pool: ConnectionPool
    let fallback: (any HTTPClient)?
    let buffer = ReadBuffer()

    private static let redirectStatuses: Set<Int> = [301, 302, 303, 305, 307, 308]

    /// What one request on the wire came to.
    private enum Outcome {
        case response(status: Int, body: [UInt8])
        case redirect(to: String)
    }

    func run() {
        guard !request.isDecided else { return }
        var text = request.url
        var redirects = 0
        do throws(HTTPFailure) {
            while true {
                guard let url = SocketHTTPURL(text) else {
                    if SocketHTTPURL.hasScheme("https", text) {
                        guard let fallback else { throw HTTPFailure(.other, "unsupported URL: no client for https") }
                        return request.handOff(text, to: fallback, redirected: redirects > 0)
                    }
                    throw HTTPFailure(.other, SocketHTTPURL.hasScheme("http", text) ? "not a valid URL" : "unsupported URL")
                }
                switch try exchange(url, redirects: redirects) {
                case let .response(status, body):
                    return request.finish(.success(HTTPResult(status: status, body: body, finalURL: redirects > 0 ? text : nil)))
                case let .redirect(location):
                    redirects += 1
                    text = location
                }
            }
        } catch {
            request.finish(.failure(error))
        }
    }

    /// Sends the GET of `url` on a connection of the pool and reads the response.
    private func exchange(_ url: SocketHTTPURL, redirects: Int) throws(HTTPFailure) -> Outcome {
        let deadline = request.deadline
        let message = requestBytes(url)
        var fresh = false
        while true {
            let fd: Int32
            let reused: Bool
            switch try pool.lease(url.key, fresh: fresh, until: deadline, isDecided: { request.isDecided }) {
            case let .idle(idle):
                guard request.attach(idle) else {
                    pool.giveBack(url.key, idle, reusable: true)
                    throw HTTPFailure(.cancelled, "cancelled")
                }
                fd = idle
                reused = true
            case .fresh:
                if !url.hostIsNumeric { request.watch() }
                do throws(HTTPFailure) {
                    fd = try SocketIO.connect(to: url, until: deadline, attach: request.attach, detach: { _ in request.detach() })
                } catch {
                    pool.giveBack(url.key, -1, reusable: false)
                    throw error
                }
                reused = false
            }
            buffer.reset()
            do throws(HTTPFailure) {
                try SocketIO.send(fd, message, until: deadline)
                let (outcome, reusable) = try respond(fd, url, redirects: redirects)
                pool.giveBack(url.key, fd, reusable: request.detach() && reusable)
                return outcome
            } catch {
                let undecided = request.detach()
                pool.giveBack(url.key, fd, reusable: false)
                // An idle connection the server closed meanwhile: once more on a new one.
                if reused, undecided, buffer.received == 0, error.reason == .connectionLost {
                    fresh = true
                    continue
                }
                throw error
            }
        }
    }

    private func requestBytes(_ url: SocketHTTPURL) -> [UInt8] {
        var text = "GET \(url.target) HTTP/1.1\r\nHost: \(url.hostField)\r\nUser-Agent: \(configuration.userAgent)\r\n"
        text += "Accept: */*\r\nAccept-Encoding: identity\r\nConnection: keep-alive\r\n"
        if let authorization = url.authorization ?? configuration.netrc?.authorization(forHost: url.host) {
            text += "Authorization: \(authorization)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// Reads the response on `fd`: what it came to, and whether the
    /// connection may carry another request.
    private func respond(_ fd: Int32, _ url: SocketHTTPURL, redirects: Int) throws(HTTPFailure) -> (Outcome, Bool) {
        let deadline = request.deadline
        let head = try readHead(fd)
        if configuration.maxRedirects > 0, Self.redirectStatuses.contains(head.status),
           let location = head.location, let next = url.resolving(location) {
            guard redirects < configuration.maxRedirects else {
                throw HTTPFailure(.tooManyRedirects, "too many redirects (\(configuration.maxRedirects))")
            }
            // The body of a redirect is read to keep the connection, unless it is large.
            do throws(HTTPFailure) {
                _ = try readBody(fd, head.framing, limit: min(configuration.maxBodyBytes, 1 << 20), until: deadline)
            } catch where error.reason == .bodyTooLarge {
                return (.redirect(to: next), false)
            }
            return (.redirect(to: next), head.persistent && buffer.available == 0)
        }
        let body = try readBody(fd, head.framing, limit: configuration.maxBodyBytes, until: deadline)
        return (.response(status: head.status, body: body), head.persistent && buffer.available == 0)
    }

    /// Reads heads until one that is not 1xx.
    private func readHead(_ fd: Int32) throws(HTTPFailure) -> HTTPResponseHead {
        var waitFirst = true
        while true {
            switch try HTTPResponseHead.parse(buffer.bytes, limit: SocketHTTPClient.headLimit) {
            case .incomplete:
                guard try buffer.fill(fd, until: request.deadline, waitFirst: waitFirst, atMost: SocketHTTPClient.headLimit + 4096) else {
                    throw SocketIO.lost
                }
                waitFirst = false
            case let .complete(head, consumed):
                buffer.consume(consumed)
                guard head.status >= 200 || head.status == 101 else { continue }
                guard head.status != 101 else { throw HTTPResponseHead.bad("unexpected 101 Switching Protocols") }
                return head
            }
        }
    }

    private func tooLarge(_ limit: Int) -> HTTPFailure {
        HTTPFailure(.bodyTooLarge, "response body larger than \(counted(limit, "byte"))")
    }

    private func readBody(_ fd: Int32, _ framing: HTTPResponseHead.Framing, limit: Int, until deadline: Deadline) throws(HTTPFailure) -> [UInt8] {
        switch framing {
        case .none:
            return []
        case let .length(length):
            guard length <= limit else { throw tooLarge(configuration.maxBodyBytes) }
            return try readBody(fd, length: length, until: deadline)
        case .chunked:
            return try readChunkedBody(fd, limit: limit, until: deadline)
        case .untilClose:
            var body: [UInt8] = []
            while true {
                guard buffer.available <= limit - body.count else { throw tooLarge(configuration.maxBodyBytes) }
                body.append(contentsOf: buffer.bytes)
                buffer.consume(buffer.available)
                guard try buffer.fill(fd, until: deadline) else { return body }
            }
        }
    }

    /// `length` bytes: those buffered, then straight from the socket into the body.
    private func readBody(_ fd: Int32, length: Int, until deadline: Deadline) throws(HTTPFailure) -> [UInt8] {
        var failure: HTTPFailure?
        let buffer = buffer
        let body = [UInt8](unsafeUninitializedCapacity: length) { storage, initialized in
            let buffered = min(buffer.available, length)
            if buffered > 0 {
                UnsafeMutableRawPointer(storage.baseAddress!).copyMemory(from: buffer.bytes.baseAddress!, byteCount: buffered)
                buffer.consume(buffered)
            }
            initialized = buffered
            while initialized < length {
                do throws(HTTPFailure) {
                    let count = try SocketIO.receive(fd, into: storage.baseAddress! + initialized, count: length - initialized, until: deadline)
                    guard count > 0 else {
                        throw HTTPFailure(.connectionLost, "connection lost after \(initialized) of \(counted(length, "byte"))")
                    }
                    buffer.received += count
                    initialized += count
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        return body
    }

    /// A chunked body (RFC 9112, 7.1): chunks up to the last one, then
    /// the trailer fields, which are ignored.
    private func readChunkedBody(_ fd: Int32, limit: Int, until deadline: Deadline) throws(HTTPFailure) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = try readLine(fd, until: deadline)
            var size = 0
            var digits = 0
            for byte in line {
                let value: Int
                switch byte {
                case 0x30...0x39: value = Int(byte - 0x30)
                case 0x41...0x46: value = Int(byte - 0x41 + 10)
                case 0x61...0x66: value = Int(byte - 0x61 + 10)
                case UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"): value = -1
                default: throw HTTPResponseHead.bad("malformed chunk size")
                }
                if value < 0 { break }
                digits += 1
                guard digits <= 15 else { throw HTTPResponseHead.bad("chunk size too large") }
                size = size << 4 | value
            }
            guard digits > 0 else { throw HTTPResponseHead.bad("malformed chunk size") }
            if size == 0 {
                var trailers = 0
                while true {
                    let trailer = try readLine(fd, until: deadline)
                    if trailer.isEmpty { return body }
                    trailers += trailer.count
                    guard trailers <= SocketHTTPClient.headLimit else { throw HTTPResponseHead.tooLarge(SocketHTTPClient.headLimit) }
                }
            }
            guard size <= limit - body.count else { throw tooLarge(configuration.maxBodyBytes) }
            body.reserveCapacity(body.count + size)
            var left = size
            while left > 0 {
                if buffer.available == 0 {
                    guard try buffer.fill(fd, until: deadline) else { throw SocketIO.lost }
                }
                let count = min(left, buffer.available)
                body.append(contentsOf: UnsafeBufferPointer(rebasing: buffer.bytes[..<count]))
                buffer.consume(count)
                left -= count
            }
            guard try readLine(fd, until: deadline).isEmpty else { throw HTTPResponseHead.bad("chunk longer than its size") }
        }
    }

    /// The next line of the buffer, without CR LF (or LF).
    private func readLine(_ fd: Int32, until deadline: Deadline) throws(HTTPFailure) -> [UInt8] {
        var searched = 0
        while true {
            let bytes = buffer.bytes
            if let newline = bytes[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > 0, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = Array(bytes[..<end])
                buffer.consume(newline + 1)
                return line
            }
            searched = bytes.count
            guard searched <= 4096 else { throw HTTPResponseHead.bad("chunk line too long") }
            guard try buffer.fill(fd, until: deadline) else { throw SocketIO.lost }
        }
    }
}

/// The bytes received and not yet consumed, in memory of its own; used by
/// one request's thread only.
private final class ReadBuffer {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var start = 0
    private var end = 0
    /// Bytes received since the last reset.
    var received = 0

    init(capacity: Int = 16 << 10) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deallocate()
    }

    var available: Int { end - start }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base + start, count: end - start) }

    func reset() {
        start = 0
        end = 0
        received = 0
    }

    func consume(_ count: Int) {
        start += count
        if start == end {
            start = 0
            end = 0
        }
    }

    /// Receives more bytes after those buffered, growing up to `atMost`
    /// bytes held; false at the end of the stream. With `waitFirst`, polls
    /// before reading (a response just asked for is rarely there yet).
    func fill(_ fd: Int32, until deadline: Deadline, waitFirst: Bool = false, atMost: Int = 64 << 10) throws(HTTPFailure) -> Bool {
        if end == capacity, start > 0 {
            memmove(base, base + start, end - start)
            end -= start
            start = 0
        }
        if end == capacity, capacity < atMost {
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: min(capacity * 2, atMost))
            grown.update(from: base, count: end)
            base.deallocate()
            base = grown
            capacity = min(capacity * 2, atMost)
        }
        guard end < capacity else { throw HTTPResponseHead.tooLarge(SocketHTTPClient.headLimit) }
        if waitFirst { try SocketIO.wait(fd, for: Int32(POLLIN), until: deadline) }
        let count = try SocketIO.receive(fd, into: base + end, count: capacity - end, until: deadline)
        end += count
        received += count
        return count > 0
    }
}
