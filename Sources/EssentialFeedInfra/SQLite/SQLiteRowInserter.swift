import CSQLite
import EssentialFeed

/// Inserts a save's rows on a second thread while the caller reads and
/// checks the next records: each row's text is copied into a batch (some
/// 200 bytes a row), and a full batch is handed to the thread, which binds
/// and steps its rows under the connection's interrupt guard. At most two
/// batches: one filling, one being inserted; the caller waits when both are
/// busy. A feed of one batch never starts the thread: `settle` inserts it
/// in the caller's thread.
///
/// A failure of the thread (a full disk, a read-only file) is thrown by the
/// caller's next `add` or `settle`, so the transaction still ends before it
/// commits. An interrupt's rollback (`RollbackOnInterrupt`) takes the guard
/// between two batches and keeps it; a batch found with no transaction open
/// is never inserted (SQLite would commit it on its own).
///
/// The thread holds this object; SQLite's objects it only uses: the
/// statement belongs to the writer and the connection to the store, so that
/// neither is ever finalized or closed on the thread.
final class SQLiteRowInserter: @unchecked Sendable {
    private unowned let connection: SQLiteConnection
    private let statement: OpaquePointer
    /// Inserts `groupSize` rows at once.
    private let group: OpaquePointer
    /// Rows a grouped insert takes: one statement of that many rows costs
    /// SQLite about two thirds of as many single inserts (32 measured best
    /// among 4, 8, 16, 32, 64 at 1M rows; 4 and 8 were slower than one).
    static let groupSize = 32
    private var filling = SQLiteRowBatch()
    /// Shared with the thread, under `condition`.
    private let condition = Condition()
    private var handed: SQLiteRowBatch?
    private var spare: SQLiteRowBatch?
    private var failure: ErrorRecord?
    private var started = false
    private var running = false
    private var stopping = false
    private var abandoned = false
    /// Rows inserted on the thread since it last wrote the file's pages back.
    private var rowsSinceWriteBack = 0
    static let writeBackRows = 16_384

    /// When the rows' images were first cached, when they do not say.
    private let firstCached: Int64

    /// `statement` inserts a row's five fields, `group` the fields of
    /// `groupSize` rows; both must outlive `stop()`.
    init(_ connection: SQLiteConnection, _ statement: OpaquePointer, group: OpaquePointer, firstCached: Int64) {
        self.connection = connection
        self.firstCached = firstCached
        self.statement = statement
        self.group = group
    }

    /// The statement `group` is prepared from.
    static func groupSQL(_ insert: String) -> String {
        insert + Array(repeating: "(?, ?, ?, ?, ?)", count: groupSize).joined(separator: ", ")
    }

    func add(_ image: CachedImageText) throws(ErrorRecord) {
        filling.append(image, firstCached: firstCached)
        if filling.isFull { try hand() }
    }

    /// Inserts every row added so far, in this thread or waiting for the
    /// other; throws the first failure of either.
    func settle() throws(ErrorRecord) {
        condition.lock()
        while handed != nil { condition.wait() }
        let failed = failure
        condition.unlock()
        if let failed { throw failed }
        guard !filling.isEmpty else { return }
        defer { filling.clear() }
        if let error = insert(filling) {
            condition.lock()
            if failure == nil { failure = error }
            condition.unlock()
            throw error
        }
    }

    /// Ends the thread, dropping the rows not yet inserted (after `settle`:
    /// none), and returns once it has left: it uses nothing after that.
    /// Waits for a batch being inserted, so call it without holding the
    /// interrupt guard.
    func stop() {
        condition.lock()
        abandoned = true
        stopping = true
        condition.broadcast()
        while handed != nil || running { condition.wait() }
        condition.unlock()
        filling.clear()
    }

    private func hand() throws(ErrorRecord) {
        condition.lock()
        while handed != nil && failure == nil { condition.wait() }
        if let failed = failure {
            condition.unlock()
            throw failed
        }
        let start = !started
        if start {
            started = true
            running = startThread { [self] in run() }
        }
        guard running else {
            // No second thread to be had: the batch goes in here.
            condition.unlock()
            try settle()
            return
        }
        handed = filling
        filling = spare ?? SQLiteRowBatch()
        spare = nil
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            while handed == nil && !stopping { condition.wait() }
            guard let batch = handed else { break }
            let skip = abandoned || failure != nil
            condition.unlock()
            let error = skip ? nil : insert(batch)
            rowsSinceWriteBack += batch.count
            if rowsSinceWriteBack >= Self.writeBackRows {
                rowsSinceWriteBack = 0
                connection.writeBack()
            }
            batch.clear()
            condition.lock()
            if let error, failure == nil { failure = error }
            handed = nil
            spare = batch
            condition.broadcast()
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }

    /// The batch's rows, under the interrupt guard; the failure, if any.
    private func insert(_ batch: SQLiteRowBatch) -> ErrorRecord? {
        do throws(ErrorRecord) {
            try connection.guarded { () throws(ErrorRecord) in
                guard sqlite3_get_autocommit(connection.db) == 0 else {
                    throw ErrorRecord(.store, "\(connection.path): the transaction ended before its rows were written")
                }
                // Whole groups of rows through `group`, the rest one at a
                // time; the text stays in the batch until the call returns.
                let grouped = batch.count / Self.groupSize * Self.groupSize
                var row = 0
                try batch.forEachRow { (id, description, location, url, firstCached) throws(ErrorRecord) in
                    let statement = row < grouped ? self.group : self.statement
                    let first = Int32(row < grouped ? row % Self.groupSize * 5 : 0) + 1
                    row += 1
                    var code = SQLiteStatement.bindStatic(statement, first, id)
                    if code == SQLITE_OK { code = SQLiteStatement.bindStatic(statement, first + 1, description) }
                    if code == SQLITE_OK { code = SQLiteStatement.bindStatic(statement, first + 2, location) }
                    if code == SQLITE_OK { code = SQLiteStatement.bindStatic(statement, first + 3, url) }
                    if code == SQLITE_OK { code = sqlite3_bind_int64(statement, first + 4, firstCached) }
                    guard code == SQLITE_OK else { throw connection.failure(code, "write") }
                    guard row > grouped || row % Self.groupSize == 0 else { return }
                    code = sqlite3_step(statement)
                    sqlite3_reset(statement)
                    guard code == SQLITE_DONE else { throw connection.failure(code, "write") }
                }
            }
            return nil
        } catch {
            return error
        }
    }
}
