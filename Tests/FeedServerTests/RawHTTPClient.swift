import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A response as read off the wire by `RawHTTPConnection`.
struct RawHTTPResponse {
    var status: Int
    var statusLine: String
    /// Header fields with lower-cased names, in order.
    var fields: [(name: String, value: String)]
    var body: [UInt8]

    func field(_ name: String) -> String? { fields.first { $0.name == name.lowercased() }?.value }
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] }
    var items: [[String: Any]]? { json?["items"] as? [[String: Any]] }
}

/// A deliberately low-level HTTP/1.1 client on a POSIX socket, so tests see
/// exactly what the server sends: framing, resets and early closes included.
final class RawHTTPConnection {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var lastError: Int32 = 0

    /// Connects to 127.0.0.1:`port`; reads time out after `timeout` seconds.
    init?(port: UInt16, timeout: Int = 5) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            lastError = errno
            Glibc.close(fd)
            return nil
        }
    }

    deinit { Glibc.close(fd) }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// Sends `GET target` (or another method) with a Host field.
    @discardableResult
    func request(_ target: String, method: String = "GET", fields: [String] = []) -> Bool {
        send("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n")
    }

    /// Half-closes: the server sees the end of the request stream.
    func finishSending() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads more bytes; false at end of stream, on error or timeout.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer += chunk[..<count]
            return true
        }
        lastError = count < 0 ? errno : 0
        return false
    }

    /// Reads until `delimiter` has arrived; returns everything up to and including it.
    func read(until delimiter: String) -> [UInt8]? {
        let pattern = Array(delimiter.utf8)
        while true {
            if let range = firstRange(of: pattern) {
                defer { buffer.removeFirst(range.upperBound) }
                return Array(buffer[..<range.upperBound])
            }
            guard fill() else { return nil }
        }
    }

    /// Reads one whole response framed by its `Content-Length` (none for
    /// HEAD and statuses without a body); nil when the stream ends first.
    func readResponse(toHead: Bool = false) -> RawHTTPResponse? {
        guard let headBytes = read(until: "\r\n\r\n") else { return nil }
        let lines = String(decoding: headBytes, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard let statusLine = lines.first else { return nil }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else { return nil }
        let fields = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = RawHTTPResponse(status: status, statusLine: statusLine, fields: fields, body: [])
        guard !toHead, let length = response.field("Content-Length").flatMap(Int.init) else { return response }
        while buffer.count < length { guard fill() else { return nil } }
        response.body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return response
    }

    /// Everything until the server closes (or an error such as a reset, see `lastError`).
    func readToEnd() -> [UInt8] {
        while fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// True when the server has closed the connection (no further bytes).
    func isClosedByServer() -> Bool { buffer.isEmpty && !fill() && lastError == 0 }

    private func firstRange(of pattern: [UInt8]) -> Range<Int>? {
        guard buffer.count >= pattern.count else { return nil }
        for start in 0...(buffer.count - pattern.count) where buffer[start..<(start + pattern.count)].elementsEqual(pattern) {
            return start..<(start + pattern.count)
        }
        return nil
    }
}

extension RawHTTPConnection {
    /// One request on a fresh connection with `Connection: close`.
    static func get(_ target: String, port: UInt16, method: String = "GET", fields: [String] = []) -> RawHTTPResponse? {
        guard let connection = RawHTTPConnection(port: port) else { return nil }
        connection.request(target, method: method, fields: fields + ["Connection: close"])
        return connection.readResponse(toHead: method == "HEAD")
    }
}
