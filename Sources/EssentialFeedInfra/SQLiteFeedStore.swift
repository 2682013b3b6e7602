import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import EssentialFeed

/// The default store: one SQLite database file, through the system's libsqlite3.
///
/// - One SQLite transaction per store transaction: `BEGIN IMMEDIATE` … `COMMIT`
///   for writes (so two writers are serialized from the start and never have
///   to upgrade a read lock), a deferred `BEGIN` for reads.
/// - Rollback journal (`journal_mode=DELETE`, SQLite's default) with
///   `synchronous=FULL`: at rest the store is one file, it works on every file
///   system (WAL needs shared memory, so not NFS-mounted home directories), and
///   a commit is durable when it returns. Readers never see a half-written
///   feed; the cost is that a writer's commit waits for running readers,
///   within the wait limit, which for a cache written by cron jobs is nothing.
/// - A bounded busy wait (`sqlite3_busy_timeout`): past `wait` seconds a lock
///   still held by another connection is a `.busy` error naming the path.
/// - `PRAGMA application_id` marks the file as a feed cache and
///   `PRAGMA user_version` holds the schema version, so later releases can
///   migrate it. A database of another application or of a newer schema is
///   a `.store` error for every operation and is never written; so is any
///   file that is not a database (`PATH: not a feed cache (…)`) and an empty
///   database of someone else's: only a missing or empty file, or one whose
///   header carries this store's `application_id`, is ever written. A feed
///   cache of ours that SQLite cannot read (cut short, its first page
///   damaged) fails every read; deleting the cached feed (so `delete`,
///   `validate`, `save`) resets it to an empty store, in place (truncated,
///   then given the schema) under an exclusive lock, never renamed while other
///   connections may have it open. Damage found only deeper, in the feed's
///   rows, is reported (`database disk image is malformed`) and left for the
///   user to remove.
/// - Timestamps are stored as integer seconds and nanoseconds: exact.
/// - Saves stream: `FeedStoreTransaction.beginFeed` inserts each image as it
///   comes, inside the open write transaction, with one prepared statement
///   bound without copies; ids already in the feed are found in a set of the
///   ids written (16 bytes each), and past `idsInMemory` ids through a unique
///   index on `feed_image(id)` made for the transaction and dropped before it
///   commits (the schema at rest does not change). SQLite's page cache is
///   limited to `cacheKiB`: past it, SQLite spills pages to the file under its
///   exclusive lock, and the rollback journal still restores the old feed
///   should the transaction not commit. Loads step the rows and lend their
///   text (`forEachCachedImage`): memory stays bounded whatever the feed's size.
/// - Interrupted (SIGINT, SIGTERM) during a write transaction, the process
///   rolls it back before it ends (through `TemporaryFiles.onInterrupt`), so
///   no journal is left behind; killed outright, the journal left behind
///   restores the old feed at the next access (SQLite's hot journal rollback).
/// - Nothing is created until the first write transaction, which creates the
///   missing directories (0700) and the file (0600; SQLite gives its journal
///   the same mode).
///
/// Not thread-safe: use one instance from one thread at a time (open one
/// instance per thread; instances in one or several processes coordinate
/// through SQLite's file locks).
public final class SQLiteFeedStore: FeedStore {
    public let path: String
    public let wait: Double
    private var connection: SQLiteConnection?
    private var running = false
    /// Told about each write transaction, so that an interrupted process rolls it back.
    public var temporaryFiles: (any TemporaryFiles)?
    /// How many ids a save keeps in memory to find repeated ones before it
    /// indexes the ids in the file instead (memory: about 32 bytes an id).
    public var idsInMemory = 196_000
    /// The page cache of a connection, in KiB (SQLite's default is 2000).
    public static let cacheKiB = 6_144

    /// The schema version this release writes and reads.
    public static let schemaVersion = 1
    /// `PRAGMA application_id` of a feed cache: "EFed".
    public static let applicationID: Int32 = 0x4546_6564

    /// Opens nothing yet: the file is opened at the first transaction.
    public init(path: String, wait: Double, temporaryFiles: (any TemporaryFiles)? = nil) {
        self.path = path
        self.wait = wait.isNaN ? 0 : max(wait, 0)
        self.temporaryFiles = temporaryFiles
    }

