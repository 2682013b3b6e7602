/// The authority of a URL (`user:password@host:port`), split as libcurl
/// splits it: the user information up to the last `@`, then the host (an
/// IPv6 literal with its brackets), then what follows it (`:port`). The one
/// reading of an authority for the URL check, messages and proxies.
public struct URLAuthority {
    /// Without its `@`; nil when there is none.
    public let userInfo: Substring?
    /// As written: `[::1]` for an IPv6 literal.
    public let host: Substring
    /// What follows the host: empty, or `:` and the port (anything else is no authority).
    public let afterHost: Substring

    public init(_ authority: Substring) {
        var rest = authority
        if let at = authority.lastIndex(of: "@") {
            userInfo = authority[..<at]
            rest = authority[authority.index(after: at)...]
        } else {
            userInfo = nil
        }
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = rest[...close]
        } else if rest.hasPrefix("[") {
            host = rest
        } else {
            host = rest.prefix { $0 != ":" }
        }
        afterHost = rest[host.endIndex...]
    }

    /// The authority of `url`: what follows its `://` (or all of it, with
    /// none) up to `/`, `?` or `#`.
    public static func text(of url: Substring) -> Substring {
        let start = url.firstRange(of: "://")?.upperBound ?? url.startIndex
        return url[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    }

    /// The host without the brackets of an IPv6 literal.
    public var hostName: Substring {
        host.hasPrefix("[") && host.hasSuffix("]") && host.count >= 2 ? host.dropFirst().dropLast() : host
    }

    /// The port, when the authority names one (`:` and digits, or `:` alone).
    public var port: Substring? { afterHost.first == ":" ? afterHost.dropFirst() : nil }

    /// Whether a client can connect with it: user information without `@`,
    /// if any; a host, a name or an IPv6 address in brackets (hex digits,
    /// colons, dots, a `%` zone); a port of at most 65535, if any (none
    /// after the colon: the scheme's). What fails here would fail as "not a
    /// valid URL" once sent, told as a connection that failed.
    public var isUsable: Bool {
        guard !(userInfo?.contains("@") ?? false), !host.isEmpty, afterHost.isEmpty || port != nil else { return false }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count >= 2 else { return false }
            let address = hostName.prefix { $0 != "%" }
            guard address.contains(":"), address.allSatisfy({ $0 == ":" || $0 == "." || ($0.isASCII && $0.isHexDigit) }) else { return false }
        } else if host.contains("[") || host.contains("]") {
            return false
        }
        var number = 0
        for digit in port ?? "" {
            guard let value = digit.wholeNumberValue, digit.isASCII else { return false }
            number = number * 10 + value
            if number > 65_535 { return false }
        }
        return true
    }
}
