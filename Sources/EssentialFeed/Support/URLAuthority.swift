#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The authority of a URL (`user:password@host:port`), split as libcurl
/// splits it: the user information up to the last `@`, then the host (an
/// IPv6 literal with its brackets), then what follows it (`:port`). The one
/// reading of an authority for the URL check, messages and proxies.
///
/// Read as UTF-8 bytes, as libcurl reads it: every delimiter is ASCII, so
/// each part is a slice of the text at byte boundaries. Read as characters
/// (grapheme clusters), the check of every URL feed-fetch reads took 7% of
/// its instructions for 1,000 small files (callgrind), more than all the
/// JSON it wrote.
public struct URLAuthority {
    /// Without its `@`; nil when there is none.
    public let userInfo: Substring?
    /// As written: `[::1]` for an IPv6 literal.
    public let host: Substring
    /// What follows the host: empty, or `:` and the port (anything else is no authority).
    public let afterHost: Substring

    public init(_ authority: Substring) {
        let bytes = authority.utf8
        var hostStart = bytes.startIndex
        if let at = bytes.lastIndex(of: UInt8(ascii: "@")) {
            userInfo = authority[bytes.startIndex..<at]
            hostStart = bytes.index(after: at)
        } else {
            userInfo = nil
        }
        let rest = bytes[hostStart...]
        let hostEnd: String.Index
        if rest.first == UInt8(ascii: "[") {
            hostEnd = rest.firstIndex(of: UInt8(ascii: "]")).map { bytes.index(after: $0) } ?? bytes.endIndex
        } else {
            hostEnd = rest.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
        }
        host = authority[hostStart..<hostEnd]
        afterHost = authority[hostEnd..<bytes.endIndex]
    }

    /// The authority of `url`: what follows its `://` (or all of it, with
    /// none) up to `/`, `?` or `#`.
    public static func text(of url: Substring) -> Substring {
        let bytes = url.utf8
        var start = bytes.startIndex
        var index = bytes.startIndex
        while let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")) {
            let slashes = bytes[bytes.index(after: colon)...].prefix(2)
            if slashes.elementsEqual("//".utf8) {
                start = slashes.endIndex
                break
            }
            index = bytes.index(after: colon)
        }
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        return url[start..<end]
    }

    /// The host without the brackets of an IPv6 literal.
    public var hostName: Substring {
        let bytes = host.utf8
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else { return host }
        return host[bytes.index(after: bytes.startIndex)..<bytes.index(before: bytes.endIndex)]
    }

    /// The port, when the authority names one (`:` and digits, or `:` alone).
    public var port: Substring? {
        let bytes = afterHost.utf8
        guard bytes.first == UInt8(ascii: ":") else { return nil }
        return afterHost[bytes.index(after: bytes.startIndex)...]
    }

    /// Whether a client can connect with it: user information without `@`,
    /// if any; a host, a name or an IPv6 address in brackets (hex
    /// digits, colons, dots, a `%` zone of 1 to 15 bytes); a port of at most
    /// 65535, if any (none after the colon: the scheme's). What fails here
    /// would fail as "not a valid URL" once sent, told as a connection that
    /// failed. A name is read as libcurl reads it: percent-decoded, then
    /// none of the bytes it refuses in a host name (a server's image at
    /// `cdn!example` was a connectivity error on every run: found by the
    /// hunt). A backslash in the user information is sent as typed, as
    /// libcurl sends it (a password may hold one).
    public var isUsable: Bool {
        let host = host.utf8
        guard !(userInfo?.utf8.contains(UInt8(ascii: "@")) ?? false),
              !host.isEmpty, afterHost.isEmpty || port != nil else { return false }
        if host.first == UInt8(ascii: "[") {
            guard host.count >= 2, host.last == UInt8(ascii: "]") else { return false }
            let address = hostName.utf8.prefix { $0 != UInt8(ascii: "%") }
            func isAddressByte(_ byte: UInt8) -> Bool {
                byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f"))
            }
            guard address.contains(UInt8(ascii: ":")), address.allSatisfy(isAddressByte) else { return false }
            // An address as inet_pton reads one, as libcurl does (`[1:2]` failed once sent).
            var parsed = in6_addr()
            guard inet_pton(AF_INET6, String(decoding: address, as: UTF8.self), &parsed) == 1 else { return false }
            // A zone (`%25eth0`, or `%eth0`): 1 to 15 bytes, as libcurl keeps it.
            var zone = hostName.utf8.drop { $0 != UInt8(ascii: "%") }.dropFirst()
            if zone.starts(with: "25".utf8), zone.count > 2 { zone = zone.dropFirst(2) }
            if hostName.utf8.contains(UInt8(ascii: "%")), !(1...15).contains(zone.count) { return false }
        } else if !Self.isHostName(host) {
            return false
        }
        var number = 0
        for digit in port?.utf8 ?? afterHost.utf8[afterHost.utf8.endIndex...] {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return false }
            number = number * 10 + Int(digit - UInt8(ascii: "0"))
            if number > 65_535 { return false }
        }
        return true
    }

    /// The bytes libcurl refuses in a host name, once percent-decoded (its
    /// `hostname_check`: ` /:#?!@{}[]\\$'"^`*<>=;,+&()%`), with the controls
    /// below 0x20 its decoding refuses.
    private static func isRefusedInHostName(_ byte: UInt8) -> Bool {
        switch byte {
        case 0...0x2C, 0x2F, 0x3A...0x40, 0x5B...0x5E, 0x60, 0x7B, 0x7D: true
        default: false
        }
    }

    private static func isHostName(_ host: Substring.UTF8View) -> Bool {
        // Decoded (made anew) only when it holds a `%`, which few do.
        guard host.contains(UInt8(ascii: "%")) else { return !host.contains(where: isRefusedInHostName) }
        return !percentDecoded(host).contains(where: isRefusedInHostName)
    }

    /// `bytes` with each `%XY` decoded (a `%` not followed by two hex
    /// digits kept, as libcurl and libpq keep it).
    public static func percentDecoded<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            bytes.formIndex(after: &index)
            if byte == 0x25, index < bytes.endIndex, let high = hex(bytes[index]) {
                let next = bytes.index(after: index)
                if next < bytes.endIndex, let low = hex(bytes[next]) {
                    out.append(high << 4 | low)
                    index = bytes.index(after: next)
                    continue
                }
            }
            out.append(byte)
        }
        return out
    }
}