    public func transaction<T>(_ body: (any FeedStoreTransaction) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        try enter()
        defer { running = false }
        for _ in 0..<5 {
            let begun: SQLiteConnection?
            do throws(ErrorRecord) {
                begun = try begin(writing: true)
            } catch where self.connection?.corruptionDetected == true {
                // Not a database: SQLite cannot begin a transaction on it.
                guard let result = try transactionOnUnreadableFile(error, body) else { continue }
                return result
            }
            guard let connection = begun else { continue }
            let token = temporaryFiles?.onInterrupt(RollbackOnInterrupt(connection).run)
            defer { if let token { temporaryFiles?.done(token) } }
            let tx = SQLiteTransaction(connection, idsInMemory: idsInMemory)
            do throws(ErrorRecord) {
                try connection.guarded { () throws(ErrorRecord) in
                    if try connection.schema() == .uninitialized { try connection.createSchema() }
                }
            } catch where connection.corruptionDetected {
                // Damaged past the header: as a file SQLite cannot begin on, before the body has run.
                tx.end()
                connection.rollback()
                guard let result = try transactionOnUnreadableFile(error, body) else { continue }
                return result
            } catch {
                tx.end()
                connection.rollback()
                throw error
            }
            do throws(ErrorRecord) {
                let result = try body(tx)
                try tx.commit()
                return result
            } catch {
                tx.end()
                connection.interruptGuard.lock()
                connection.rollback()
                connection.interruptGuard.unlock()
                throw error
            }
        }
        throw ErrorRecord(.store, "cannot open \(path): the file keeps changing")
    }

    /// A transaction on a file SQLite cannot read, under an exclusive lock
    /// taken through SQLite's own file locking (so it excludes every other
    /// connection, in this process or another). A file whose header does not
    /// say it is a feed cache of ours (a text file, another program's data) is
    /// the user's: `error`, and the file is never touched. On a damaged feed
    /// cache reads fail, and deleting the cached feed resets the store: the
    /// file is truncated to nothing, then, still under the lock, given the
    /// schema and what the transaction wrote, in one SQLite transaction on the
    /// same file (never a rename: other connections may have it open). Nil
    /// when, by the time the lock is held, the file has changed (another
    /// writer reset it): the caller starts again.
    private func transactionOnUnreadableFile<T>(_ error: ErrorRecord, _ body: (any FeedStoreTransaction) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T? {
        guard let connection else { throw error }
        let seen = connection.header()
        let lock = try connection.lockFileExclusively()
        defer { lock.unlock() }
        guard connection.isStill(at: path) else { return nil }
        let header = lock.header()
        switch SQLiteFileHeader.classify(header) {
        case .empty: return nil
        case .notSQLite, .otherDatabase: throw error
        case .feedCache: guard header == seen else { return nil }
        }
        let tx = UnreadableStoreTransaction(error)
        let result = try body(tx)
        guard let snapshot = tx.resetSnapshot else { return result }
        try lock.truncate(path)
        // The connection's own locks are no-ops under the exclusive lock held, and COMMIT releases it.
        try connection.execute("BEGIN IMMEDIATE", "write")
        let writer = SQLiteTransaction(connection, idsInMemory: idsInMemory)
        do throws(ErrorRecord) {
            try connection.createSchema()
            if case .success(let cached)? = snapshot.cache { try writer.insert(cached.feed, timestamp: cached.timestamp) }
            for (url, data) in snapshot.imageData { try writer.insertImageData(data, for: url) }
            try writer.commit()
        } catch {
            writer.end()
            connection.rollback()
            throw error
        }
        // Could not be set when the connection opened the unreadable file.
        do { try connection.execute("PRAGMA synchronous = FULL", "write") } catch {}
        return result
    }

    public func read<T>(_ body: (any FeedStoreReader) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        try enter()
        defer { running = false }
        guard let connection = try begin(writing: false) else {
            return try body(FeedStoreSnapshotTransaction(FeedStoreSnapshot()))
        }
        do throws(ErrorRecord) {
            let result: T
            if try connection.schema() == .uninitialized {
                result = try body(FeedStoreSnapshotTransaction(FeedStoreSnapshot()))
            } else {
                let reader = SQLiteTransaction(connection, idsInMemory: idsInMemory)
                defer { reader.end() }
                result = try body(reader)
            }
            try connection.execute("COMMIT", "read")
            return result
        } catch {
            connection.rollback()
            throw error
        }
    }

    public func info() throws(ErrorRecord) -> FeedStoreInfo {
        guard let st = try POSIXFiles.status(path) else {
            return FeedStoreInfo(kind: "sqlite", path: path, exists: false, schemaVersion: nil,
                                 itemCount: nil, timestamp: nil, imageDataCount: 0, imageDataBytes: 0)
        }
        let size = Int(st.st_size)
        return try read { (reader) throws(ErrorRecord) in
            guard let reader = reader as? SQLiteTransaction else {
                return FeedStoreInfo(kind: "sqlite", path: path, exists: true, schemaVersion: nil, fileBytes: size,
                                     itemCount: nil, timestamp: nil, imageDataCount: 0, imageDataBytes: 0)
            }
            let (count, timestamp) = try reader.feedSummary()
            let (dataCount, dataBytes) = try reader.imageDataSummary()
            return FeedStoreInfo(kind: "sqlite", path: path, exists: true, schemaVersion: Self.schemaVersion, fileBytes: size,
                                 itemCount: count, timestamp: timestamp, imageDataCount: dataCount, imageDataBytes: dataBytes)
        }
    }

    /// One transaction at a time per instance: a nested one would end the
    /// outer one (SQLite has one transaction per connection).
    private func enter() throws(ErrorRecord) {
        guard !running else { throw ErrorRecord(.internal, "\(path): a transaction is already running on this store instance") }
        running = true
    }

    /// A connection in a new transaction (`BEGIN IMMEDIATE` when `writing`),
    /// on the file now at `path`: a connection left on a file that another
    /// process has since replaced is reopened.
    /// Nil for a read of a store that does not exist.
    private func begin(writing: Bool) throws(ErrorRecord) -> SQLiteConnection? {
        for _ in 0..<5 {
            guard let connection = try connect(creating: writing) else { return nil }
            connection.corruptionDetected = false
            try connection.execute(writing ? "BEGIN IMMEDIATE" : "BEGIN", writing ? "lock" : "read")
            if connection.isStill(at: path) { return connection }
            connection.rollback()
            self.connection = nil
        }
        throw ErrorRecord(.store, "cannot open \(path): the file keeps being replaced")
    }

    /// The open connection; opens it when the file exists, or, when
    /// `creating`, after creating the directories and the file.
    private func connect(creating: Bool) throws(ErrorRecord) -> SQLiteConnection? {
        if let connection { return connection }
        // No open(2) of the database file here: closing any descriptor of it
        // would release the locks of this process's other connections to it.
        if creating {
            try POSIXFiles.makeDirectories(POSIXFiles.directory(of: path))
            try POSIXFiles.createPrivately(path)
        }
        guard let st = try POSIXFiles.status(path) else {
            if creating { throw POSIXFiles.failure("open", path, ENOENT) }
            return nil
        }
        if POSIXFiles.isDirectory(st) { throw POSIXFiles.failure("open", path, EISDIR) }
        let connection = try SQLiteConnection(path: path, wait: wait)
        self.connection = connection
        return connection
    }
}

/// One connection to the database file.
final class SQLiteConnection {
    let db: OpaquePointer
    let path: String
    let wait: Double
    /// The device and inode of the file opened.
    private let identity: (dev_t, ino_t)?
    /// Whether a failure since the transaction began said the file is not a database or is damaged.
    var corruptionDetected = false
    /// Held while the connection is used in a write transaction, so that an
    /// interrupt's rollback (on another thread) never runs in the middle of a call.
    let interruptGuard = InterruptGuard()

