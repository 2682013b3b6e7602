import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Choosing and opening a store by path.
public enum FeedStores {
    /// Seconds a store waits for another process's lock before failing with `.busy`.
    public static let defaultWait: Double = 5

    public enum Kind: String, Sendable {
        case sqlite
        case json
    }

    /// A path ending in `.json` (any letter case) selects the JSON-file store;
    /// every other path the SQLite store.
    public static func kind(forPath path: String) -> Kind {
        path.lowercased().hasSuffix(".json") ? .json : .sqlite
    }

    /// The store at `path`, waiting up to `wait` seconds for other processes'
    /// locks. Opening creates nothing: the first write creates the missing
    /// directories (0700) and the file (0600); reads of a missing store find
    /// it empty. Fails with `.usage` for an empty path and `.store` when the
    /// path names a directory or anything else that is not a regular file.
    /// A file that is not a store of this toolkit's (by its SQLite header and
    /// `application_id`, or the JSON document's `format`) fails every
    /// operation and is never written. A URL (`scheme://…`, as a database's
    /// connection URI) is not a path: `.usage`, its password hidden, and
    /// nothing is created.
    public static func open(path: String, wait: Double = defaultWait, temporaryFiles: (any TemporaryFiles)? = nil) throws(ErrorRecord) -> any FeedStore {
        guard !path.isEmpty else { throw ErrorRecord(.usage, "the store path is empty") }
        if isURL(path) { throw notAStore(path) }
        if path.hasSuffix("/") { throw ErrorRecord(.store, "cannot open \(path): is a directory") }
        if let st = try POSIXFiles.status(path) {
            if POSIXFiles.isDirectory(st) { throw ErrorRecord(.store, "cannot open \(path): is a directory") }
            // A device, a FIFO or a socket is never a store: never written, never reset.
            if (st.st_mode & S_IFMT) != S_IFREG { throw ErrorRecord(.store, "cannot open \(path): not a regular file") }
        }
        switch kind(forPath: path) {
        case .json: return JSONFileFeedStore(path: path, wait: wait, temporaryFiles: temporaryFiles)
        case .sqlite: return SQLiteFeedStore(path: path, wait: wait, temporaryFiles: temporaryFiles)
        }
    }

