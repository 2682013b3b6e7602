import CSQLite
import Foundation
import XCTest
import EssentialFeed
import EssentialFeedInfra

/// What is particular to the SQLite store's file: its marks, its journal,
/// files it must refuse, damage it can recover from.
final class SQLiteFeedStoreFileTests: XCTestCase {
    private var directory: StoreTestDirectory!

    override func setUpWithError() throws {
        directory = try StoreTestDirectory()
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    func test_insert_marksTheFileAsAFeedCacheOfSchemaVersion1() throws {
        try makeSUT().insert(uniqueFeed(), timestamp: anyTimestamp())

        XCTAssertEqual(try integer("PRAGMA application_id"), 0x4546_6564)
        XCTAssertEqual(try integer("PRAGMA user_version"), 1)
        XCTAssertEqual(SQLiteFeedStore.schemaVersion, 1)
    }

    func test_insert_usesARollbackJournal() throws {
        try makeSUT().insert(uniqueFeed(), timestamp: anyTimestamp())

        XCTAssertEqual(try text("PRAGMA journal_mode"), "delete")
        XCTAssertEqual(StoreTestFiles.names(in: directory.path), ["feed.sqlite"], "Expected one file at rest")
    }

    func test_insert_storesTheTimestampAsExactSecondsAndNanoseconds() throws {
        try makeSUT().insert(uniqueFeed(), timestamp: Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789))

        XCTAssertEqual(try integer("SELECT timestamp_seconds FROM feed_cache"), 1_700_000_000)
        XCTAssertEqual(try integer("SELECT timestamp_nanoseconds FROM feed_cache"), 123_456_789)
    }

    func test_store_refusesADatabaseOfAnotherApplicationAndLeavesItUntouched() throws {
        try execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')")
        let before = StoreTestFiles.bytes(storePath)
        let sut = makeSUT()

        let error = caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() })
        XCTAssertEqual(error, ErrorRecord(.store, "\(storePath): not a feed cache (a SQLite database of another application)"))
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.insert(uniqueFeed(), timestamp: anyTimestamp()) }), error)
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try LocalFeedLoader(store: sut, currentDate: anyTimestamp).validateCache() }), error)

        XCTAssertEqual(StoreTestFiles.bytes(storePath), before)
        XCTAssertEqual(try text("SELECT body FROM notes"), "mine")
    }

    func test_store_refusesANewerSchemaVersion() throws {
        let sut = makeSUT()
        try sut.insert(uniqueFeed(), timestamp: anyTimestamp())
        try execute("PRAGMA user_version = 2")

        let expected = ErrorRecord(.store, "\(storePath): feed cache schema version 2 is newer than this release supports (1)")
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try makeSUT().retrieve() }), expected)
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try makeSUT().deleteCachedFeed() }), expected)
        XCTAssertEqual(try integer("SELECT count(*) FROM feed_image"), 2, "Expected nothing deleted")
    }

    func test_retrieve_failsOnADamagedFeedThatValidationThenDeletes() throws {
        let sut = makeSUT()
        try sut.insert(uniqueFeed(count: 3), timestamp: anyTimestamp())
        try execute("UPDATE feed_image SET id = 'not-a-uuid' WHERE position = 1")

        let damage = ErrorRecord(.store, "\(storePath): damaged feed cache: item 2 has no valid id")
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() }), damage)

        let validation = try LocalFeedLoader(store: sut, currentDate: anyTimestamp).validateCache()

        XCTAssertEqual(validation, .deletedUnreadable(damage))
        expect(sut, toRetrieve: nil)
    }

    func test_retrieve_waitsForAWritersCommitWithinItsWaitLimit() throws {
        // A reader is only ever blocked while a writer commits; the wait limit bounds that too.
        let sut = makeSUT(wait: 0.3)
        let path = storePath
        try sut.insert(uniqueFeed(), timestamp: anyTimestamp())
        try execute("BEGIN EXCLUSIVE") { _ in
            let error = caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() })
            XCTAssertEqual(error?.kind, .busy)
            XCTAssertEqual(error?.message, "\(path): store is busy: still locked by another process after waiting 0.3 s")
        }
        XCTAssertEqual(try sut.retrieve()?.feed.count, 2)
    }

    // MARK: Helpers

    private var storePath: String { directory.file("feed.sqlite") }

    private func makeSUT(wait: Double = 1) -> SQLiteFeedStore {
        SQLiteFeedStore(path: storePath, wait: wait)
    }

    private struct SQLiteError: Error { let message: String }

    /// Runs `sql` on a connection of its own; `whileOpen` runs before the connection closes.
    private func execute(_ sql: String, whileOpen: ((OpaquePointer) -> Void)? = nil) throws {
        var db: OpaquePointer?
        guard sqlite3_open(storePath, &db) == SQLITE_OK, let db else { throw SQLiteError(message: "cannot open") }
        defer { sqlite3_close(db) }
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw SQLiteError(message: String(cString: sqlite3_errmsg(db))) }
        whileOpen?(db)
    }

    private func text(_ sql: String) throws -> String? {
        var result: String?
        try execute("SELECT 1") { db in
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return }
            defer { sqlite3_finalize(statement) }
            if sqlite3_step(statement) == SQLITE_ROW, let value = sqlite3_column_text(statement, 0) {
                result = String(cString: value)
            }
        }
        return result
    }

    private func integer(_ sql: String) throws -> Int64? {
        try text(sql).flatMap { Int64($0) }
    }
}