    init(path: String, wait: Double) throws(ErrorRecord) {
        self.path = path
        self.wait = wait
        var st = stat()
        identity = stat(path, &st) == 0 ? (st.st_dev, st.st_ino) : nil
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            // The C library's reason ("permission denied") says more than SQLite's "unable to open database file".
            let systemCode = (code & 0xFF) == SQLITE_CANTOPEN ? handle.map { sqlite3_system_errno($0) } ?? 0 : 0
            let message = systemCode != 0 ? POSIXFiles.reason(systemCode)
                : handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            if let handle { sqlite3_close_v2(handle) }
            throw ErrorRecord(.store, "cannot open \(path): \(message)")
        }
        db = handle
        sqlite3_extended_result_codes(db, 1)
        let milliseconds = min(wait * 1000, Double(Int32.max))
        sqlite3_busy_timeout(db, Int32(milliseconds.rounded(.up)))
        // Reads the schema: on a file that is not a database this fails, and
        // the first transaction reports it (or replaces the file).
        do throws(ErrorRecord) {
            try execute("PRAGMA synchronous = FULL", "open")
        } catch where corruptionDetected {
            corruptionDetected = false
        }
        sqlite3_exec(db, "PRAGMA cache_size = -\(SQLiteFeedStore.cacheKiB)", nil, nil, nil)
        sqlite3_create_function_v2(db, Self.imageKeyFunction, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, values in
            guard let value = values?[0], let text = sqlite3_value_text(value) else { return sqlite3_result_null(context) }
            let count = Int(sqlite3_value_bytes(value))
            let bytes = UnsafeBufferPointer(start: text, count: count)
            // Most URLs hold no user-info: the value itself, no copy.
            guard bytes.contains(UInt8(ascii: "@")) else { return sqlite3_result_value(context, value) }
            let key = LocalFeedImageDataLoader.key(String(decoding: bytes, as: UTF8.self))
            sqlite3_result_text(context, key, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }, nil, nil, nil)
    }

    /// The SQL function giving the key image data of a URL is kept under.
    static let imageKeyFunction = "feed_image_data_key"

    /// Runs `body` holding `interruptGuard`.
    @inline(__always)
    func guarded<T>(_ body: () throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        interruptGuard.lock()
        defer { interruptGuard.unlock() }
        return try body()
    }

