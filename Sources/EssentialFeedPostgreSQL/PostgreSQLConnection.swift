import CLibpq
import EssentialFeed
import EssentialFeedInfra
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One libpq connection, blocking, and the few calls the store makes on it.
/// Every failure is an `ErrorRecord` naming the store (its URI with the
/// password hidden) and what was being done.
final class PostgreSQLConnection {
    let connection: OpaquePointer
    /// The store as shown in messages.
    let name: String
    /// How long the store waits for a lock (its `--wait`): a lock waited
    /// for longer is the store's `busy` failure.
    var wait: Double = 0

    /// Connects through libpq to `uri`, a connection URI or string, with
    /// libpq's defaults, `PG*` environment variables and `~/.pgpass`: a
    /// connection timeout of 10 seconds unless the URI or `PGCONNECT_TIMEOUT`
    /// says otherwise, `feed-cache` as the application name unless one is
    /// given, and UTF-8 as the client encoding whatever is given.
    init(uri: String, name: String) throws(ErrorRecord) {
        self.name = name
        var keywords = ["fallback_application_name"], values = ["feed-cache"]
        if getenv("PGCONNECT_TIMEOUT") == nil {
            keywords.append("connect_timeout")
            values.append("10")
        }
        keywords += ["dbname", "client_encoding"]
        values += [FeedStores.libpqURI(uri), "UTF8"]
        let k = keywords.map { strdup($0) } + [nil], v = values.map { strdup($0) } + [nil]
        defer {
            k.forEach { free($0) }
            v.forEach { free($0) }
        }
        let connection = k.withUnsafeBufferPointer { kp in
            v.withUnsafeBufferPointer { vp in
                kp.withMemoryRebound(to: UnsafePointer<CChar>?.self) { kp in
                    vp.withMemoryRebound(to: UnsafePointer<CChar>?.self) { vp in
                        PQconnectdbParams(kp.baseAddress, vp.baseAddress, 1)
                    }
                }
            }
        }
        guard let connection else { throw ErrorRecord(.store, "\(name): cannot connect: out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            // libpq quotes the pieces of the URI it could not read, a password's too.
            let message = FeedStores.masking(passwordsOf: uri, in: Self.oneLine(PQerrorMessage(connection)))
            PQfinish(connection)
            throw ErrorRecord(.store, "\(name): cannot connect: \(message)")
        }
        self.connection = connection
        // NOTICE messages (e.g. "schema … already exists, skipping") are not the user's business.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    deinit { PQfinish(connection) }

    /// Whether the connection is still up (false after the server went away).
    var isUsable: Bool { PQstatus(connection) == CONNECTION_OK && PQtransactionStatus(connection) == PQTRANS_IDLE }

    /// libpq's multi-line message as one line: its lines joined with "; ".
    static func oneLine(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        let lines = String(cString: text).split(whereSeparator: \.isNewline)
            .map { $0.trimmingPrefix(while: { $0 == " " || $0 == "\t" }) }.filter { !$0.isEmpty }
        return lines.isEmpty ? "unknown error" : lines.joined(separator: "; ")
    }

    /// The SQLSTATE of a failed result.
    static func sqlState(_ result: OpaquePointer?) -> String? {
        guard let result, let code = PQresultErrorField(result, Int32(UInt8(ascii: "C"))) else { return nil }
        return String(cString: code)
    }

    /// The SQLSTATE of the last failure made here (nil: none, or the
    /// connection's own).
    private(set) var lastSQLState: String?

    /// SQLSTATE 42501, insufficient_privilege: the role may not do it.
    static let insufficientPrivilege = "42501"
    /// SQLSTATE 55P03, lock_not_available: a lock waited for past `lock_timeout`.
    static let lockNotAvailable = "55P03"

    /// The last failure made here, kept while the transaction it aborted
    /// lasts: a statement after it fails only with "current transaction is
    /// aborted", which would hide it.
    private(set) var lastFailure: ErrorRecord?

    /// Whether the transaction failed (and only a rollback is taken).
    var transactionFailed: Bool { PQtransactionStatus(connection) == PQTRANS_INERROR }

    /// The failure of `result` (nil: the connection's), while `doing`
    /// (running `sql`, when known). A permission refused is said as such:
    /// the role, the right it lacks and the object, and the rights a viewer
    /// and a writer need.
    func failure(_ result: OpaquePointer?, _ doing: String, sql: String? = nil) -> ErrorRecord {
        let made = describe(result, doing, sql: sql)
        lastFailure = made
        return made
    }

    private func describe(_ result: OpaquePointer?, _ doing: String, sql: String?) -> ErrorRecord {
        var message = ""
        if let result, let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))) {
            message = String(cString: primary)
        } else {
            message = Self.oneLine(PQerrorMessage(connection))
        }
        lastSQLState = Self.sqlState(result)
        // Told by its SQLSTATE, in any language of the server's.
        if lastSQLState == Self.lockNotAvailable { return FeedStores.busy(name, wait: wait) }
        if lastSQLState == Self.insufficientPrivilege {
            let role = PQuser(connection).map { String(cString: $0) } ?? "this role"
            // The server's message names the object: "permission denied for table feed_image".
            let object = Self.after(" for ", in: message)
            let right = Self.right(lacking: object, sql: sql)
            return ErrorRecord(.store, "\(name): permission denied: role \(role) lacks \(right) on \(object ?? "the store's schema") to \(doing) ("
                + "a viewer needs USAGE on schema \(PostgreSQLFeedStore.schema) and SELECT on its tables, a writer also INSERT, UPDATE and DELETE: see feed-cache(1))")
        }
        return ErrorRecord(.store, "\(name): cannot \(doing): \(message)")
    }

    /// What follows the first `marker` in `text`; nil when it is not there.
    static func after(_ marker: String, in text: String) -> String? {
        let bytes = Array(text.utf8), mark = Array(marker.utf8)
        guard bytes.count >= mark.count else { return nil }
        for i in 0...(bytes.count - mark.count) where bytes[i..<(i + mark.count)].elementsEqual(mark) {
            return String(decoding: bytes[(i + mark.count)...], as: UTF8.self)
        }
        return nil
    }

    /// The right a statement needs on `object` ("table feed_image",
    /// "schema essential_feed"), from the statement's verb.
    static func right(lacking object: String?, sql: String?) -> String {
        let verb = (sql ?? "").drop(while: { $0 == " " || $0 == "\n" || $0 == "(" }).prefix(while: \.isLetter).uppercased()
        if object?.hasPrefix("schema ") == true { return verb == "CREATE" ? "CREATE" : "USAGE" }
        if object?.hasPrefix("database ") == true { return "CREATE" }
        switch verb {
        case "SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE": return verb
        case "COPY": return sql?.contains("FROM STDIN") == true ? "INSERT" : "SELECT"
        default: return "a right"
        }
    }

    /// Runs `sql` (one or several statements, no parameters); a failure throws.
    func execute(_ sql: String, _ doing: String) throws(ErrorRecord) {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard result != nil, status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(result, doing, sql: sql) }
    }

    /// Runs `sql` with text `parameters` (and `binary` ones after them, as
    /// bytea), rows in text form; a failure throws. `expecting` a status other
    /// than rows or a command's (PGRES_COPY_IN, PGRES_COPY_OUT); rows in
    /// binary form when `binaryRows`.
    func query(_ sql: String, _ parameters: [String?], binary: [[UInt8]] = [], expecting: ExecStatusType? = nil,
               binaryRows: Bool = false, _ doing: String) throws(ErrorRecord) -> PostgreSQLResult {
        let texts = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { texts.forEach { free($0) } }
        let count = parameters.count + binary.count
        var values = texts.map { UnsafePointer<CChar>($0) }
        var lengths = parameters.map { _ in Int32(0) }
        var formats = parameters.map { _ in Int32(0) }
        var copies: [UnsafeMutablePointer<CChar>] = []
        defer { copies.forEach { $0.deallocate() } }
        for data in binary {
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(data.count, 1))
            data.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: data.count) }
            }
            copies.append(copy)
            values.append(UnsafePointer(copy))
            lengths.append(Int32(data.count))
            formats.append(1)
        }
        let result = PQexecParams(connection, sql, Int32(count), nil, values, lengths, formats, binaryRows ? 1 : 0)
        let status = PQresultStatus(result)
        guard let result, status == (expecting ?? status),
              expecting != nil || status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let error = failure(result, doing, sql: sql)
            PQclear(result)
            throw error
        }
        return PostgreSQLResult(result)
    }

    /// `query` without parameters.
    func query(_ sql: String, expecting: ExecStatusType? = nil, _ doing: String) throws(ErrorRecord) -> PostgreSQLResult {
        try query(sql, [], expecting: expecting, doing)
    }

    /// The one integer `sql` answers.
    func integer(_ sql: String, _ doing: String) throws(ErrorRecord) -> Int64 {
        let result = try query(sql, doing)
        guard result.rows == 1, let text = result.text(0, 0), let value = Int64(text) else {
            throw ErrorRecord(.store, "\(name): cannot \(doing): an unexpected answer to \(sql)")
        }
        return value
    }

    /// Reads the rows of a `COPY … TO STDOUT` just started: `body` gets each
    /// row's bytes (its newline included) for the length of the call.
    func copyOut(_ doing: String, _ body: (UnsafeBufferPointer<UInt8>) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        while true {
            var buffer: UnsafeMutablePointer<CChar>?
            let count = PQgetCopyData(connection, &buffer, 0)
            if count == -1 { break }
            guard count >= 0, let buffer else { throw failure(nil, doing) }
            defer { PQfreemem(buffer) }
            try buffer.withMemoryRebound(to: UInt8.self, capacity: Int(count)) { (bytes) throws(ErrorRecord) in
                try body(UnsafeBufferPointer(start: bytes, count: Int(count)))
            }
        }
        try finishCopy(doing)
    }

    /// Ends a copy out of the server early (a reader's body failed): reads
    /// and drops what is left, so that the connection can go on.
    func drainCopyOut() {
        while true {
            var buffer: UnsafeMutablePointer<CChar>?
            let count = PQgetCopyData(connection, &buffer, 0)
            if let buffer { PQfreemem(buffer) }
            if count < 0 { break }
        }
        while let result = PQgetResult(connection) { PQclear(result) }
    }

    /// Sends `bytes` of a `COPY … FROM STDIN` in progress.
    func copyIn(_ bytes: UnsafeRawBufferPointer, _ doing: String) throws(ErrorRecord) {
        guard bytes.count > 0 else { return }
        let sent = PQputCopyData(connection, bytes.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
        guard sent == 1 else { throw failure(nil, doing) }
    }

    /// Ends a `COPY … FROM STDIN` (with `error`: abandons it) and takes its result.
    func endCopyIn(_ doing: String, error: String? = nil) throws(ErrorRecord) {
        guard PQputCopyEnd(connection, error) == 1 else { throw failure(nil, doing) }
        try finishCopy(doing)
    }

    private func finishCopy(_ doing: String) throws(ErrorRecord) {
        var failed: ErrorRecord?
        while let result = PQgetResult(connection) {
            if failed == nil, PQresultStatus(result) != PGRES_COMMAND_OK { failed = failure(result, doing) }
            PQclear(result)
        }
        if let failed { throw failed }
    }

    /// Rolls back the transaction in progress, if any; failures are ignored
    /// (a broken connection has no transaction left on the server).
    func rollback() {
        switch PQtransactionStatus(connection) {
        case PQTRANS_ACTIVE:
            // In the middle of a copy: end it as failed, drop what comes.
            _ = PQputCopyEnd(connection, "abandoned")
            drainCopyOut()
            PQclear(PQexec(connection, "ROLLBACK"))
        case PQTRANS_INTRANS, PQTRANS_INERROR:
            PQclear(PQexec(connection, "ROLLBACK"))
        default:
            break
        }
    }
}

/// A result with rows, cleared when released.
final class PostgreSQLResult {
    let result: OpaquePointer

    init(_ result: OpaquePointer) { self.result = result }
    deinit { PQclear(result) }

    var rows: Int { Int(PQntuples(result)) }
    /// Rows a command changed (`UPDATE`, `DELETE`).
    var changed: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(result, Int32(row), Int32(column)) == 1 }

    /// The value's bytes (text form, or binary for a binary result), valid while this result lives.
    func bytes(_ row: Int, _ column: Int) -> UnsafeBufferPointer<UInt8>? {
        guard !isNull(row, column), let value = PQgetvalue(result, Int32(row), Int32(column)) else { return nil }
        let count = Int(PQgetlength(result, Int32(row), Int32(column)))
        return value.withMemoryRebound(to: UInt8.self, capacity: count) { UnsafeBufferPointer(start: $0, count: count) }
    }

    func text(_ row: Int, _ column: Int) -> String? {
        bytes(row, column).map { String(decoding: $0, as: UTF8.self) }
    }
}
