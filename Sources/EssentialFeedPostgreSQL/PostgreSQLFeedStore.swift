import CLibpq
import EssentialFeed
import EssentialFeedInfra

/// A store in a PostgreSQL database, through the system's libpq, for a cache
/// that several machines share: `feed-sync` on one host, `feed-show` on others.
///
/// - The store is named by a libpq connection URI (`postgresql://…` or
///   `postgres://…`); libpq's `PG*` environment variables and `~/.pgpass`
///   fill in what it leaves out. Messages show it with its password hidden.
/// - Its tables live in a schema of their own, `essential_feed`, created by
///   the first write (nothing is created before: a read of a database without
///   it finds the cache empty). The table `essential_feed.store` says whose
///   the schema is and its version; a schema of that name that holds other
///   tables, or a newer version, fails every operation (`.store`) and is never
///   written. An empty schema of that name (made for us by an administrator)
///   is used.
/// - A write transaction is one PostgreSQL transaction holding a
///   transaction-level advisory lock (`pg_advisory_xact_lock`), so writers
///   are serialized across processes and hosts, waiting up to `wait` seconds
///   (`lock_timeout`; 0: not at all) before failing with `.busy`. A save
///   streams from standard input and cannot be replayed, so a serializable
///   transaction that might have to start again is not an option. The lock
///   goes with the transaction: a writer killed, or cut off, releases it when
///   the server ends its session, and its transaction is rolled back.
/// - A read is one `REPEATABLE READ READ ONLY` transaction: it sees one
///   committed feed, old or new, and never waits for a writer.
/// - Saves send the images with `COPY … FROM STDIN` as they are read; the
///   first of each id stays (an `IDSet` in memory, 8 bytes an id). Loads read
///   them with `COPY … TO STDOUT`: memory stays bounded on both sides.
/// - Text is kept as `PostgreSQLText` says (NUL, which PostgreSQL's text
///   cannot hold, as `\0`); timestamps as integer seconds and nanoseconds.
///
/// Not thread-safe: one instance, one connection, one thread at a time.
public final class PostgreSQLFeedStore: FeedStore {
    /// The store as shown in messages: the URI with its password hidden.
    public let name: String
    public let wait: Double
    private let uri: String
    private var connection: PostgreSQLConnection?
    private var running = false

    /// The schema version this release writes and reads.
    public static let schemaVersion = 3
    /// The schema that holds the store's tables.
    public static let schema = "essential_feed"
    /// What `essential_feed.store` says of a schema of ours.
    static let application = "essential-feed feed cache"
    /// The advisory lock of the writers: "EFed", 1.
    static let lockKeys = (Int32(0x4546_6564), Int32(1))

    /// Connects to nothing yet: the connection is made by the first transaction.
    public init(uri: String, wait: Double) {
        self.uri = uri
        self.name = Self.redact(uri)
        self.wait = wait.isNaN ? 0 : max(wait, 0)
    }

    /// `uri` with its passwords hidden (see `FeedStores.shown`).
    public static func redact(_ uri: String) -> String {
        FeedStores.shown(uri)
    }

    public func transaction<T>(_ body: (any FeedStoreTransaction) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        try enter()
        defer { running = false }
        let connection = try connect()
        do throws(ErrorRecord) {
            try connection.execute("BEGIN", "begin a transaction")
            try boundWaits(connection)
            try lock(connection)
            let tx = PostgreSQLTransaction(connection)
            defer { tx.end() }
            var target: any FeedStoreTransaction = tx
            switch try schemaState(connection) {
            case .missing: try createSchema(connection)
            case let .older(version): try migrate(from: version, connection)
            case let .damaged(reason):
                // As a damaged SQLite file: every read and write fails but
                // deleting the cached feed (delete, validate, save), which
                // makes the tables anew first (an append or save-images
                // reset the store, its items and image data gone, and said
                // nothing: found by the hunt).
                target = UnreadableStoreTransaction(damaged(reason)) { [self] () throws(ErrorRecord) -> any FeedStoreTransaction in
                    try resetTables(connection)
                    return tx
                }
            case .current: break
            }
            let result = try body(target)
            // A signal sent while the body ran (its input ended whole as
            // the tools before it were ended too): nothing is committed.
            if InterruptGate.isEnding { throw ErrorRecord(.store, "\(name): interrupted before the commit: nothing saved") }
            try tx.commit()
            return result
        } catch {
            connection.rollback()
            throw error
        }
    }