    /// The store path when none is given on the command line: `$FEED_STORE`,
    /// else `$XDG_CACHE_HOME/essential-feed/feed.sqlite`, else
    /// `$HOME/.cache/essential-feed/feed.sqlite`. Empty variables count as
    /// unset, and so does a relative `XDG_CACHE_HOME` (the XDG base directory
    /// specification says to ignore it). Fails with `.store` when none applies.
    public static func defaultPath(environment: [String: String]) throws(ErrorRecord) -> String {
        if let store = environment["FEED_STORE"], !store.isEmpty { return store }
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return join(cache, "essential-feed/feed.sqlite")
        }
        if let home = environment["HOME"], !home.isEmpty {
            return join(home, ".cache/essential-feed/feed.sqlite")
        }
        throw ErrorRecord(.store, "no store path: HOME is not set (set FEED_STORE or XDG_CACHE_HOME, or give --store PATH)")
    }

    /// The folder a file store's files are in: its document's (a symbolic
    /// link resolved), where its lock, temporary file, journal and spools
    /// are made too. For `feed-cache`'s confinement to it.
    public static func folder(of path: String) -> String {
        POSIXFiles.directory(of: POSIXFiles.resolvingSymbolicLink(path))
    }

    /// Creates the folder of the store at `path` when it is missing (0700),
    /// as the first write would, so that a confined writer can be allowed
    /// into it. Quietly: a failure is the write's to report.
    public static func prepareFolder(of path: String) {
        // Not for what `open` refuses (a URL makes no folder named "mysql:").
        guard !path.isEmpty, !isURL(path), !path.hasSuffix("/") else { return }
        try? POSIXFiles.makeDirectories(folder(of: path))
    }

    /// Where SQLite makes its temporary files (sorts, statement journals),
    /// as it chooses: the first of $SQLITE_TMPDIR, $TMPDIR, /var/tmp,
    /// /usr/tmp and /tmp that is a folder it may write in. With TMPDIR
    /// unset it is /var/tmp, not /tmp (found when a confined save failed).
    public static func sqliteTemporaryFolder(environment: [String: String]) -> String? {
        let candidates = [environment["SQLITE_TMPDIR"], environment["TMPDIR"], "/var/tmp", "/usr/tmp", "/tmp"]
        return candidates.compactMap { $0 }.first { folder in
            guard let st = try? POSIXFiles.status(folder), POSIXFiles.isDirectory(st) else { return false }
            return access(folder, W_OK | X_OK) == 0
        }
    }

    /// Whether `store` names a PostgreSQL database: a libpq connection URI,
    /// `postgresql://…` or `postgres://…` (any letter case).
    public static func isPostgreSQL(_ store: String) -> Bool {
        let lower = store.prefix(13).lowercased()
        return lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://")
    }

    /// A PostgreSQL store's URI as libpq reads one: its scheme in lower case.
    /// libpq knows `postgresql://` and `postgres://` only so: any other case
    /// made the whole URI a database name on the default server, and the
    /// password went to that server's log.
    public static func libpqURI(_ store: String) -> String {
        guard isPostgreSQL(store), let colon = store.firstIndex(of: ":") else { return store }
        return store[..<colon].lowercased() + store[colon...]
    }

    /// A store as messages show it: a PostgreSQL URI with its passwords
    /// hidden as libpq reads them (the user information's, spaces and `#`
    /// and all; and a `password` parameter's, its name percent-decoded, up
    /// to the next `&`, `#` and all); a path as it is. (A URI that libpq
    /// would misread is refused before it is shown: `urlProblem`.)
    public static func shown(_ store: String) -> String {
        guard isPostgreSQL(store) else { return store }
        return String(decoding: passwordRanges(in: Array(store.utf8)).reversed().reduce(into: Array(store.utf8)) { text, range in
            text.replaceSubrange(range, with: "***".utf8)
        }, as: UTF8.self)
    }

    /// `message` with every password of the PostgreSQL URI `store` in it
    /// (as written, and percent-decoded) hidden: libpq's messages quote
    /// pieces of the URI they could not read.
    public static func masking(passwordsOf store: String, in message: String) -> String {
        guard isPostgreSQL(store) else { return message }
        let bytes = Array(store.utf8)
        var secrets = Set<String>()
        for range in passwordRanges(in: bytes) where !range.isEmpty {
            let raw = Array(bytes[range])
            secrets.insert(String(decoding: raw, as: UTF8.self))
            secrets.insert(String(decoding: percentDecoded(raw[...]), as: UTF8.self))
        }
        var text = Array(message.utf8)
        // The longest first: a password that holds another is hidden whole.
        for secret in secrets.map({ Array($0.utf8) }).sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
            var out: [UInt8] = []
            var i = 0
            while i < text.count {
                if i + secret.count <= text.count, text[i..<(i + secret.count)].elementsEqual(secret) {
                    out += "***".utf8
                    i += secret.count
                } else {
                    out.append(text[i])
                    i += 1
                }
            }
            text = out
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Where the URI `text` goes on after its `scheme://`.
    private static func afterScheme(_ text: [UInt8]) -> Int? {
        (0..<max(0, text.count - 2)).first { text[$0] == 0x3A && text[$0 + 1] == 0x2F && text[$0 + 2] == 0x2F }.map { $0 + 3 }
    }

    /// Where the user information of the PostgreSQL URI `text` lies as
    /// libpq reads it, if it has one, and where what follows it starts:
    /// libpq ends it at the first `@` or `/` past `scheme://` (a `?`, a `#`
    /// or a space before it is its own); a `/` first means it has none.
    private static func userInformation(in text: [UInt8]) -> (range: Range<Int>?, after: Int)? {
        guard let start = afterScheme(text) else { return nil }
        guard let stop = text[start...].firstIndex(where: { $0 == 0x40 || $0 == 0x2F }), text[stop] == 0x40 else { return (nil, start) }
        return (start..<stop, stop + 1)
    }

    /// Where the passwords of the PostgreSQL URI `text` lie, in order.
    private static func passwordRanges(in text: [UInt8]) -> [Range<Int>] {
        guard let (userInfo, after) = userInformation(in: text) else { return [] }
        var ranges: [Range<Int>] = []
        if let userInfo, let colon = text[userInfo].firstIndex(of: 0x3A) { ranges.append((colon + 1)..<userInfo.upperBound) }
        for (name, value) in parameters(in: text, from: after)
        where percentDecoded(text[name]).map({ $0 | 0x20 }) == Array("password".utf8) {
            ranges.append(value)
        }
        return ranges
    }

    /// The parameters of the PostgreSQL URI `text` (NAME=VALUE pairs after
    /// the first `?` past `from`, the end of the user information, split at
    /// `&`; a `#` is a value's, as libpq reads it): where each name and
    /// value lie.
    private static func parameters(in text: [UInt8], from: Int) -> [(name: Range<Int>, value: Range<Int>)] {
        guard let question = text[from...].firstIndex(of: 0x3F) else { return [] }
        var pairs: [(name: Range<Int>, value: Range<Int>)] = []
        var i = question + 1
        while i < text.count {
            let pairEnd = text[i...].firstIndex(of: 0x26) ?? text.count
            if let equals = text[i..<pairEnd].firstIndex(of: 0x3D) { pairs.append((i..<equals, (equals + 1)..<pairEnd)) }
            i = pairEnd + 1
        }
        return pairs
    }

    /// The files the parameters of the PostgreSQL URI `store` name, which
    /// libpq reads as it connects (`passfile`, and the `ssl…` certificates,
    /// key and revocation lists), percent-decoded: the sandbox lets it.
    public static func filesNamed(byPostgreSQLURI store: String) -> [String] {
        guard isPostgreSQL(store) else { return [] }
        let text = Array(store.utf8)
        guard let (_, after) = userInformation(in: text) else { return [] }
        return parameters(in: text, from: after).compactMap { name, value in
            guard fileParameters.contains(String(decoding: percentDecoded(text[name]), as: UTF8.self)) else { return nil }
            let path = String(decoding: percentDecoded(text[value]), as: UTF8.self)
            return path.isEmpty ? nil : path
        }
    }

    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8] { URLAuthority.percentDecoded(bytes) }

    /// The home folder of the effective user, as the password database has it.
    public static var passwordHome: String? {
        guard let entry = getpwuid(geteuid()), let folder = entry.pointee.pw_dir else { return nil }
        return String(cString: folder)
    }

    /// The connection parameters that name a file libpq reads.
    static let fileParameters: Set<String> = ["passfile", "sslrootcert", "sslcert", "sslkey", "sslcrl", "sslcrldir"]

    /// Where libpq may have been built to find the system's pg_service.conf.
    public static let serviceFolders = ["/etc/postgresql-common", "/etc", "/etc/sysconfig/pgsql"]

    /// The files that the service the PostgreSQL URI `store` names
    /// (`service=`, else `PGSERVICE`) names in turn, as libpq finds it: in
    /// `PGSERVICEFILE` (else .pg_service.conf in the password database's home, else HOME's), else in the system's
    /// pg_service.conf (`PGSYSCONFDIR`, else the first of `serviceFolders` that has one). A
    /// `passfile=` there was unreadable in the sandbox, and the store "no
    /// password supplied" (found by the hunt).
    public static func filesNamedByService(of store: String, environment: [String: String]) -> [String] {
        guard isPostgreSQL(store) else { return [] }
        let text = Array(store.utf8)
        var service = environment["PGSERVICE"] ?? ""
        if let (_, after) = userInformation(in: text) {
            for (name, value) in parameters(in: text, from: after) where percentDecoded(text[name]) == Array("service".utf8) {
                service = String(decoding: percentDecoded(text[value]), as: UTF8.self)
            }
        }
        guard !service.isEmpty else { return [] }
        // libpq 15's home folder: the password database's, else HOME.
        let home = passwordHome ?? environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        let userFile = environment["PGSERVICEFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? home.map { $0 + "/.pg_service.conf" }
        // libpq's own folder is built in: Debian's, else Arch's, else Red Hat's.
        let systemFolders = environment["PGSYSCONFDIR"].flatMap { $0.isEmpty ? nil : [$0] } ?? serviceFolders
        let systemFile = systemFolders.map { $0 + "/pg_service.conf" }.first { access($0, F_OK) == 0 }
        for file in [userFile, systemFile].compactMap({ $0 }) {
            guard let bytes = try? POSIXFiles.readFile(file, named: file) else { continue }
            var inService = false, found = false
            var files: [String] = []
            // As libpq reads it: blanks before a line dropped, `[name]`
            // starting a section (what follows the `]` ignored), `key=value`
            // with nothing trimmed around the `=`, `#` a comment.
            for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
                let line = line.drop { $0 == " " || $0 == "\t" }
                if line.hasPrefix("[") {
                    inService = line.dropFirst().hasPrefix(service + "]")
                    found = found || inService
                } else if inService, !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") {
                    let key = String(line[..<equals])
                    let value = String(line[line.index(after: equals)...].reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
                    if fileParameters.contains(key), !value.isEmpty { files.append(value) }
                }
            }
            // libpq reads the first file that has the service.
            if found { return files }
        }
        return []
    }

    /// The error of a store that stayed locked past the wait limit, naming it.
    public static func busy(_ name: String, wait: Double) -> ErrorRecord {
        POSIXFiles.busy(name, wait: wait)
    }

    /// The usage error of a store named by a URL that is no PostgreSQL
    /// database's, or by a PostgreSQL URI that libpq would misread (checked
    /// with the options, before anything is done); nil for any other name.
    public static func urlProblem(_ store: String) -> ErrorRecord? {
        if isPostgreSQL(store) { return misread(postgreSQLURI: Array(store.utf8)) }
        return isURL(store) ? notAStore(store) : nil
    }

    /// The usage error of a PostgreSQL URI that libpq would read otherwise
    /// than it was written, and quote in pieces: an `@` past the one that
    /// ends the user information, before the parameters (libpq ends the
    /// user information at the first `@` or `/`, so a password's `@` or `/`
    /// left as it is makes the rest of it a host, a port or a database name,
    /// which its messages showed: `postgresql://u:p@ss@host` failed as
    /// "could not translate host name "ss@host"", and the password went
    /// first to a host named after part of it); a `?` in the user
    /// information (libpq reads `postgresql://h?password=p@ss` as the user
    /// `h?password=p` of the host `ss`); or a parameter without `=` (a
    /// value's `&`, which libpq quotes as a parameter). The message does not
    /// show the URI.
    private static func misread(postgreSQLURI text: [UInt8]) -> ErrorRecord? {
        guard let (userInfo, after) = userInformation(in: text) else { return nil }
        let query = text[after...].firstIndex(of: 0x3F) ?? text.count
        if text[after..<query].contains(0x40) {
            return ErrorRecord(.usage, "store: a PostgreSQL URI with an @ past its user information: write an @ or a / of a user name, password or database name as %40 or %2F (the URI is not shown: it may hold a password)")
        }
        if let userInfo, text[userInfo].contains(0x3F) {
            return ErrorRecord(.usage, "store: a PostgreSQL URI with a ? in its user information, or an @ in a parameter of a URI without a database name: write a ? of a user name or password as %3F, an @ of a value as %40 (the URI is not shown: it may hold a password)")
        }
        if query < text.count, text[(query + 1)...].split(separator: 0x26).contains(where: { !$0.contains(0x3D) }) {
            return ErrorRecord(.usage, "store: a PostgreSQL URI with a parameter without =: write an & of a value as %26 (the URI is not shown: it may hold a password)")
        }
        return nil
    }

    private static func notAStore(_ path: String) -> ErrorRecord {
        ErrorRecord(.usage, "\(Secrets.redact(path)): not a store path: a store is a file (a SQLite file, or a JSON file for a path ending in .json) or a PostgreSQL database (postgresql://…); for a file whose name looks like a URL, write ./ before it")
    }

    /// Whether `path` starts as a URL does: a scheme, then `://`.
    static func isURL(_ path: String) -> Bool {
        guard let colon = path.utf8.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let scheme = path.utf8[..<colon]
        guard let first = scheme.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first | 0x20),
              scheme.allSatisfy({ byte in
                  let lower = byte | 0x20
                  return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(lower) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                      || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
              }) else { return false }
        return path.utf8[colon...].starts(with: "://".utf8)
    }

    private static func join(_ directory: String, _ rest: String) -> String {
        var directory = Substring(directory)
        while directory.count > 1, directory.hasSuffix("/") { directory = directory.dropLast() }
        return directory == "/" ? "/" + rest : directory + "/" + rest
    }
}
