import EssentialFeed
import Dispatch
import Synchronization

/// The work of one request, on a worker thread: connections, the request,
/// the response, redirects.
struct SocketExchange {
    let request: SocketHTTPRequest
    let configuration: SocketHTTPClient.Configuration
    let pool: ConnectionPool
    let fallback: (any HTTPClient)?
    let buffer = ReadBuffer()

    private static let redirectStatuses: Set<Int> = [301, 302, 303, 305, 307, 308]

    /// What one request on the wire came to.
    private enum Outcome {
        case response(HTTPResponseHead, body: [UInt8], spilled: SpilledBody?)
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
                case let .response(head, body, spilled):
                    return request.finish(.success(HTTPResult(
                        status: head.status, body: body, finalURL: redirects > 0 ? text : nil,
                        retryAfter: head.retryAfter, etag: head.etag, lastModified: head.lastModified, spilled: spilled)))
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
        var proxy: SocketProxy?
        if let proxyURL = configuration.proxies.proxy(scheme: "http", host: url.host) {
            proxy = try SocketProxy.parse(proxyURL).get()
        }
        // Connections to a proxy are pooled apart from those to its origins.
        let server = proxy?.endpoint ?? url
        let key = proxy.map { "proxy " + $0.shown } ?? url.key
        let message = requestBytes(url, proxy: proxy)
        var fresh = false
        while true {
            let fd: Int32
            let reused: Bool
            switch try pool.lease(key, fresh: fresh, until: deadline, isDecided: { request.isDecided }) {
            case let .idle(idle):
                guard request.attach(idle) else {
                    pool.giveBack(key, idle, reusable: true)
                    throw HTTPFailure(.cancelled, "cancelled")
                }
                fd = idle
                reused = true
            case .fresh:
                if !server.hostIsNumeric { request.watch() }
                do throws(HTTPFailure) {
                    do throws(HTTPFailure) {
                        fd = try SocketIO.connect(to: server, until: deadline, attach: request.attach, detach: { _ in request.detach() })
                    } catch where error.reason == .outOfDescriptors && pool.closeIdle() > 0 {
                        // Idle keep-alive connections hold descriptors a new one needs: closed, then once more.
                        fd = try SocketIO.connect(to: server, until: deadline, attach: request.attach, detach: { _ in request.detach() })
                    }
                } catch {
                    pool.giveBack(key, -1, reusable: false)
                    if let proxy, error.reason != .cancelled { throw HTTPFailure(error.reason, "proxy \(proxy.shown): \(error.message)") }
                    throw error
                }
                reused = false
            }
            buffer.reset()
            do throws(HTTPFailure) {
                try SocketIO.send(fd, message, until: deadline)
                let (outcome, reusable) = try respond(fd, url, redirects: redirects)
                pool.giveBack(key, fd, reusable: request.detach() && reusable)
                return outcome
            } catch {
                let undecided = request.detach()
                pool.giveBack(key, fd, reusable: false)
                // An idle connection the server closed meanwhile: once more on a new one.
                if reused, undecided, buffer.received == 0, error.reason == .connectionLost {
                    fresh = true
                    continue
                }
                throw error
            }
        }
    }

    /// The request head: origin form, or absolute form through a proxy.
    private func requestBytes(_ url: SocketHTTPURL, proxy: SocketProxy?) -> [UInt8] {
        let target = proxy == nil ? url.target : "http://\(url.hostField)\(url.target)"
        var text = "GET \(target) HTTP/1.1\r\nHost: \(url.hostField)\r\nUser-Agent: \(configuration.userAgent)\r\n"
        text += "Accept: \(RequestHeaders.accept)\r\nAccept-Encoding: \(RequestHeaders.acceptEncoding)\r\n"
        if let authorization = url.authorization ?? configuration.netrc?.authorization(forHost: url.host) {
            text += "Authorization: \(authorization)\r\n"
        }
        for field in request.asked.conditionFields { text += field + "\r\n" }
        if let authorization = proxy?.authorization {
            text += "Proxy-Authorization: \(authorization)\r\n"
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
                _ = try readBody(fd, head, limit: min(configuration.maxBodyBytes, 1 << 20), spilling: nil, until: deadline)
            } catch where error.reason == .bodyTooLarge {
                return (.redirect(to: next), false)
            }
            return (.redirect(to: next), head.persistent && buffer.available == 0)
        }
        let body = try readBody(fd, head, limit: configuration.maxBodyBytes, spilling: configuration.spilling, until: deadline)
        return (.response(head, body: body.bytes, spilled: body.spilled), head.persistent && buffer.available == 0)
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

    /// Reads the body framed by `framing`, decoding its content coding, if
    /// any, as it arrives.
    private func readBody(
        _ fd: Int32, _ head: HTTPResponseHead, limit: Int, spilling: BodySpilling?, until deadline: Deadline
    ) throws(HTTPFailure) -> (bytes: [UInt8], spilled: SpilledBody?) {
        let body = ResponseBody(limit: limit, reportedLimit: configuration.maxBodyBytes, coding: head.contentCoding, spilling: spilling)
        switch head.framing {
        case .none:
            break
        case let .length(length):
            guard length <= limit else { throw ResponseBody.tooLarge(configuration.maxBodyBytes) }
            if body.isPlain, body.staysInMemory(length) {
                return (try readBody(fd, length: length, until: deadline), nil)
            }
            var left = length
            let buffered = min(left, buffer.available)
            if buffered > 0 {
                try body.write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer.bytes)[..<buffered]))
                buffer.consume(buffered)
                left -= buffered
            }
            // The rest straight from the socket, in large reads (a big body
            // goes to the spill: few system calls per megabyte).
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: min(max(left, 1), 256 << 10), alignment: 16)
            defer { scratch.deallocate() }
            while left > 0 {
                let count = try SocketIO.receive(fd, into: scratch.baseAddress!, count: min(left, scratch.count), until: deadline)
                guard count > 0 else {
                    throw HTTPFailure(.connectionLost, "connection lost after \(length - left) of \(counted(length, "byte"))")
                }
                buffer.received += count
                try body.write(UnsafeRawBufferPointer(rebasing: scratch[..<count]))
                left -= count
            }
        case .chunked:
            try readChunkedBody(fd, into: body, until: deadline)
        case .untilClose:
            repeat {
                try body.write(UnsafeRawBufferPointer(buffer.bytes))
                buffer.consume(buffer.available)
            } while try buffer.fill(fd, until: deadline)
        }
        return try body.finish()
    }

    /// `length` bytes as sent: those buffered, then straight from the socket into the body.
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
    private func readChunkedBody(_ fd: Int32, into body: ResponseBody, until deadline: Deadline) throws(HTTPFailure) {
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
                    if trailer.isEmpty { return }
                    trailers += trailer.count
                    guard trailers <= SocketHTTPClient.headLimit else { throw HTTPResponseHead.tooLarge(SocketHTTPClient.headLimit) }
                }
            }
            if body.isPlain { try body.reserve(size) }
            var left = size
            while left > 0 {
                if buffer.available == 0 {
                    guard try buffer.fill(fd, until: deadline) else { throw SocketIO.lost }
                }
                let count = min(left, buffer.available)
                try body.write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer.bytes)[..<count]))
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
