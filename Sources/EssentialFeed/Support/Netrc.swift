/// Credentials by host from a `.netrc` file, read as curl, git and wget
/// read it, so that a crontab or a URL need not hold a password.
///
/// Tokens are separated by blanks and line breaks: `machine NAME`, then
/// `login NAME` and `password SECRET` (`account` is read and ignored) until
/// the next `machine` or `default`; `default` applies to every other host.
/// `macdef NAME` skips a macro up to the next empty line; `#` starts a
/// comment where a token would. A token may be quoted (`"a b"`, with `\"`
/// and `\\` inside). The first entry for a host counts.
public struct Netrc: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public var login: String
        public var password: String

        public init(login: String, password: String) {
            self.login = login
            self.password = password
        }
    }

    public private(set) var machines: [(host: String, entry: Entry)] = []
    public private(set) var fallback: Entry?

    public static func == (a: Netrc, b: Netrc) -> Bool {
        a.fallback == b.fallback && a.machines.elementsEqual(b.machines) { $0.host == $1.host && $0.entry == $1.entry }
    }

    public init(parsing text: String) {
        var tokens = Tokens(Array(text.utf8))
        var current: (host: String?, login: String, password: String)?
        func close() {
            guard let entry = current else { return }
            current = nil
            let value = Entry(login: entry.login, password: entry.password)
            if let host = entry.host {
                if !machines.contains(where: { $0.host == host }) { machines.append((host, value)) }
            } else if fallback == nil {
                fallback = value
            }
        }
        while let token = tokens.next() {
            switch token {
            case "machine":
                close()
                current = (tokens.next()?.lowercased() ?? "", "", "")
            case "default":
                close()
                current = (nil, "", "")
            case "login":
                let value = tokens.next() ?? ""
                current?.login = value
            case "password":
                let value = tokens.next() ?? ""
                current?.password = value
            case "account":
                _ = tokens.next()
            case "macdef":
                close()
                _ = tokens.next()
                tokens.skipMacro()
            default:
                break
            }
        }
        close()
    }

    /// The login and password for `host` (case-insensitive), else the default entry's.
    public func credentials(forHost host: String) -> Entry? {
        let host = host.lowercased()
        return machines.first { $0.host == host }?.entry ?? fallback
    }

    /// The `Authorization` field's value for `host`: `Basic` and the login
    /// and password in base64, or nil when the file has none for it.
    public func authorization(forHost host: String) -> String? {
        guard let entry = credentials(forHost: host), !entry.login.isEmpty || !entry.password.isEmpty else { return nil }
        return "Basic " + Base64.encode(Array("\(entry.login):\(entry.password)".utf8))
    }

    /// The file to read: `$NETRC`, else `$HOME/.netrc`; nil when neither is set.
    public static func path(environment: [String: String]) -> String? {
        if let path = environment["NETRC"], !path.isEmpty { return path }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home.hasSuffix("/") ? home + ".netrc" : home + "/.netrc"
    }

    private struct Tokens {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

        mutating func next() -> String? {
            while index < bytes.count {
                while index < bytes.count, Self.isBlank(bytes[index]) { index += 1 }
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: "#") {
                    while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                    continue
                }
                var token: [UInt8] = []
                if bytes[index] == UInt8(ascii: "\"") {
                    index += 1
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                        if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                        token.append(bytes[index])
                        index += 1
                    }
                    index += 1
                } else {
                    while index < bytes.count, !Self.isBlank(bytes[index]) {
                        token.append(bytes[index])
                        index += 1
                    }
                }
                return String(decoding: token, as: UTF8.self)
            }
            return nil
        }

        /// Skips a macro definition: up to and including the next empty line.
        mutating func skipMacro() {
            while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            while index < bytes.count {
                index += 1
                if index < bytes.count, bytes[index] == 0x0A { index += 1; return }
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            }
        }
    }
}