    deinit { sqlite3_close_v2(db) }

    /// Takes an exclusive lock on the database file through SQLite's VFS, the
    /// way a writing connection would, waiting up to the wait limit: for a
    /// file SQLite cannot read, where `BEGIN` fails before locking.
    func lockFileExclusively() throws(ErrorRecord) -> SQLiteFileLock {
        var pointer: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &pointer) == SQLITE_OK,
              let file = pointer, let methods = file.pointee.pMethods, let lock = methods.pointee.xLock else {
            throw ErrorRecord(.store, "cannot lock \(path): no file to lock")
        }
        let held = SQLiteFileLock(file: file, methods: methods.pointee)
        let deadline = POSIXFiles.monotonicSeconds() + wait
        var pause = 0.001
        while true {
            var code = SQLITE_OK
            for level in [SQLITE_LOCK_SHARED, SQLITE_LOCK_RESERVED, SQLITE_LOCK_EXCLUSIVE] where code == SQLITE_OK {
                code = lock(file, level)
            }
            if code == SQLITE_OK { return held }
            // Never wait while holding part of the lock: two waiters each
            // holding SHARED would keep each other from EXCLUSIVE.
            held.unlock()
            guard code & 0xFF == SQLITE_BUSY else {
                throw ErrorRecord(.store, "cannot lock \(path): \(String(cString: sqlite3_errstr(code)))")
            }
            let remaining = deadline - POSIXFiles.monotonicSeconds()
            guard remaining > 0 else { throw POSIXFiles.busy(path, wait: wait) }
            POSIXFiles.sleep(seconds: min(pause, remaining))
            pause = min(pause * 2, 0.05)
        }
    }

    /// The file's first bytes (`SQLiteFileHeader.length` at most), read
    /// through SQLite's file (no descriptor of ours: closing one would drop
    /// the process's locks); empty when there is no file to read.
    func header() -> [UInt8] {
        var pointer: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &pointer) == SQLITE_OK,
              let file = pointer, let methods = file.pointee.pMethods else { return [] }
        return Self.readHeader(file, methods.pointee)
    }

    static func readHeader(_ file: UnsafeMutablePointer<sqlite3_file>, _ methods: sqlite3_io_methods) -> [UInt8] {
        var size: sqlite3_int64 = 0
        guard methods.xFileSize?(file, &size) == SQLITE_OK, size > 0 else { return [] }
        let count = Int(min(size, sqlite3_int64(SQLiteFileHeader.length)))
        var bytes = [UInt8](repeating: 0, count: count)
        let code = bytes.withUnsafeMutableBytes { methods.xRead?(file, $0.baseAddress, Int32(count), 0) ?? SQLITE_IOERR }
        return code == SQLITE_OK ? bytes : []
    }

    /// Whether the file at `path` is still the one this connection opened.
    func isStill(at path: String) -> Bool {
        var st = stat()
        guard let identity, stat(path, &st) == 0 else { return false }
        return st.st_dev == identity.0 && st.st_ino == identity.1
    }

    /// The error record for SQLite result `code` met while trying to `verb` the store.
    func failure(_ code: Int32, _ verb: String) -> ErrorRecord {
        let primary = code & 0xFF
        switch primary {
        case SQLITE_BUSY, SQLITE_LOCKED:
            return POSIXFiles.busy(path, wait: wait)
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            corruptionDetected = true
            return ErrorRecord(.store, "\(path): not a feed cache (\(String(cString: sqlite3_errmsg(db))))")
        default:
            let systemCode = sqlite3_system_errno(db)
            let reason = (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN) && systemCode != 0
                ? POSIXFiles.reason(systemCode)
                : String(cString: sqlite3_errmsg(db))
            let action = verb == "lock" ? "write" : verb
            return ErrorRecord(.store, "cannot \(action) \(path): \(reason)")
        }
    }

    func execute(_ sql: String, _ verb: String) throws(ErrorRecord) {
        let code = sqlite3_exec(db, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw failure(code, verb) }
    }

    func prepare(_ sql: String, _ verb: String) throws(ErrorRecord) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw failure(code, verb) }
        return SQLiteStatement(statement, connection: self, verb: verb)
    }

    /// The single integer a query returns.
    func integer(_ sql: String, _ verb: String) throws(ErrorRecord) -> Int64 {
        let statement = try prepare(sql, verb)
        guard try statement.step() else { return 0 }
        return statement.int64(0)
    }

    /// Ends the transaction in progress, if any, discarding its changes.
    func rollback() {
        if sqlite3_get_autocommit(db) == 0 { sqlite3_exec(db, "ROLLBACK", nil, nil, nil) }
    }

    enum Schema { case uninitialized, current }

    /// What the file holds, checked inside a transaction.
    func schema() throws(ErrorRecord) -> Schema {
        let applicationID = try integer("PRAGMA application_id", "read")
        let version = try integer("PRAGMA user_version", "read")
        // Reads the schema's page: damage there is found before a transaction's body runs.
        let objects = try integer("SELECT count(*) FROM sqlite_schema", "read")
        if applicationID == Int64(SQLiteFeedStore.applicationID) {
            if version > Int64(SQLiteFeedStore.schemaVersion) {
                throw ErrorRecord(.store, "\(path): feed cache schema version \(version) is newer than this release supports (\(SQLiteFeedStore.schemaVersion))")
            }
            guard version >= 1 else { throw ErrorRecord(.store, "\(path): not a feed cache (no schema version)") }
            // Later releases migrate older versions here (version < schemaVersion), inside the write transaction.
            return .current
        }
        // An empty file only (a write transaction gives it a page 1 in
        // memory, so ask the file): an empty database of someone else's is theirs.
        if applicationID == 0 && version == 0 && objects == 0 && header().isEmpty { return .uninitialized }
        throw ErrorRecord(.store, "\(path): not a feed cache (a SQLite database of another application)")
    }

    func createSchema() throws(ErrorRecord) {
        try execute("""
            CREATE TABLE feed_cache (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                timestamp_seconds INTEGER NOT NULL,
                timestamp_nanoseconds INTEGER NOT NULL CHECK (timestamp_nanoseconds BETWEEN 0 AND 999999999)
            );
            CREATE TABLE feed_image (
                position INTEGER PRIMARY KEY,
                id TEXT NOT NULL,
                description TEXT,
                location TEXT,
                url TEXT NOT NULL
            );
            CREATE TABLE image_data (
                url TEXT PRIMARY KEY NOT NULL,
                data BLOB NOT NULL
            ) WITHOUT ROWID;
            PRAGMA application_id = \(SQLiteFeedStore.applicationID);
            PRAGMA user_version = \(SQLiteFeedStore.schemaVersion);
            """, "write")
    }
}

