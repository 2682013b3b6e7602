import Foundation
import XCTest
import EssentialFeed
import EssentialFeedInfra

/// Locking against another process: a child `python3` holds the store's lock
/// the way another run of a tool would (SQLite's `BEGIN IMMEDIATE`, or `flock`
/// on the JSON store's lock file). Skipped where there is no python3.
final class StoreCrossProcessTests: XCTestCase {
    private var directory: StoreTestDirectory!

    override func setUpWithError() throws {
        directory = try StoreTestDirectory()
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    func test_sqliteStore_waitsForAnotherProcessThenFailsWithBusy_andProceedsOnceItCommits() throws {
        let path = directory.file("feed.sqlite")
        let store = SQLiteFeedStore(path: path, wait: 0.3)
        try store.insert(uniqueFeed(), timestamp: anyTimestamp())

        try assertBusyWhileAnotherProcessHoldsTheStore(path: path, store: store, holder: """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("BEGIN IMMEDIATE")
            db.execute("DELETE FROM feed_image")
            print("locked", flush=True)
            sys.stdin.read()
            db.execute("COMMIT")
            """) {
            XCTAssertEqual(try store.retrieve()?.feed.count, 0, "Expected to see the other process's committed write")
        }
    }

    /// The SQLite store keeps a descriptor of its file beside SQLite's (to
    /// write pages back during a save). Closing any descriptor of a file
    /// drops every POSIX lock the process holds on it: one store closing
    /// must not free the lock another store in the process holds, so that
    /// another process still finds the file locked.
    func test_sqliteStore_closingOneConnection_keepsTheLockAnotherHoldsInTheProcess() throws {
        guard let python = ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("python3 is needed to try the store from another process")
        }
        let path = directory.file("feed.sqlite")
        var first: SQLiteFeedStore? = SQLiteFeedStore(path: path, wait: 0)
        try first?.insert(uniqueFeed(), timestamp: anyTimestamp())
        let second = SQLiteFeedStore(path: path, wait: 0)
        var outcome = ""

        try second.transaction { (_) throws(ErrorRecord) in
            first = nil
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["-c", """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=0)
                try:
                    db.execute("BEGIN IMMEDIATE")
                    print("took the lock")
                except sqlite3.OperationalError as error:
                    print(error)
                """, path]
            let output = Pipe()
            process.standardOutput = output
            do { try process.run() } catch { return }
            process.waitUntilExit()
            outcome = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }

        XCTAssertEqual(outcome, "database is locked\n", "another process, while the second store's transaction runs")
    }

    func test_jsonFileStore_waitsForAnotherProcessThenFailsWithBusy_andProceedsOnceItUnlocks() throws {
        let path = directory.file("feed.json")
        let store = JSONFileFeedStore(path: path, wait: 0.3)
        try store.insert(uniqueFeed(), timestamp: anyTimestamp())

        try assertBusyWhileAnotherProcessHoldsTheStore(path: path, store: store, holder: """
            import fcntl, sys
            lock = open(sys.argv[1] + ".lock", "a")
            fcntl.flock(lock, fcntl.LOCK_EX)
            print("locked", flush=True)
            sys.stdin.read()
            """) {}
    }

    // MARK: Helpers

    private func assertBusyWhileAnotherProcessHoldsTheStore(path: String, store: any FeedStore, holder script: String,
                                                            file: StaticString = #filePath, line: UInt = #line,
                                                            whenReleased: () throws -> Void) throws {
        guard let python = ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("python3 is needed to hold the store from another process")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        var ready = Data()
        while !ready.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            ready.append(chunk)
        }
        XCTAssertEqual(String(decoding: ready, as: UTF8.self), "locked\n", "Expected the other process to hold the store", file: file, line: line)

        let start = StoreTestFiles.seconds()
        let error = caughtRecord({ () throws(ErrorRecord) in try LocalFeedLoader(store: store, currentDate: anyTimestamp).save(uniqueFeed()) }, file: file, line: line)
        let waited = StoreTestFiles.seconds() - start

        XCTAssertEqual(error, ErrorRecord(.busy, "\(path): store is busy: still locked by another process after waiting 0.3 s"), file: file, line: line)
        XCTAssertGreaterThanOrEqual(waited, 0.25, file: file, line: line)

        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, file: file, line: line)
        try whenReleased()
        let feed = uniqueFeed(count: 3)
        XCTAssertNoThrow(try LocalFeedLoader(store: store, currentDate: anyTimestamp).save(feed), "Expected the store to be writable once the other process let go", file: file, line: line)
        XCTAssertEqual(try store.retrieve()?.feed, feed, file: file, line: line)
    }
}
