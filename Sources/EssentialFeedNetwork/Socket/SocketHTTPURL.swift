#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An `http://` URL taken apart for one HTTP/1.1 request, and the
/// reference resolution of RFC 3986 (section 5) that redirects need.
///
/// Only what a GET needs is kept: the host to connect to, the port, the
/// request target (path and query, in origin form; the fragment is never
/// sent), the `Host` field and, when the URL carries `user:password@`,
/// a `Basic` `Authorization` field.
struct SocketHTTPURL: Equatable, Sendable {
    /// The URL as a string: as given, or as resolved from a redirect.
    let text: String
    /// The host without brackets, lower-cased: a name, an IPv4 or an IPv6 address.
    let host: String
    let port: Int
    /// The request target: the path (at least `/`) and `?query`, with
    /// spaces, controls and bytes beyond ASCII percent-encoded.
    let target: String
    /// The value of the `Host` field: the host (IPv6 in brackets), and the
    /// port unless it is 80.
    let hostField: String
    /// The value of an `Authorization` field for `user:password@`, if any.
    let authorization: String?

    /// The connection pool's key: one pool of connections per host and port.
    var key: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether the host is an address rather than a name to resolve.
    var hostIsNumeric: Bool {
        host.contains(":") || (!host.isEmpty && host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || ($0 >= 0x30 && $0 <= 0x39) })
    }

    /// Parses an absolute `http://` URL; nil when it is not one this client can send.
    init?(_ text: String) {
        let reference = URIReference(text)
        guard let scheme = reference.scheme, scheme.lowercased() == "http" else { return nil }
        self.init(reference, text: text)
    }

    private init?(_ reference: URIReference, text: String) {
        guard let authority = reference.authority else { return nil }
        var hostPort = authority[...]
        var authorization: String?
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            let userinfo = authority[..<at]
            hostPort = authority[(at + 1)...]
            let decoded = Self.percentDecoded(userinfo)
            authorization = "Basic " + Data(decoded).base64EncodedString()
        }
        var host: ArraySlice<UInt8>
        var portText: ArraySlice<UInt8> = []
        if hostPort.first == UInt8(ascii: "[") {
            guard let close = hostPort.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = hostPort[(hostPort.startIndex + 1)..<close]
            let rest = hostPort[(close + 1)...]
            if let colon = rest.first {
                guard colon == UInt8(ascii: ":") else { return nil }
                portText = rest.dropFirst()
            }
            // An IPv6 address (or IPvFuture): hex digits, colons, dots; a zone ID is not supported.
            guard !host.isEmpty, host.allSatisfy({ Self.isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                return nil
            }
        } else {
            if let colon = hostPort.lastIndex(of: UInt8(ascii: ":")) {
                host = hostPort[..<colon]
                portText = hostPort[(colon + 1)...]
            } else {
                host = hostPort
            }
            guard !host.isEmpty, host.allSatisfy(Self.isRegNameByte) else { return nil }
        }
        var port = 80
        if !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let number = Int(String(decoding: portText, as: UTF8.self)), (1...65535).contains(number) else { return nil }
            port = number
        }
        let hostText = String(decoding: host, as: UTF8.self).lowercased()
        self.text = text
        self.host = hostText
        self.port = port
        let bracketed = hostText.contains(":") ? "[\(hostText)]" : hostText
        hostField = port == 80 ? bracketed : "\(bracketed):\(port)"
        self.authorization = authorization
        var target = Self.encoded(reference.path.isEmpty ? [UInt8(ascii: "/")] : reference.path)
        if let query = reference.query {
            target += "?" + Self.encoded(query)
        }
        self.target = target
    }

    /// Resolves a `Location` against this URL (RFC 3986, 5.2): the URL
    /// redirected to, as a string; nil when it is not a URL at all.
    func resolving(_ location: String) -> String? {
        URIReference(text).resolving(URIReference(location))?.text
    }

    /// Whether `text` is an absolute URL of scheme `scheme` (case-insensitive).
    static func hasScheme(_ scheme: String, _ text: String) -> Bool {
        URIReference(text).scheme?.lowercased() == scheme
    }

    // MARK: Bytes

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
    }

    /// A byte of a host name or IPv4 address: unreserved, percent or sub-delims (RFC 3986).
    private static func isRegNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "%"): true
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="): true
        default: false
        }
    }

    /// The bytes with spaces, controls, `"<>\^`{|}` and bytes beyond ASCII
    /// percent-encoded: what may not appear in a request line as it is.
    private static func encoded(_ bytes: ArraySlice<UInt8>) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case 0...0x20, 0x7F...0xFF, UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"),
                 UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default:
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        func value(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
               let high = value(bytes[index + 1]), let low = value(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }
}