    public func read<T>(_ body: (any FeedStoreReader) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        try enter()
        defer { running = false }
        let connection = try connect()
        do throws(ErrorRecord) {
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "begin a transaction")
            try boundWaits(connection)
            let result: T
            let state = try schemaState(connection)
            switch state {
            case .missing:
                result = try body(FeedStoreSnapshotTransaction(FeedStoreSnapshot()))
            case let .damaged(reason):
                throw damaged(reason)
            case .current, .older:
                let reader = PostgreSQLTransaction(connection, hasFirstCached: state.version >= 2)
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
        try enter()
        defer { running = false }
        let connection = try connect()
        defer { connection.rollback() }
        do throws(ErrorRecord) {
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "begin a transaction")
            try boundWaits(connection)
            let state = try schemaState(connection)
            if case let .damaged(reason) = state { throw damaged(reason) }
            guard state != .missing else {
                return FeedStoreInfo(kind: "postgresql", path: name, exists: false, schemaVersion: nil,
                                     itemCount: nil, timestamp: nil, imageDataCount: 0, imageDataBytes: 0)
            }
            let reader = PostgreSQLTransaction(connection, hasFirstCached: state.version >= 2)
            defer { reader.end() }
            let header = try reader.retrieveHeader()
            let (dataCount, dataBytes) = try reader.imageDataSummary()
            return FeedStoreInfo(kind: "postgresql", path: name, exists: true, schemaVersion: state.version,
                                 itemCount: header?.count, timestamp: header?.timestamp, imageDataCount: dataCount, imageDataBytes: dataBytes)
        } catch {
            throw error
        }
    }

    /// Bounds every wait for a lock in this transaction to `wait` seconds
    /// (at once for 0): the writers' lock, and a table another session
    /// locked (`LOCK TABLE`, a schema upgrade), which readers wait for too.
    private func boundWaits(_ connection: PostgreSQLConnection) throws(ErrorRecord) {
        connection.wait = wait
        // At least a second: --wait 0 is for the writers' lock (tried, not
        // waited for); a table's lock held a moment (autovacuum truncating
        // one) is no busy store.
        try connection.execute("SET LOCAL lock_timeout = \(max(1000, Self.milliseconds(wait)))", "lock")
    }

    /// `seconds` in whole milliseconds, rounded up.
    private static func milliseconds(_ seconds: Double) -> Int {
        Int(min(seconds * 1000, Double(Int32.max)).rounded(.up))
    }



    /// One transaction at a time per instance (one connection).
    private func enter() throws(ErrorRecord) {
        guard !running else { throw ErrorRecord(.internal, "\(name): a transaction is already running on this store instance") }
        running = true
    }

    /// The connection, made at the first use and again when the last one broke.
    private func connect() throws(ErrorRecord) -> PostgreSQLConnection {
        if let connection, connection.isUsable { return connection }
        connection = nil
        let made = try PostgreSQLConnection(uri: uri, name: name)
        connection = made
        return made
    }

    /// Takes the writers' advisory lock, waiting up to `wait` seconds.
    private func lock(_ connection: PostgreSQLConnection) throws(ErrorRecord) {
        let keys = "\(Self.lockKeys.0), \(Self.lockKeys.1)"
        if wait == 0 {
            guard try connection.query("SELECT pg_try_advisory_xact_lock(\(keys))", "lock").text(0, 0) == "t" else {
                throw FeedStores.busy(name, wait: wait)
            }
            return
        }
        // Waited for `wait` exactly, then the floor of the other waits again
        // (a lock timeout is `busy`: see `PostgreSQLConnection.failure`).
        try connection.execute("SET LOCAL lock_timeout = \(max(1, Self.milliseconds(wait)))", "lock")
        _ = try connection.query("SELECT pg_advisory_xact_lock(\(keys))", "lock")
        try connection.execute("SET LOCAL lock_timeout = \(max(1000, Self.milliseconds(wait)))", "lock")
    }