/// A lock taken with `SQLiteConnection.lockFileExclusively()`.
struct SQLiteFileLock {
    let file: UnsafeMutablePointer<sqlite3_file>
    let methods: sqlite3_io_methods

    func unlock() {
        _ = methods.xUnlock?(file, SQLITE_LOCK_NONE)
    }

    /// The locked file's first bytes (`SQLiteFileHeader.length` at most).
    func header() -> [UInt8] {
        SQLiteConnection.readHeader(file, methods)
    }

    /// Empties the locked file, durably, and makes it readable by its owner
    /// only, as a store file created anew would be (`chmod` by path: closing a
    /// descriptor of the file would release this process's locks on it).
    func truncate(_ path: String) throws(ErrorRecord) {
        guard methods.xTruncate?(file, 0) == SQLITE_OK, methods.xSync?(file, SQLITE_SYNC_FULL) == SQLITE_OK else {
            throw ErrorRecord(.store, "cannot write \(path): cannot empty the unreadable file")
        }
        _ = chmod(path, 0o600)
    }
}

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

/// The operations of one SQLite transaction; usable only while it runs.
/// Every use of the connection holds its interrupt guard.
final class SQLiteTransaction: FeedStoreTransaction {
    private let connection: SQLiteConnection
    private let idsInMemory: Int
    private var active = true
    private var feedChanged = false
    /// The writer of the feed being written, if any.
    private var writer: SQLiteFeedWriter?

    init(_ connection: SQLiteConnection, idsInMemory: Int) {
        self.connection = connection
        self.idsInMemory = idsInMemory
    }

    func end() {
        active = false
        endWriter()
    }

    private func endWriter() {
        writer?.active = false
        writer = nil
    }

    /// Drops the save's index, applies the image data rule and commits.
    func commit() throws(ErrorRecord) {
        try checkActive()
        try connection.guarded { () throws(ErrorRecord) in
            if writer?.indexed == true { try connection.execute("DROP INDEX IF EXISTS \(SQLiteFeedWriter.indexName)", "write") }
            endWriter()
            if feedChanged, try connection.integer("SELECT EXISTS (SELECT 1 FROM image_data)", "write") != 0 {
                // Image data is kept under the URL with its password shown as *** (see LocalFeedImageDataLoader.key).
                try connection.execute("DELETE FROM image_data WHERE url NOT IN (SELECT \(SQLiteConnection.imageKeyFunction)(url) FROM feed_image)", "write")
            }
            try connection.execute("COMMIT", "write")
        }
        active = false
    }

    private func checkActive() throws(ErrorRecord) {
        guard active else { throw ErrorRecord(.internal, "\(connection.path): store transaction used after it ended") }
    }

    private var path: String { connection.path }

