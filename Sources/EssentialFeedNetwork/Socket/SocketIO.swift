import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Non-blocking socket calls that wait with `poll` until a deadline.
enum SocketIO {
    static let lost = HTTPFailure(.connectionLost, "connection lost")

    /// Waits until `fd` is ready for `events`, or throws at the deadline.
    static func wait(_ fd: Int32, for events: Int32, until deadline: Deadline) throws(HTTPFailure) {
        while true {
            var entry = pollfd(fd: fd, events: Int16(events), revents: 0)
            let ready = poll(&entry, 1, try deadline.remainingMilliseconds())
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw HTTPFailure(.other, "poll: \(String(cString: strerror(errno)))") }
        }
    }

    /// Sends every byte. A connection closed or reset is `connectionLost`.
    static func send(_ fd: Int32, _ bytes: [UInt8], until deadline: Deadline) throws(HTTPFailure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                offset += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(fd, for: Int32(POLLOUT), until: deadline)
            default: throw lost
            }
        }
    }

    /// Reads at most `count` bytes into `buffer`; 0 at the end of the stream.
    /// A reset is `connectionLost`.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, until deadline: Deadline) throws(HTTPFailure) -> Int {
        while true {
            let received = recv(fd, buffer, count, 0)
            if received >= 0 { return received }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(fd, for: Int32(POLLIN), until: deadline)
            default: throw lost
            }
        }
    }

    /// Resolves `url`'s host (getaddrinfo) and connects to its first address
    /// that accepts; `attach` is given each socket before it connects (so
    /// that a cancellation can shut it down) and returns false when the
    /// request is already decided.
    static func connect(to url: SocketHTTPURL, until deadline: Deadline, attach: (Int32) -> Bool, detach: (Int32) -> Void) throws(HTTPFailure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = url.hostIsNumeric ? AI_NUMERICHOST | AI_NUMERICSERV : AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        errno = 0
        let status = getaddrinfo(url.host, String(url.port), &hints, &list)
        guard status == 0, let list else {
            // The resolver could not open its files (/etc/hosts, …): no descriptor left, not a name unknown.
            if let shortage = HTTPFailure.outOfDescriptors(errno, "cannot resolve host") { throw shortage }
            if status == EAI_MEMORY || status == EAI_SYSTEM {
                throw HTTPFailure(.other, "cannot resolve host: \(String(cString: gai_strerror(status)))")
            }
            throw HTTPFailure(.cannotResolveHost, "cannot resolve host")
        }
        defer { freeaddrinfo(list) }
        var failure = HTTPFailure(.cannotResolveHost, "cannot resolve host")
        var next: UnsafeMutablePointer<addrinfo>? = list
        while let info = next {
            next = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                if let shortage = HTTPFailure.outOfDescriptors(errno, "socket") { throw shortage }
                failure = HTTPFailure(.other, "socket: \(String(cString: strerror(errno)))")
                continue
            }
            guard attach(fd) else {
                close(fd)
                throw HTTPFailure(.cancelled, "cancelled")
            }
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            do throws(HTTPFailure) {
                try connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen, until: deadline)
                return fd
            } catch {
                detach(fd)
                close(fd)
                // Out of time: no other address is tried.
                if error.reason == .timedOut { throw error }
                failure = error
            }
        }
        throw failure
    }

    private static func connect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: socklen_t, until deadline: Deadline) throws(HTTPFailure) {
        var result = Glibc.connect(fd, address, length)
        while result != 0, errno == EINTR { result = Glibc.connect(fd, address, length) }
        var code: Int32 = 0
        if result != 0 {
            guard errno == EINPROGRESS || errno == EALREADY else { throw connectFailure(errno) }
            try wait(fd, for: Int32(POLLOUT), until: deadline)
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { throw connectFailure(errno) }
        }
        if code != 0 { throw connectFailure(code) }
    }

    private static func connectFailure(_ code: Int32) -> HTTPFailure {
        switch code {
        case ECONNREFUSED: HTTPFailure(.refused, "connection refused")
        case ECONNRESET, EPIPE, ECONNABORTED, ESHUTDOWN: lost
        default: HTTPFailure(.other, "cannot connect: \(String(cString: strerror(code)))")
        }
    }
}
