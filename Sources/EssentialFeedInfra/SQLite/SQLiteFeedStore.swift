import CSQLite
import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
///   bound without copies, the row's position left to SQLite (the next
///   rowid: an append, no search). Ids already in the feed are found in an
///   `IDSet` of the ids written (8 bytes each: a constant cost per id, so a
///   save grows linearly), and past `idsInMemory` ids through a unique index
///   on `feed_image(id)` made for the transaction and dropped before it
///   commits (the schema at rest does not change; each insert then searches
///   an index larger than the cache, and the cost grows faster than the
///   count). SQLite's page cache is limited to `cacheKiB`: past it, SQLite
///   spills pages to the file under its exclusive lock, and the rollback
///   journal still restores the old feed should the transaction not
///   commit. A new file has pages of `pageSize` bytes (fewer, larger writes).
///   Every `SQLiteRowInserter.writeBackRows` rows the inserting thread has
///   the system send the file's pages written so far to the disk
///   (`SQLiteConnection.writeBack`), waiting for the previous ones: the
///   commit's `fsync` then has only the last ones left (a 1M save: 0.27 s
///   to 0.01 s) while the rows of the rest were being made.
///   Loads step the rows and lend their text (`forEachCachedImage`): memory
///   stays bounded whatever the feed's size.
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
    /// indexes the ids in the file instead (memory: about 9 bytes an id, and
    /// 16 in an unlinked temporary file, so that
    /// a save of a million images stays under 32 MiB in all).
    public var idsInMemory = 2_000_000
    /// The page cache of a connection, in KiB (SQLite's default is 2000).
    public static let cacheKiB = 2_048
    /// The page size of a new file, in bytes (SQLite's default is 4096).
    public static let pageSize = 65_536

    /// The schema version this release writes and reads.
    public static let schemaVersion = 3
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
            // A signal taken before the registration: its cleanups are
            // chosen and this one is not among them, so nothing is committed.
            if temporaryFiles?.isEnding == true { connection.interruptRequested.raise() }
            let tx = SQLiteTransaction(connection, idsInMemory: idsInMemory)
            do throws(ErrorRecord) {
                try connection.guarded { () throws(ErrorRecord) in
                    switch try connection.schema() {
                    case .uninitialized: try connection.createSchema()
                    case .version1: try connection.migrateFromVersion1()
                    case .version2: try connection.migrateFromVersion2()
                    case .current: break
                    }
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
                // A signal sent while the body ran, not yet acted on (its
                // input ended whole as the tools before it were ended too):
                // nothing is committed (part of a feed was: found by the hunt).
                if temporaryFiles?.isEnding == true { connection.interruptRequested.raise() }
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
            try writer.setValidators(snapshot.validators)
            for (url, data) in snapshot.imageData { try writer.insertImageData(data, for: url.text) }
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
            let schema = try connection.schema()
            if schema == .uninitialized {
                result = try body(FeedStoreSnapshotTransaction(FeedStoreSnapshot()))
            } else {
                let reader = SQLiteTransaction(connection, idsInMemory: idsInMemory, hasValidators: schema != .version1, hasFirstCached: schema == .current)
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
            // Through a link to nothing yet, the file it names (O_EXCL does not follow it).
            let file = POSIXFiles.resolvingSymbolicLink(path)
            try POSIXFiles.makeDirectories(POSIXFiles.directory(of: file))
            try POSIXFiles.createPrivately(file)
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