    private func damaged(_ reason: String) -> ErrorRecord {
        ErrorRecord(.store, "\(path): damaged feed cache: \(reason)")
    }

    func retrieve() throws(ErrorRecord) -> CachedFeed? {
        guard let timestamp = try retrieveTimestamp() else { return nil }
        var feed: [FeedImage] = []
        try forEachCachedImage { image in feed.append(image.image) }
        return CachedFeed(feed: feed, timestamp: timestamp)
    }

    private func retrieveTimestamp() throws(ErrorRecord) -> Timestamp? {
        try checkActive()
        return try connection.guarded { () throws(ErrorRecord) -> Timestamp? in
            let header = try connection.prepare("SELECT timestamp_seconds, timestamp_nanoseconds FROM feed_cache WHERE singleton = 1", "read")
            guard try header.step() else { return nil }
            return try timestamp(header.int64(0), header.int64(1))
        }
    }

    private func timestamp(_ seconds: Int64, _ nanoseconds: Int64) throws(ErrorRecord) -> Timestamp {
        guard (0..<1_000_000_000).contains(nanoseconds) else { throw damaged("invalid timestamp") }
        return Timestamp(seconds: seconds, nanoseconds: Int32(nanoseconds))
    }

    func retrieveHeader() throws(ErrorRecord) -> CachedFeedHeader? {
        try checkActive()
        return try connection.guarded { () throws(ErrorRecord) -> CachedFeedHeader? in
            let header = try connection.prepare("SELECT timestamp_seconds, timestamp_nanoseconds, (SELECT count(*) FROM feed_image) FROM feed_cache WHERE singleton = 1", "read")
            guard try header.step() else { return nil }
            return CachedFeedHeader(timestamp: try timestamp(header.int64(0), header.int64(1)), count: Int(header.int64(2)))
        }
    }

    func forEachCachedImage(_ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        try checkActive()
        let rows = try connection.guarded { () throws(ErrorRecord) in
            try connection.prepare("SELECT id, description, location, url FROM feed_image ORDER BY position", "read")
        }
        var item = 0
        let canonical = UnsafeMutablePointer<UInt8>.allocate(capacity: 36)
        defer { canonical.deallocate() }
        while true {
            // The guard is held while SQLite's buffers are lent, so that an interrupt's rollback cannot free them.
            let more = try connection.guarded { () throws(ErrorRecord) -> Bool in
                guard try rows.step() else { return false }
                item += 1
                guard let url = rows.textBytes(3) else { throw damaged("item \(item) has no url") }
                guard var id = rows.textBytes(0) else { throw damaged("item \(item) has no valid id") }
                if !Identifiers.isCanonicalUUID(bytes: id) {
                    guard let uuid = Identifiers.uuid(bytes: id) else { throw damaged("item \(item) has no valid id") }
                    UUID.writeCanonical(uuid.uuid, to: canonical)
                    id = UnsafeBufferPointer(start: canonical, count: 36)
                }
                try body(CachedImageText(id: id, description: rows.textBytes(1), location: rows.textBytes(2), url: url))
                return true
            }
            if !more { return }
        }
    }

    func insert(_ feed: [FeedImage], timestamp: Timestamp) throws(ErrorRecord) {
        let writer = try beginFeed(timestamp: timestamp, keepingCachedImages: false)
        for image in feed { _ = try writer.add(image) }
    }

    func beginFeed(timestamp: Timestamp, keepingCachedImages: Bool) throws(ErrorRecord) -> any FeedImageWriter {
        try checkActive()
        return try connection.guarded { () throws(ErrorRecord) -> any FeedImageWriter in
            endWriter()
            var ids = IDSet()
            var position: Int64 = 0
            var indexed = false
            if keepingCachedImages {
                let count = try connection.integer("SELECT count(*) FROM feed_image", "read")
                if count > idsInMemory {
                    indexed = true
                } else {
                    ids = IDSet(minimumCapacity: Int(count))
                    let rows = try connection.prepare("SELECT id FROM feed_image ORDER BY position", "read")
                    var item = 0
                    while try rows.step() {
                        item += 1
                        guard let text = rows.textBytes(0), let id = Identifiers.uuid(bytes: text) else {
                            throw damaged("item \(item) has no valid id")
                        }
                        _ = ids.insert(id)
                    }
                }
                position = try connection.integer("SELECT coalesce(max(position) + 1, 0) FROM feed_image", "read")
            } else {
                try connection.execute("DELETE FROM feed_image", "write")
            }
            let header = try connection.prepare("INSERT OR REPLACE INTO feed_cache (singleton, timestamp_seconds, timestamp_nanoseconds) VALUES (1, ?, ?)", "write")
            try header.bind(1, timestamp.seconds)
            try header.bind(2, Int64(timestamp.nanoseconds))
            _ = try header.step()
            feedChanged = true
            let writer = try SQLiteFeedWriter(connection, position: position, ids: ids, idsInMemory: idsInMemory)
            if indexed { try writer.indexIDs() }
            self.writer = writer
            return writer
        }
    }