    enum SchemaState: Equatable {
        case missing
        /// Ours (its `store` table says so), with a table or a column of its
        /// version missing: reset by the next write that deletes the cached
        /// feed (delete, validate, save), as the SQLite store resets a
        /// damaged file of ours; every other read or write fails.
        case damaged(String)
        /// An earlier version, read as it is and migrated by the next write
        /// transaction: 1, before each image kept when it was first cached;
        /// 2, before image data was keyed by URLs of any length.
        case older(Int)
        case current

        /// The version of a schema of ours that is there.
        var version: Int {
            if case let .older(version) = self { return version }
            return PostgreSQLFeedStore.schemaVersion
        }
    }

    /// Whether the store's schema is there and ours, at this version.
    private func schemaState(_ connection: PostgreSQLConnection) throws(ErrorRecord) -> SchemaState {
        let tables = try connection.query("""
            SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
            """, [Self.schema], "read the schema")
        guard tables.rows > 0 else { return .missing }
        let names = Set((0..<tables.rows).compactMap { tables.text($0, 0) })
        guard names.contains("store") else { throw foreign("its tables are not a feed cache's (no \(Self.schema).store)") }
        let marks: PostgreSQLResult
        do throws(ErrorRecord) {
            marks = try connection.query("SELECT application, schema_version FROM \(Self.schema).store", "read the schema")
        } catch {
            // A role that may not read it is told so: the store may well be ours.
            if connection.lastSQLState == PostgreSQLConnection.insufficientPrivilege { throw error }
            throw foreign("\(Self.schema).store is not a feed cache's")
        }
        guard marks.rows == 1, marks.text(0, 0) == Self.application, let version = marks.text(0, 1).flatMap({ Int($0) }) else {
            throw foreign("\(Self.schema).store is not a feed cache's")
        }
        if version != Self.schemaVersion {
            if version > Self.schemaVersion {
                throw ErrorRecord(.store, "\(name): the feed cache's schema is version \(version), newer than this release's (\(Self.schemaVersion)): upgrade essential-feed")
            }
            guard version >= 1 else { throw foreign("unknown schema version \(version)") }
        }
        let missingTables = ["feed_cache", "feed_image", "image_data"].filter { !names.contains($0) }
        guard missingTables.isEmpty else { return .damaged("tables missing: \(missingTables.joined(separator: ", "))") }
        // The columns, from the catalog (which any role may read, whatever its rights on the tables).
        let columns = try connection.query("""
            SELECT c.relname, a.attname FROM pg_catalog.pg_attribute a
            JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND a.attnum > 0 AND NOT a.attisdropped
            """, [Self.schema], "read the schema")
        let present = Set((0..<columns.rows).compactMap { row in columns.text(row, 0).flatMap { table in columns.text(row, 1).map { table + "." + $0 } } })
        let missingColumns = Self.columns(version: version).filter { !present.contains($0) }
        guard missingColumns.isEmpty else { return .damaged("columns missing: \(missingColumns.joined(separator: ", "))") }
        return version < Self.schemaVersion ? .older(version) : .current
    }

    /// The columns of the feed's tables at `version`, as `TABLE.COLUMN`.
    private static func columns(version: Int) -> [String] {
        ["feed_cache.singleton", "feed_cache.timestamp_seconds", "feed_cache.timestamp_nanoseconds", "feed_cache.validators_url",
         "feed_cache.etag", "feed_cache.last_modified", "feed_image.position", "feed_image.id", "feed_image.description",
         "feed_image.location", "feed_image.url", "feed_image.data_key", "image_data.url", "image_data.data"]
            + (version >= 2 ? ["feed_image.first_cached_seconds"] : [])
    }

    private func damaged(_ reason: String) -> ErrorRecord {
        ErrorRecord(.store, "\(name): damaged feed cache: \(reason) (validate or the next save resets it)")
    }

