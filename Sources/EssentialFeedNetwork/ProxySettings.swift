import EssentialFeed
#if canImport(Glibc)
import Glibc
#endif

/// The proxies of the environment, read as curl reads them: `http_proxy`
/// (lower case only: `HTTP_PROXY` may come from a CGI request's `Proxy`
/// header), `https_proxy` or `HTTPS_PROXY`, then `all_proxy` or
/// `ALL_PROXY` for either scheme; `no_proxy` or `NO_PROXY` lists the hosts
/// reached directly (`*` alone for all; a name matches itself and its
/// subdomains, with or without a leading dot; an IP address matches
/// itself, and `ADDRESS/BITS` the IPv4 addresses of that block, as
/// libcurl 7.88 reads it), case-insensitively. The lower-case name wins; an empty value
/// counts as unset. Pure: the caller hands over the environment.
public struct ProxySettings: Sendable, Equatable {
    /// The proxy URL for http:// requests, if any.
    public let http: String?
    /// The proxy URL for https:// requests, if any.
    public let https: String?
    /// The hosts reached directly, as given.
    public let noProxy: String?

    /// No proxy at all.
    public static let none = ProxySettings(environment: [:])

    public init(environment: [String: String]) {
        func value(_ names: String...) -> String? {
            for name in names { if let value = environment[name], !value.isEmpty { return value } }
            return nil
        }
        let all = value("all_proxy", "ALL_PROXY")
        http = value("http_proxy") ?? all
        https = value("https_proxy", "HTTPS_PROXY") ?? all
        noProxy = value("no_proxy", "NO_PROXY")
    }

    /// The proxy URL for a request of `scheme` to `host`, or nil to go direct.
    public func proxy(scheme: String, host: String) -> String? {
        let proxy: String?
        switch scheme.lowercased() {
        case "http": proxy = http
        case "https": proxy = https
        default: proxy = nil
        }
        guard let proxy, !bypasses(host: host) else { return nil }
        return proxy
    }

    /// Whether `no_proxy` sends `host` direct.
    public func bypasses(host: String) -> Bool {
        guard let noProxy else { return false }
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        // As libcurl 7.88 reads it: `*` alone is every host; entries are
        // separated by commas and blanks.
        if noProxy == "*" { return true }
        for item in noProxy.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            var entry = item.lowercased()
            if entry.hasPrefix("["), entry.hasSuffix("]") { entry = String(entry.dropFirst().dropLast()) }
            while entry.hasPrefix(".") { entry.removeFirst() }
            if entry.hasSuffix(".") { entry.removeLast() }
            guard !entry.isEmpty else { continue }
            if host == entry { return true }
            if let slash = entry.firstIndex(of: "/") {
                if Self.address(host, isIn: String(entry[..<slash]), bits: entry[entry.index(after: slash)...]) { return true }
                continue
            }
            // A name matches its subdomains; an address only itself.
            let isAddress = entry.contains(":") || entry.allSatisfy { $0 == "." || $0.isNumber }
            if !isAddress, host.hasSuffix("." + entry) { return true }
        }
        return false
    }
}

extension ProxySettings {
    /// Whether the IPv4 address `host` lies in the block of `network`'s
    /// first `bits` bits, as libcurl 7.88 matches it: 0 bits, the address
    /// itself; an IPv6 host (its brackets taken off before libcurl looks)
    /// is matched by name only.
    static func address(_ host: String, isIn network: String, bits: Substring) -> Bool {
        guard var count = Int(bits), (0...32).contains(count) else { return false }
        if count == 0 { count = 32 }
        var hostBytes = [UInt8](repeating: 0, count: 4), networkBytes = [UInt8](repeating: 0, count: 4)
        guard inet_pton(AF_INET, host, &hostBytes) == 1, inet_pton(AF_INET, network, &networkBytes) == 1 else { return false }
        for bit in 0..<count where (hostBytes[bit / 8] ^ networkBytes[bit / 8]) & UInt8(0x80 >> (bit % 8)) != 0 { return false }
        return true
    }
}

extension ProxySettings {
    /// A proxy URL of the environment as a message names it: its host and
    /// port (curl's 1080 when it has none), never its user or password.
    public static func shown(_ proxy: String) -> String {
        let authority = URLAuthority(URLAuthority.text(of: proxy[...]))
        let hostPort = authority.host + authority.afterHost
        return authority.port != nil ? String(hostPort) : hostPort + ":1080"
    }
}
