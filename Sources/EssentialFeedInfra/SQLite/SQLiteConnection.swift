import CSQLite
import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to the database file.
final class SQLiteConnection {
    let db: OpaquePointer
    let path: String
    let wait: Double
    /// The device and inode of the file opened.
    private let identity: (dev_t, ino_t)?
    /// A descriptor of the file opened, to write its pages back while a
    /// transaction runs (-1: none), shared with the process's other
    /// connections to the file (`SQLiteWriteBack`).
    private let writebackDescriptor: Int32
    /// Whether a failure since the transaction began said the file is not a database or is damaged.
    var corruptionDetected = false
    /// Held while the connection is used in a write transaction, so that an
    /// interrupt's rollback (on another thread) never runs in the middle of a call.
    let interruptGuard = InterruptGuard()
    /// Set by an interrupt's rollback before it waits for the guard; a
    /// commit that finds it set under the guard does not commit (the signal
    /// came before COMMIT started: the tool exits 128 + N, so nothing may
    /// change).
    let interruptRequested = InterruptFlag()

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
        writebackDescriptor = identity.map { SQLiteWriteBack.acquire(path, identity: $0) } ?? -1
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
        // The page size of a file made from now on (an existing one keeps its own).
        sqlite3_exec(db, "PRAGMA page_size = \(SQLiteFeedStore.pageSize)", nil, nil, nil)
        // In KiB: as many pages as take that memory at the page size now.
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

    deinit {
        sqlite3_close_v2(db)
        if writebackDescriptor >= 0, let identity { SQLiteWriteBack.release(identity: identity) }
    }

    /// Waits for the pages whose write-back the last call started, then
    /// starts writing back the file's pages written since: a long write
    /// transaction calls it as it goes, so that its commit has only the last
    /// pages left to wait for (and the disk works while the rows are made).
    func writeBack() {
        SQLiteWriteBack.writeBack(writebackDescriptor)
    }

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
            // A file whose header says it is ours is a damaged feed cache, not
            // another's file (it was "not a feed cache": found by the hunt).
            let what = primary == SQLITE_CORRUPT && SQLiteFileHeader.classify(header()) == .feedCache ? "damaged feed cache" : "not a feed cache"
            return ErrorRecord(.store, "\(path): \(what) (\(String(cString: sqlite3_errmsg(db))))")
        default:
            let systemCode = sqlite3_system_errno(db)
            let reason = (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN) && systemCode != 0
                ? POSIXFiles.reason(systemCode)
                : String(cString: sqlite3_errmsg(db))
            let action = verb == "lock" ? "write" : verb
            return ErrorRecord(.store, "cannot \(action) \(path): \(reason)" + (primary == SQLITE_FULL ? fullTemporaryFolder() : "")
                + (primary == SQLITE_READONLY ? readOnlyFolder() : ""))
        }
    }

    /// SQLite's "attempt to write a readonly database" for a file that may
    /// be written: its folder may not, where SQLite makes its journal (said
    /// as the file's, the user found nothing to change: found by the hunt).
    private func readOnlyFolder() -> String {
        let folder = POSIXFiles.directory(of: path)
        guard access(path, W_OK) == 0, access(folder, W_OK) != 0 else { return "" }
        return " (its folder \(folder) cannot be written: SQLite makes its journal there, beside the store)"
    }

    /// SQLite's "database or disk is full" may be its temporary files'
    /// folder's (statement journals, sorts): named, when it lies on another
    /// file system than the store (a full $TMPDIR was said as the store's).
    private func fullTemporaryFolder() -> String {
        var environment: [String: String] = [:]
        for name in ["SQLITE_TMPDIR", "TMPDIR"] { if let value = getenv(name) { environment[name] = String(cString: value) } }
        guard let folder = FeedStores.sqliteTemporaryFolder(environment: environment),
              let temporary = try? POSIXFiles.status(folder), let store = try? POSIXFiles.status(POSIXFiles.directory(of: path)),
              temporary.st_dev != store.st_dev else { return "" }
        return " (the store's file system, or that of SQLite's temporary files in \(folder))"
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

    enum Schema {
        case uninitialized
        /// Release 0.1.0's: no validators (migrated by the next write transaction).
        case version1
        /// Before each image kept when it was first cached (migrated by the next write transaction).
        case version2
        case current
    }

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
            if version == Int64(SQLiteFeedStore.schemaVersion), let missing = try missingPartOfTheSchema() {
                // Ours, with a part gone (dropped by hand): damaged, and reset as such.
                corruptionDetected = true
                throw ErrorRecord(.store, "\(path): damaged feed cache: \(missing)")
            }
            return version == 1 ? .version1 : version == 2 ? .version2 : .current
        }
        // An empty file only (a write transaction gives it a page 1 in
        // memory, so ask the file): an empty database of someone else's is theirs.
        if applicationID == 0 && version == 0 && objects == 0 && header().isEmpty { return .uninitialized }
        throw ErrorRecord(.store, "\(path): not a feed cache (a SQLite database of another application)")
    }

    /// The columns of the current schema, table by table (`createSchema`).
    private static let columns = [
        ("feed_cache", ["singleton", "timestamp_seconds", "timestamp_nanoseconds", "validators_url", "etag", "last_modified"]),
        ("feed_image", ["position", "id", "description", "location", "url", "first_cached_seconds"]),
        ("image_data", ["url", "data"]),
    ]

    /// The first table or column of the current schema the file lacks, said
    /// as SQLite would (`no such table: image_data`), or nil.
    private func missingPartOfTheSchema() throws(ErrorRecord) -> String? {
        for (table, expected) in Self.columns {
            let statement = try prepare("SELECT name FROM pragma_table_info('\(table)')", "read")
            var present: Set<String> = []
            while try statement.step() { if let name = statement.text(0) { present.insert(name) } }
            if present.isEmpty { return "no such table: \(table)" }
            if let column = expected.first(where: { !present.contains($0) }) { return "table \(table) has no column \(column)" }
        }
        return nil
    }

    /// Version 1 to 2: the feed's validators, three columns of its row.
    func migrateFromVersion1() throws(ErrorRecord) {
        try execute("""
            ALTER TABLE feed_cache ADD COLUMN validators_url TEXT;
            ALTER TABLE feed_cache ADD COLUMN etag TEXT;
            ALTER TABLE feed_cache ADD COLUMN last_modified TEXT;
            """, "write")
        try migrateFromVersion2()
    }

    /// Version 2 to 3: when each image was first cached, a column of its
    /// row, given to the rows already there as their feed's timestamp (now,
    /// before a confirmation or an append moves it).
    func migrateFromVersion2() throws(ErrorRecord) {
        try execute("""
            ALTER TABLE feed_image ADD COLUMN first_cached_seconds INTEGER;
            UPDATE feed_image SET first_cached_seconds = (SELECT timestamp_seconds FROM feed_cache WHERE singleton = 1);
            PRAGMA user_version = \(SQLiteFeedStore.schemaVersion);
            """, "write")
    }

    func createSchema() throws(ErrorRecord) {
        try execute("""
            CREATE TABLE feed_cache (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                timestamp_seconds INTEGER NOT NULL,
                timestamp_nanoseconds INTEGER NOT NULL CHECK (timestamp_nanoseconds BETWEEN 0 AND 999999999),
                validators_url TEXT,
                etag TEXT,
                last_modified TEXT
            );
            CREATE TABLE feed_image (
                position INTEGER PRIMARY KEY,
                id TEXT NOT NULL,
                description TEXT,
                location TEXT,
                url TEXT NOT NULL,
                first_cached_seconds INTEGER
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
