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

    func test_insert_marksTheFileAsAFeedCacheOfSchemaVersion3() throws {
        try makeSUT().insert(uniqueFeed(), timestamp: anyTimestamp())

        XCTAssertEqual(try integer("PRAGMA application_id"), 0x4546_6564)
        XCTAssertEqual(try integer("PRAGMA user_version"), 3)
        XCTAssertEqual(SQLiteFeedStore.schemaVersion, 3)
    }

    func test_insert_makesANewFileOf64KiBPages() throws {
        try makeSUT().insert(uniqueFeed(), timestamp: anyTimestamp())

        XCTAssertEqual(try integer("PRAGMA page_size"), 65_536)
        XCTAssertEqual(SQLiteFeedStore.pageSize, 65_536)
    }

    func test_insert_usesARollbackJournal() throws {
        try makeSUT().insert(uniqueFeed(), timestamp: anyTimestamp())

        XCTAssertEqual(try text("PRAGMA journal_mode"), "delete")
        XCTAssertEqual(StoreTestFiles.names(in: directory.path), ["feed.sqlite"], "Expected one file at rest")
    }

    /// SQLite undoes a failed statement alone through a statement journal:
    /// a copy of each page the statement changes (a temporary file past
    /// 64 KiB). A save's inserts of many rows need none (making the
    /// schema of a new file does, once: it is made first here).
    func test_save_ofManyBatches_opensNoStatementJournal() throws {
        try makeSUT().insert(uniqueFeed(), timestamp: anyTimestamp())
        let feed = uniqueFeed(count: 12_000)
        let opened = try CountingVFS.journalsOpened {
            let sut = makeSUT()
            _ = try LocalFeedLoader(store: sut, currentDate: anyTimestamp).save(reading: reading(feed))
            XCTAssertEqual(try sut.retrieve()?.feed, feed)
        }

        XCTAssertEqual(opened.statement, 0, "statement journals opened")
        XCTAssertEqual(opened.rollback, 1, "the transaction's own journal")
    }

    /// A long save writes the file's pages back as it goes (Linux's
    /// `sync_file_range`), so that its commit has only the last ones left to
    /// wait for: by the end of its input, the device that holds the file has
    /// been sent most of the file made so far. Said and not checked where
    /// the device's counts cannot be read.
    func test_save_writesTheFilesPagesBackWhileItRuns() throws {
        guard let sectorsWritten = Self.sectorsWritten(onTheDeviceOf: directory.path) else {
            print("SQLiteFeedStoreFileTests: write-back during a save not checked: no block device statistics for \(directory.path)")
            return
        }
        let feed = uniqueFeed(count: 100_000)
        var next = feed.makeIterator()
        let before = sectorsWritten()
        var sentBeforeCommit = 0, fileBytes = 0
        let reading: LocalFeedLoader.FeedImageReading = { (add) throws(ErrorRecord) -> Bool in
            guard let image = next.next() else {
                sentBeforeCommit = (sectorsWritten() - before) * 512
                fileBytes = (try? FileManager.default.attributesOfItem(atPath: self.storePath)[.size] as? Int) ?? 0
                return false
            }
            _ = try CachedImageText.lending(image) { (text) throws(ErrorRecord) in try add(text) }
            return true
        }

        _ = try LocalFeedLoader(store: makeSUT(), currentDate: anyTimestamp).save(reading: reading)

        XCTAssertGreaterThan(fileBytes, 10 << 20)
        XCTAssertGreaterThan(sentBeforeCommit, fileBytes / 3, "bytes sent to the device before the commit, of a file of \(fileBytes)")
    }

    /// Sectors written to the block device that holds `path`, as Linux
    /// counts them (`/sys/dev/block/MAJOR:MINOR/stat`); nil where unknown.
    private static func sectorsWritten(onTheDeviceOf path: String) -> (() -> Int)? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let device = UInt64(status.st_dev)
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~0xFFF)
        let minor = (device & 0xFF) | ((device >> 12) & ~0xFF)
        let file = "/sys/dev/block/\(major):\(minor)/stat"
        let read = { () -> Int? in
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
            let fields = text.split(separator: " ")
            return fields.count > 6 ? Int(fields[6]) : nil
        }
        guard read() != nil else { return nil }
        return { read() ?? 0 }
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

    func test_store_refusesAnEmptyDatabaseOfAnotherApplicationAndLeavesItUntouched() throws {
        try execute("PRAGMA user_version = 0; VACUUM")  // a database with a header and no tables
        try execute("CREATE TABLE t (x); DROP TABLE t")
        let before = StoreTestFiles.bytes(storePath)
        XCTAssertGreaterThan(before?.count ?? 0, 0)
        let sut = makeSUT()

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.insert(uniqueFeed(), timestamp: anyTimestamp()) })?.kind, .store)
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.deleteCachedFeed() })?.kind, .store)

        XCTAssertEqual(StoreTestFiles.bytes(storePath), before)
    }

    func test_validateCache_resetsAFeedCacheDamagedPastItsHeader() throws {
        let sut = makeSUT()
        try sut.insert(uniqueFeed(count: 3), timestamp: anyTimestamp())
        var bytes = StoreTestFiles.bytes(storePath) ?? []
        for i in 100..<min(bytes.count, 4096) { bytes[i] = 0x41 }
        StoreTestFiles.write(bytes, to: storePath)
        XCTAssertEqual(SQLiteFileHeader.classify(bytes.prefix(100)), .feedCache)
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try makeSUT().retrieve() })?.kind, .store)

        XCTAssertNoThrow(try LocalFeedLoader(store: makeSUT(), currentDate: anyTimestamp).validateCache())

        XCTAssertNil(try makeSUT().retrieve())
    }

    func test_header_tellsAFeedCacheFromOtherFiles() {
        let magic = Array("SQLite format 3".utf8) + [0]
        func header(id: UInt32) -> [UInt8] {
            var bytes = magic + [UInt8](repeating: 0, count: 84)
            bytes[68] = UInt8(id >> 24); bytes[69] = UInt8(id >> 16 & 0xFF); bytes[70] = UInt8(id >> 8 & 0xFF); bytes[71] = UInt8(id & 0xFF)
            return bytes
        }
        XCTAssertEqual(SQLiteFileHeader.classify([]), .empty)
        XCTAssertEqual(SQLiteFileHeader.classify(Array("notes\n".utf8)), .notSQLite)
        XCTAssertEqual(SQLiteFileHeader.classify(Array(magic.prefix(10))), .notSQLite)
        XCTAssertEqual(SQLiteFileHeader.classify(magic), .otherDatabase)
        XCTAssertEqual(SQLiteFileHeader.classify(header(id: 0)), .otherDatabase)
        XCTAssertEqual(SQLiteFileHeader.classify(header(id: 0x4546_6564)), .feedCache)
        XCTAssertEqual(SQLiteFileHeader.classify(header(id: 0x4546_6564).prefix(72)), .feedCache)
        XCTAssertEqual(SQLiteFileHeader.classify(header(id: 0x4546_6564).prefix(71)), .otherDatabase)
    }

    func test_store_refusesANewerSchemaVersion() throws {
        let sut = makeSUT()
        try sut.insert(uniqueFeed(), timestamp: anyTimestamp())
        try execute("PRAGMA user_version = 4")

        let expected = ErrorRecord(.store, "\(storePath): feed cache schema version 4 is newer than this release supports (3)")
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try makeSUT().retrieve() }), expected)
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try makeSUT().deleteCachedFeed() }), expected)
        XCTAssertEqual(try integer("SELECT count(*) FROM feed_image"), 2, "Expected nothing deleted")
    }

    func test_retrieve_failsOnADamagedFeedThatValidationThenDeletes() throws {
        let sut = makeSUT()
        try sut.insert(uniqueFeed(count: 3), timestamp: anyTimestamp())
        try execute("UPDATE feed_image SET id = 'not-a-uuid' WHERE position = (SELECT min(position) + 1 FROM feed_image)")

        let damage = ErrorRecord(.store, "\(storePath): damaged feed cache: item 2 has no valid id")
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() }), damage)

        let validation = try LocalFeedLoader(store: sut, currentDate: anyTimestamp).validateCache()

        XCTAssertEqual(validation, .deletedUnreadable(damage))
        expect(sut, toRetrieve: nil)
    }

    /// SQLite keeps text as it is given: a description edited in another
    /// encoding was loaded as it lay, and the record written was not UTF-8
    /// (found by the hunt). It is damage, as an id that is no UUID is.
    func test_retrieve_failsOnTextThatIsNotUTF8() throws {
        for (column, value) in [("description", "x'43616ef3'"), ("location", "x'c0af'"), ("url", "x'ff00'")] {
            try? FileManager.default.removeItem(atPath: storePath)
            let sut = makeSUT()
            try sut.insert(uniqueFeed(count: 3), timestamp: anyTimestamp())
            try execute("UPDATE feed_image SET \(column) = CAST(\(value) AS TEXT) WHERE position = (SELECT max(position) FROM feed_image)")

            let damage = ErrorRecord(.store, "\(storePath): damaged feed cache: item 3 has text that is not UTF-8")
            XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() }), damage, column)
        }
        try execute("UPDATE feed_image SET description = 'Caf\u{E9} \u{1F600}', location = NULL, url = 'http://h/\u{E9}'")
        XCTAssertEqual(try makeSUT().retrieve()?.feed.first?.description, "Caf\u{E9} \u{1F600}", "UTF-8 beyond ASCII is text")
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

    func test_save_pastTheIDsKeptInMemory_findsRepeatedIDsThroughAnIndexDroppedBeforeCommit() throws {
        let sut = makeSUT()
        sut.idsInMemory = 3
        let feed = uniqueFeed(count: 8)
        let input = feed[0..<5] + [feed[1], feed[4]] + feed[5...] + [feed[7], feed[0]]

        let result = try LocalFeedLoader(store: sut, currentDate: anyTimestamp).save(reading: reading(input))

        XCTAssertEqual(result, FeedCacheSaveResult(saved: 8, skipped: 4))
        XCTAssertEqual(try sut.retrieve()?.feed, feed)
        XCTAssertEqual(try integer("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'feed_image'"), 0,
                       "Expected the schema at rest unchanged")
    }

    func test_append_pastTheIDsKeptInMemory_skipsCachedIDsAndLeavesNoIndex() throws {
        let sut = makeSUT()
        sut.idsInMemory = 2
        let cached = uniqueFeed(count: 4)
        try sut.insert(cached, timestamp: anyTimestamp())
        let new = uniqueFeed(count: 2)

        let result = try LocalFeedLoader(store: sut, currentDate: anyTimestamp).append(reading: reading([cached[2]] + new + [new[0]]))

        XCTAssertEqual(result, FeedCacheAppendResult(kept: 4, added: 2, droppedExpired: 0))
        XCTAssertEqual(try sut.retrieve()?.feed, cached + new)
        XCTAssertEqual(try integer("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'feed_image'"), 0)
    }

    func test_save_failingPastTheIDsKeptInMemory_leavesTheFeedAndSchemaAsTheyWere() throws {
        let sut = makeSUT()
        sut.idsInMemory = 2
        let kept = uniqueFeed(count: 3)
        try sut.insert(kept, timestamp: anyTimestamp())
        let failure = ErrorRecord(.invalidData, "stdin:9: truncated line")
        var left = 6

        let error = caughtRecord({ () throws(ErrorRecord) in
            try LocalFeedLoader(store: sut, currentDate: anyTimestamp).save { (add) throws(ErrorRecord) in
                guard left > 0 else { throw failure }
                left -= 1
                return try CachedImageText.lending(uniqueImage()) { (text) throws(ErrorRecord) in try add(text) }
            }
        })

        XCTAssertEqual(error, failure)
        XCTAssertEqual(try sut.retrieve()?.feed, kept)
        XCTAssertEqual(try integer("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'feed_image'"), 0)
        XCTAssertEqual(StoreTestFiles.names(in: directory.path), ["feed.sqlite"], "Expected no journal left behind")
    }

    func test_storeWrittenByTheFirstRelease_loadsAsItWas() throws {
        // The schema and rows exactly as release 0.1.0 wrote them (positions from 0).
        let ids = ["2AB2AE66-A4B7-4A16-B374-51BBAC8DB086", "A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A", "166FCDD7-C9F4-420A-B2D6-CE2EAFA3D82F"]
        try execute("""
            BEGIN IMMEDIATE;
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
            PRAGMA application_id = 1162241380;
            PRAGMA user_version = 1;
            INSERT INTO feed_cache VALUES (1, 1700000000, 123456789);
            INSERT INTO feed_image VALUES (0, '\(ids[0])', 'a "quoted" café', 'Zürich\\n', 'http://h/0');
            INSERT INTO feed_image VALUES (1, '\(ids[1].lowercased())', NULL, NULL, 'http://h/1');
            INSERT INTO feed_image VALUES (2, '\(ids[2])', '', NULL, 'http://h/2');
            INSERT INTO image_data VALUES ('http://h/1', x'00FF');
            COMMIT;
            """)
        let sut = makeSUT()
        var records: [String] = []

        let summary = try LocalFeedLoader(store: sut, currentDate: anyTimestamp).load { image in
            var record: [UInt8] = []
            image.appendRecord(to: &record)
            records.append(String(decoding: record, as: UTF8.self))
        }

        XCTAssertEqual(summary, .found(CachedFeedHeader(timestamp: anyTimestamp(), count: 3)))
        XCTAssertEqual(records, [
            #"{"id":"2AB2AE66-A4B7-4A16-B374-51BBAC8DB086","description":"a \"quoted\" café","location":"Zürich\\n","url":"http://h/0"}"#,
            #"{"id":"A28F5FE3-27A7-44E9-8DF5-53742D0E4A5A","url":"http://h/1"}"#,
            #"{"id":"166FCDD7-C9F4-420A-B2D6-CE2EAFA3D82F","description":"","url":"http://h/2"}"#,
        ], "Expected the records the first release wrote, a lower-case id in canonical form")
        XCTAssertEqual(try sut.retrieveImageData(for: "http://h/1"), [0, 255])

        XCTAssertNil(try LocalFeedLoader(store: sut, currentDate: anyTimestamp).validators(), "version 1 keeps no validators")
        XCTAssertEqual(try integer("PRAGMA user_version"), 1, "reading migrates nothing")

        let appended = try LocalFeedLoader(store: sut, currentDate: anyTimestamp).append(reading: reading([uniqueImage()]))
        XCTAssertEqual(appended, FeedCacheAppendResult(kept: 3, added: 1, droppedExpired: 0))
        XCTAssertEqual(try sut.retrieve()?.feed.map(\.id.uuidString), ids + [try XCTUnwrap(sut.retrieve()?.feed.last?.id.uuidString)])
        XCTAssertEqual(try integer("PRAGMA user_version"), 3, "a write migrates to version 3: the validators' columns, then each image's first-cached time")
        XCTAssertEqual(try text("SELECT group_concat(coalesce(first_cached_seconds, 'null'), ' ') FROM feed_image"), "1700000000 1700000000 1700000000 1700000000",
                       "the rows already there were first cached with their feed, before the append restamped it")
        XCTAssertEqual(try integer("PRAGMA page_size"), 4_096, "an existing file keeps its page size")

        let validators = FeedValidators(url: "http://h/v1/feed", etag: "\"e\"", lastModified: nil)
        let confirmed = try LocalFeedLoader(store: sut, currentDate: anyTimestamp).confirm(validators: validators)
        XCTAssertEqual(confirmed?.count, 4)
        XCTAssertEqual(try LocalFeedLoader(store: sut, currentDate: anyTimestamp).validators(), validators)
    }

    func test_forEachCachedImage_failsOnADamagedItemAfterLendingTheOnesBefore() throws {
        let sut = makeSUT()
        let feed = uniqueFeed(count: 3)
        try sut.insert(feed, timestamp: anyTimestamp())
        try execute("UPDATE feed_image SET id = 'not-a-uuid' WHERE position = (SELECT min(position) + 1 FROM feed_image)")
        var seen: [FeedImage] = []

        let error = caughtRecord({ () throws(ErrorRecord) in
            try sut.read { (reader) throws(ErrorRecord) in try reader.forEachCachedImage { seen.append($0.image) } }
        })

        XCTAssertEqual(error, ErrorRecord(.store, "\(storePath): damaged feed cache: item 2 has no valid id"))
        XCTAssertEqual(seen, [feed[0]])
    }

    /// A save of many batches: the rows are written on a second thread, in
    /// input order, the first of each id kept (repeats across batches too).
    func test_save_ofMoreImagesThanABatch_writesThemInOrder_keepingTheFirstOfEachID() throws {
        let feed = uniqueFeed(count: 9_000)
        let input = feed + feed[100..<200] + [feed[8_999], feed[0]]
        let sut = makeSUT()

        let result = try LocalFeedLoader(store: sut, currentDate: anyTimestamp).save(reading: reading(input))

        XCTAssertEqual(result, FeedCacheSaveResult(saved: 9_000, skipped: 102))
        XCTAssertEqual(try sut.retrieve()?.feed, feed)
        let more = uniqueFeed(count: 5_000)
        let appended = try LocalFeedLoader(store: sut, currentDate: anyTimestamp).append(reading: reading(more + feed[0..<10]))
        XCTAssertEqual(appended, FeedCacheAppendResult(kept: 9_000, added: 5_000, droppedExpired: 0))
        XCTAssertEqual(try sut.retrieve()?.feed, feed + more)
    }

    /// A write failing on the save's second thread (here: no room in the
    /// file) ends the save with the store error at the next image, and the
    /// old feed stays.
    func test_save_failingOnTheWritingThread_isAStoreError_stopsReading_andKeepsTheOldFeed() throws {
        let sut = makeSUT()
        let old = uniqueFeed(count: 3)
        try sut.insert(old, timestamp: anyTimestamp())
        let feed = uniqueFeed(count: 60_000)
        var read = 0
        var iterator = feed.makeIterator()
        let counting: LocalFeedLoader.FeedImageReading = { (add) throws(ErrorRecord) -> Bool in
            guard let image = iterator.next() else { return false }
            read += 1
            _ = try CachedImageText.lending(image) { (text) throws(ErrorRecord) in try add(text) }
            return true
        }

        var error: ErrorRecord?
        StoreTestFiles.withFileSizeLimit(0) {
            error = caughtRecord({ () throws(ErrorRecord) in try LocalFeedLoader(store: sut, currentDate: anyTimestamp).save(reading: counting) })
        }

        XCTAssertEqual(error?.kind, .store)
        XCTAssertTrue(error?.message.contains("too large") == true, error?.message ?? "no error")
        XCTAssertLessThan(read, feed.count, "Expected the save to stop reading once a write failed")
        XCTAssertEqual(try sut.retrieve()?.feed, old)
        XCTAssertEqual(StoreTestFiles.names(in: directory.path), ["feed.sqlite"], "Expected no journal left")
    }

    /// Reads `images` one per call, as lent text.
    private func reading<Images: Collection>(_ images: Images) -> LocalFeedLoader.FeedImageReading where Images.Element == FeedImage {
        var iterator = images.makeIterator()
        return { (add) throws(ErrorRecord) -> Bool in
            guard let image = iterator.next() else { return false }
            _ = try CachedImageText.lending(image) { (text) throws(ErrorRecord) in try add(text) }
            return true
        }
    }

    // MARK: Helpers

    private var storePath: String { directory.file("feed.sqlite") }

    private func makeSUT(wait: Double = 1) -> SQLiteFeedStore {
        SQLiteFeedStore(path: storePath, wait: wait)
    }

    private struct SQLiteError: Error { let message: String }

    /// A VFS over the default one, made the default while `body` runs,
    /// that counts the journals SQLite opens.
    private enum CountingVFS {
        nonisolated(unsafe) static var base: UnsafeMutablePointer<sqlite3_vfs>?
        nonisolated(unsafe) static var statement = 0
        nonisolated(unsafe) static var rollback = 0

        static func journalsOpened(_ body: () throws -> Void) throws -> (statement: Int, rollback: Int) {
            guard let found = sqlite3_vfs_find(nil) else { throw SQLiteError(message: "no default VFS") }
            base = found
            statement = 0
            rollback = 0
            let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
            vfs.initialize(to: found.pointee)
            let name = strdup("feed-test-counting")
            vfs.pointee.zName = UnsafePointer(name)
            vfs.pointee.pNext = nil
            vfs.pointee.xOpen = { vfs, path, file, flags, outFlags in
                if flags & SQLITE_OPEN_SUBJOURNAL != 0 { CountingVFS.statement += 1 }
                if flags & SQLITE_OPEN_MAIN_JOURNAL != 0 { CountingVFS.rollback += 1 }
                return CountingVFS.base!.pointee.xOpen(vfs, path, file, flags, outFlags)
            }
            defer {
                sqlite3_vfs_unregister(vfs)
                vfs.deallocate()
                free(name)
            }
            guard sqlite3_vfs_register(vfs, 1) == SQLITE_OK else { throw SQLiteError(message: "cannot register a VFS") }
            try body()
            return (statement, rollback)
        }
    }

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
