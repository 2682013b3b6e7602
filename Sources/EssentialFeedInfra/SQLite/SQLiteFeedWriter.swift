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

/// Inserts the images of the feed a transaction writes, one row each: the
/// rows of ids not seen before go to a `SQLiteRowInserter`, which writes
/// them on a second thread while the next records are read; past
/// `idsInMemory` ids, each row is inserted here, a unique index finding the
/// repeated ids.
final class SQLiteFeedWriter: FeedImageWriter {
    /// The index on `feed_image(id)` a save makes when it has more ids than it keeps in memory.
    static let indexName = "feed_image_id_while_saving"

    /// The inserts of a save, up to their rows' values. `OR FAIL`: a
    /// statement of many rows that failed would keep the rows before the
    /// failing one (the transaction is rolled back anyway), so SQLite keeps
    /// no statement journal for it. Without it, SQLite copies each page a
    /// statement changes before it changes it, to undo the statement alone:
    /// a 64 KiB page for every 32 rows, most of a gigabyte copied for a
    /// million images.
    static let insertSQL = "INSERT OR FAIL INTO feed_image (id, description, location, url, first_cached_seconds) VALUES "

    private let connection: SQLiteConnection
    private var inserter: SQLiteRowInserter?
    /// The inserter's statements, finalized here (never on its thread).
    private var insert: SQLiteStatement?
    private var insertGroup: SQLiteStatement?
    /// The statement of the indexed inserts.
    private var statement: SQLiteStatement?
    private var ids: IDSet
    private let idsInMemory: Int
    /// Whether repeated ids are found by the index rather than by `ids`.
    private(set) var indexed = false
    private var active = true
    /// When the images added were first cached, when they do not say (the feed's timestamp).
    private let firstCached: Int64

    /// Each row is given the next position after the feed's last (SQLite's
    /// new rowid: appended to the table's b-tree without a search).
    init(_ connection: SQLiteConnection, ids: consuming IDSet, idsInMemory: Int, firstCached: Int64) throws(ErrorRecord) {
        self.connection = connection
        self.firstCached = firstCached
        self.ids = ids
        self.idsInMemory = idsInMemory
        let insert = try connection.prepare(Self.insertSQL + "(?, ?, ?, ?, ?)", "write")
        let group = try connection.prepare(SQLiteRowInserter.groupSQL(Self.insertSQL), "write")
        self.insert = insert
        insertGroup = group
        inserter = SQLiteRowInserter(connection, insert.statement, group: group.statement, firstCached: firstCached)
    }

    /// Writes every row added so far (call it before anything else uses the
    /// connection); throws the inserts' first failure.
    func settle() throws(ErrorRecord) {
        try inserter?.settle()
    }

    /// Ends the writer: the rows not yet written are dropped (after
    /// `settle`: none). Call it without holding the interrupt guard.
    func end() {
        active = false
        inserter?.stop()
        inserter = nil
        insert = nil
        insertGroup = nil
    }

    /// From now on repeated ids are found by a unique index (made here, on the
    /// rows so far: they are each of another id), and `ids` is freed.
    /// The index is sorted with a smaller cache (SQLite's sorter takes as
    /// much memory as the page cache) so that memory stays within its bound.
    func indexIDs() throws(ErrorRecord) {
        try settle()
        inserter?.stop()
        inserter = nil
        insert = nil
        insertGroup = nil
        ids = IDSet(directory: FeedStores.folder(of: connection.path), path: connection.path)
        statement = try connection.guarded { () throws(ErrorRecord) -> SQLiteStatement in
            try connection.execute("PRAGMA cache_size = -\(SQLiteFeedStore.cacheKiB / 4)", "write")
            try connection.execute("CREATE UNIQUE INDEX IF NOT EXISTS \(Self.indexName) ON feed_image (id)", "write")
            try connection.execute("PRAGMA cache_size = -\(SQLiteFeedStore.cacheKiB)", "write")
            return try connection.prepare("INSERT OR IGNORE INTO feed_image (id, description, location, url, first_cached_seconds) VALUES (?, ?, ?, ?, ?)", "write")
        }
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
        if let inserter {
            guard try ids.insert(id) else { return false }
            try inserter.add(image)
            if ids.count > idsInMemory { try indexIDs() }
            return true
        }
        return try connection.guarded { () throws(ErrorRecord) -> Bool in
            guard let statement = self.statement?.statement else { throw ErrorRecord(.internal, "\(connection.path): no statement to insert with") }
            var code = SQLiteStatement.bindStatic(statement, 1, image.id)
            if code == SQLITE_OK { code = SQLiteStatement.bindStatic(statement, 2, image.description) }
            if code == SQLITE_OK { code = SQLiteStatement.bindStatic(statement, 3, image.location) }
            if code == SQLITE_OK { code = SQLiteStatement.bindStatic(statement, 4, image.url) }
            if code == SQLITE_OK { code = sqlite3_bind_int64(statement, 5, image.firstCached ?? firstCached) }
            if code == SQLITE_OK { code = sqlite3_step(statement) }
            // The statement keeps pointers to the lent text, but reads them
            // only when stepped, after the next row's bindings replaced them.
            sqlite3_reset(statement)
            guard code == SQLITE_DONE else { throw connection.failure(code, "write") }
            return sqlite3_changes(connection.db) > 0
        }
    }
}
