import CSQLite
import EssentialFeed

/// A prepared statement, finalized when released.
final class SQLiteStatement {
    let statement: OpaquePointer
    let connection: SQLiteConnection
    let verb: String

    init(_ statement: OpaquePointer, connection: SQLiteConnection, verb: String) {
        self.statement = statement
        self.connection = connection
        self.verb = verb
    }

    deinit { sqlite3_finalize(statement) }

    /// SQLite copies bound values (`SQLITE_TRANSIENT`).
    static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    func bind(_ index: Int32, _ text: String?) throws(ErrorRecord) {
        guard var text else { return try check(sqlite3_bind_null(statement, index)) }
        let code: Int32 = text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else {
                return sqlite3_bind_text(statement, index, "", 0, Self.transient)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                sqlite3_bind_text64(statement, index, $0, UInt64(utf8.count), Self.transient, UInt8(SQLITE_UTF8))
            }
        }
        try check(code)
    }

    func bind(_ index: Int32, _ value: Int64) throws(ErrorRecord) {
        try check(sqlite3_bind_int64(statement, index, value))
    }

    func bind(_ index: Int32, _ bytes: [UInt8]) throws(ErrorRecord) {
        let code = bytes.withUnsafeBytes { raw in
            sqlite3_bind_blob64(statement, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(raw.count), Self.transient)
        }
        try check(code)
    }

    /// Binds `bytes` at `index` where they lie (SQLite copies nothing: an
    /// image of 48 MB is not held twice), steps once, then resets the
    /// statement and clears its bindings before the bytes may go.
    func stepOnce(binding bytes: [UInt8], at index: Int32) throws(ErrorRecord) {
        let code = bytes.withUnsafeBytes { raw -> Int32 in
            defer { reset() }
            let bound = sqlite3_bind_blob64(statement, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(raw.count), nil)
            guard bound == SQLITE_OK else { return bound }
            let stepped = sqlite3_step(statement)
            return stepped == SQLITE_DONE || stepped == SQLITE_ROW ? SQLITE_OK : stepped
        }
        try check(code)
    }

    private func check(_ code: Int32) throws(ErrorRecord) {
        guard code == SQLITE_OK else { throw connection.failure(code, verb) }
    }

    /// Steps once: true when a row is ready, false when done.
    func step() throws(ErrorRecord) -> Bool {
        let code = sqlite3_step(statement)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.failure(code, verb)
        }
    }

    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    /// The text of `column` in SQLite's own buffer (valid until the next step), nil for NULL.
    @inline(__always)
    func textBytes(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        return UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, column)))
    }

    /// Binds `text` without copying it (`SQLITE_STATIC`): it must stay valid
    /// until the statement is stepped and reset. Nil binds NULL.
    @inline(__always)
    static func bindStatic(_ statement: OpaquePointer, _ index: Int32, _ text: UnsafeBufferPointer<UInt8>?) -> Int32 {
        guard let text else { return sqlite3_bind_null(statement, index) }
        guard let base = text.baseAddress, text.count > 0 else {
            return sqlite3_bind_text(statement, index, "", 0, transient)
        }
        return base.withMemoryRebound(to: CChar.self, capacity: text.count) {
            sqlite3_bind_text64(statement, index, $0, UInt64(text.count), nil, UInt8(SQLITE_UTF8))
        }
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    func text(_ column: Int32) -> String? {
        guard !isNull(column), let pointer = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func bytes(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