    func deleteCachedFeed() throws(ErrorRecord) {
        try checkActive()
        try connection.guarded { () throws(ErrorRecord) in
            endWriter()
            try connection.execute("DELETE FROM feed_cache", "write")
            let deleted = sqlite3_changes(connection.db)
            try connection.execute("DELETE FROM feed_image", "write")
            if deleted > 0 || sqlite3_changes(connection.db) > 0 { feedChanged = true }
        }
    }

    func insertImageData(_ data: [UInt8], for url: String) throws(ErrorRecord) {
        try checkActive()
        try connection.guarded { () throws(ErrorRecord) in
            let statement = try connection.prepare("INSERT OR REPLACE INTO image_data (url, data) VALUES (?, ?)", "write")
            try statement.bind(1, url)
            try statement.bind(2, data)
            _ = try statement.step()
        }
    }

    func retrieveImageData(for url: String) throws(ErrorRecord) -> [UInt8]? {
        try checkActive()
        return try connection.guarded { () throws(ErrorRecord) -> [UInt8]? in
            let statement = try connection.prepare("SELECT data FROM image_data WHERE url = ?", "read")
            try statement.bind(1, url)
            guard try statement.step() else { return nil }
            return statement.bytes(0)
        }
    }

    func cachedImageDataURLs() throws(ErrorRecord) -> Set<String> {
        try checkActive()
        return try connection.guarded { () throws(ErrorRecord) -> Set<String> in
            let statement = try connection.prepare("SELECT url FROM image_data", "read")
            var urls = Set<String>()
            while try statement.step() {
                if let url = statement.text(0) { urls.insert(url) }
            }
            return urls
        }
    }

    /// The item count and timestamp of the cached feed, without decoding it.
    func feedSummary() throws(ErrorRecord) -> (Int?, Timestamp?) {
        try checkActive()
        let header = try connection.prepare("SELECT timestamp_seconds, timestamp_nanoseconds, (SELECT count(*) FROM feed_image) FROM feed_cache WHERE singleton = 1", "read")
        guard try header.step() else { return (nil, nil) }
        let nanoseconds = header.int64(1)
        let timestamp = (0..<1_000_000_000).contains(nanoseconds) ? Timestamp(seconds: header.int64(0), nanoseconds: Int32(nanoseconds)) : nil
        return (Int(header.int64(2)), timestamp)
    }

    func imageDataSummary() throws(ErrorRecord) -> (Int, Int) {
        try checkActive()
        let statement = try connection.prepare("SELECT count(*), coalesce(sum(length(data)), 0) FROM image_data", "read")
        guard try statement.step() else { return (0, 0) }
        return (Int(statement.int64(0)), Int(statement.int64(1)))
    }
}

/// Inserts the images of the feed a transaction writes, one row each, with
/// one prepared statement whose text is bound without copies.
final class SQLiteFeedWriter: FeedImageWriter {
    /// The index on `feed_image(id)` a save makes when it has more ids than it keeps in memory.
    static let indexName = "feed_image_id_while_saving"

    private let connection: SQLiteConnection
    private var statement: SQLiteStatement
    private var position: Int64
    private var ids: IDSet
    private let idsInMemory: Int
    /// Whether repeated ids are found by the index rather than by `ids`.
    private(set) var indexed = false
    /// False once the transaction ended or the feed was replaced.
    var active = true

    init(_ connection: SQLiteConnection, position: Int64, ids: IDSet, idsInMemory: Int) throws(ErrorRecord) {
        self.connection = connection
        self.position = position
        self.ids = ids
        self.idsInMemory = idsInMemory
        statement = try connection.prepare("INSERT INTO feed_image (position, id, description, location, url) VALUES (?, ?, ?, ?, ?)", "write")
    }

    /// From now on repeated ids are found by a unique index (made here, on the
    /// rows so far: they are each of another id), and `ids` is freed.
    /// The index is sorted with a smaller cache (SQLite's sorter takes as
    /// much memory as the page cache) so that memory stays within its bound.
    func indexIDs() throws(ErrorRecord) {
        ids = IDSet()
        try connection.execute("PRAGMA cache_size = -\(SQLiteFeedStore.cacheKiB / 4)", "write")
        try connection.execute("CREATE UNIQUE INDEX IF NOT EXISTS \(Self.indexName) ON feed_image (id)", "write")
        try connection.execute("PRAGMA cache_size = -\(SQLiteFeedStore.cacheKiB)", "write")
        statement = try connection.prepare("INSERT OR IGNORE INTO feed_image (position, id, description, location, url) VALUES (?, ?, ?, ?, ?)", "write")
        indexed = true
    }