    /// A store of ours that lost a table or a column: its feed tables made
    /// anew, empty, at this version (its feed and image data are lost, as a
    /// damaged file's are).
    private func resetTables(_ connection: PostgreSQLConnection) throws(ErrorRecord) {
        let s = Self.schema
        try connection.execute("""
            DROP TABLE IF EXISTS \(s).feed_cache, \(s).feed_image, \(s).image_data;
            \(Self.feedTables);
            UPDATE \(s).store SET schema_version = \(Self.schemaVersion);
            """, "reset the damaged store")
    }

    private func foreign(_ reason: String) -> ErrorRecord {
        ErrorRecord(.store, "\(name): the schema \(Self.schema) is not a feed cache of this toolkit's: \(reason); nothing was changed")
    }

    /// Migrates a schema of `version` to this one, step by step.
    ///
    /// - 1 to 2: when each image was first cached, a column of its row,
    ///   given to the rows already there as their feed's timestamp (now,
    ///   before a confirmation or an append moves it).
    /// - 2 to 3: image data keyed by its URL through a hash index, not a
    ///   B-tree: a B-tree's entry holds the key itself, at most about 2,700
    ///   bytes once compressed, and one longer image URL (the server's to
    ///   choose) failed the whole `save-images`. An exclusion constraint on
    ///   that index keeps each URL once, comparing the URLs themselves (a
    ///   unique index on a digest of the URL would let two URLs of one
    ///   digest take each other's place).
    private func migrate(from version: Int, _ connection: PostgreSQLConnection) throws(ErrorRecord) {
        let s = Self.schema
        var steps: [String] = []
        if version < 2 {
            steps.append("""
                ALTER TABLE \(s).feed_image ADD COLUMN first_cached_seconds bigint;
                UPDATE \(s).feed_image SET first_cached_seconds = (SELECT timestamp_seconds FROM \(s).feed_cache)
                """)
        }
        if version < 3 {
            steps.append("""
                ALTER TABLE \(s).image_data DROP CONSTRAINT IF EXISTS image_data_pkey, DROP CONSTRAINT IF EXISTS image_data_url,
                    ALTER COLUMN url SET NOT NULL, \(Self.imageDataKey)
                """)
        }
        steps.append("UPDATE \(s).store SET schema_version = \(Self.schemaVersion)")
        try connection.execute(steps.joined(separator: ";\n"), "migrate the store's schema")
    }

    /// Each image's data under its URL once, however long the URL: an
    /// exclusion constraint on a hash index (see `migrate`).
    static let imageDataKey = "ADD CONSTRAINT image_data_url EXCLUDE USING hash (url WITH =)"

    /// The feed's tables, as this version makes them (statements joined by `;`).
    static let feedTables = """
        CREATE TABLE \(schema).feed_cache (
            singleton integer PRIMARY KEY CHECK (singleton = 1),
            timestamp_seconds bigint NOT NULL,
            timestamp_nanoseconds integer NOT NULL CHECK (timestamp_nanoseconds BETWEEN 0 AND 999999999),
            validators_url text,
            etag text,
            last_modified text
        );
        CREATE TABLE \(schema).feed_image (
            position bigint PRIMARY KEY,
            id text NOT NULL,
            description text,
            location text,
            url text NOT NULL,
            data_key text,
            first_cached_seconds bigint
        );
        CREATE TABLE \(schema).image_data (
            url text NOT NULL,
            data bytea NOT NULL
        );
        ALTER TABLE \(schema).image_data \(imageDataKey)
        """

    private func createSchema(_ connection: PostgreSQLConnection) throws(ErrorRecord) {
        let s = Self.schema
        try connection.execute("""
            CREATE SCHEMA IF NOT EXISTS \(s);
            CREATE TABLE \(s).store (
                singleton integer PRIMARY KEY CHECK (singleton = 1),
                application text NOT NULL,
                schema_version integer NOT NULL
            );
            INSERT INTO \(s).store VALUES (1, '\(Self.application)', \(Self.schemaVersion));
            \(Self.feedTables)
            """, "create the store's schema")
    }
}