    func add(_ image: FeedImage) throws(ErrorRecord) -> Bool {
        try CachedImageText.lending(image) { (text) throws(ErrorRecord) in try add(text, id: image.id) }
    }

    func add(_ image: CachedImageText) throws(ErrorRecord) -> Bool {
        guard let id = Identifiers.uuid(bytes: image.id) else {
            throw ErrorRecord(.internal, "\(connection.path): a feed image lent with an invalid id")
        }
        return try add(image, id: id)
    }

    private func add(_ image: CachedImageText, id: UUID) throws(ErrorRecord) -> Bool {
        guard active else { throw ErrorRecord(.internal, "\(connection.path): a feed writer was used after its feed or transaction ended") }
        return try connection.guarded { () throws(ErrorRecord) -> Bool in
            if !indexed {
                guard ids.insert(id) else { return false }
            }
            let statement = self.statement.statement
            var code = sqlite3_bind_int64(statement, 1, position)
            if code == SQLITE_OK { code = SQLiteStatement.bindStatic(statement, 2, image.id) }
            if code == SQLITE_OK { code = SQLiteStatement.bindStatic(statement, 3, image.description) }
            if code == SQLITE_OK { code = SQLiteStatement.bindStatic(statement, 4, image.location) }
            if code == SQLITE_OK { code = SQLiteStatement.bindStatic(statement, 5, image.url) }
            if code == SQLITE_OK { code = sqlite3_step(statement) }
            // The statement keeps pointers to the lent text, but reads them
            // only when stepped, after the next row's bindings replaced them.
            sqlite3_reset(statement)
            guard code == SQLITE_DONE else { throw connection.failure(code, "write") }
            if indexed && sqlite3_changes(connection.db) == 0 { return false }
            position += 1
            if !indexed && ids.count > idsInMemory { try indexIDs() }
            return true
        }
    }
}

/// A set of ids, 16 bytes each in one table (open addressing, linear
/// probing, at most 3/4 full): leaner and faster than `Set<UUID>`.
struct IDSet {
    private var slots: [(UInt64, UInt64)] = []
    private(set) var count = 0
    /// Whether the all-zero id is in the set (the table's empty mark).
    private var hasZero = false

    init(minimumCapacity: Int = 0) {
        var capacity = minimumCapacity > 0 ? 16 : 0
        while capacity * 3 / 4 < minimumCapacity { capacity *= 2 }
        slots = Array(repeating: (0, 0), count: capacity)
    }

    /// Inserts `id`; false when it was there already.
    mutating func insert(_ id: UUID) -> Bool {
        let (a, b) = withUnsafeBytes(of: id.uuid) { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
        if a == 0 && b == 0 {
            defer { hasZero = true }
            if hasZero { return false }
            count += 1
            return true
        }
        if (count + 1) * 4 > slots.count * 3 { grow() }
        return slots.withUnsafeMutableBufferPointer { table in
            let mask = table.count - 1
            var index = Self.slot(a, b, mask)
            while true {
                let slot = table[index]
                if slot.0 == 0 && slot.1 == 0 {
                    table[index] = (a, b)
                    count += 1
                    return true
                }
                if slot.0 == a && slot.1 == b { return false }
                index = (index + 1) & mask
            }
        }
    }

    @inline(__always)
    private static func slot(_ a: UInt64, _ b: UInt64, _ mask: Int) -> Int {
        let mixed = (a ^ (b &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> 32) & mask
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: (0, 0), count: max(old.count * 2, 16))
        let mask = slots.count - 1
        slots.withUnsafeMutableBufferPointer { table in
            for (a, b) in old where a != 0 || b != 0 {
                var index = Self.slot(a, b, mask)
                while table[index].0 != 0 || table[index].1 != 0 { index = (index + 1) & mask }
                table[index] = (a, b)
            }
        }
    }
}

/// The rollback an interrupt runs on the signal thread for a write
/// transaction in progress: it waits (a bounded time) for the guard, so that
/// it never runs in the middle of a call of the main thread, and keeps it: the
/// process ends next. Should the guard not come in time, the journal left
/// behind restores the old feed at the next access.
final class RollbackOnInterrupt: @unchecked Sendable {
    private let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) {
        self.connection = connection
    }

    func run() {
        guard connection.interruptGuard.lock(timeout: 2) else { return }
        connection.rollback()
    }
}

/// A mutex that can also be waited for a bounded time.
final class InterruptGuard: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    /// Recursive: a body lent rows under the guard may call the transaction again.
    init() {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always) func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) func unlock() { pthread_mutex_unlock(mutex) }

    func lock(timeout seconds: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + Int(seconds.truncatingRemainder(dividingBy: 1) * 1e9)
        deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        return pthread_mutex_timedlock(mutex, &deadline) == 0
    }
}
