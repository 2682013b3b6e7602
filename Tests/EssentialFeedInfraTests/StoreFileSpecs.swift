import Foundation
import XCTest
import EssentialFeed
import EssentialFeedInfra

/// What every store on a file does beyond the FeedStore specs: files and
/// their modes, several instances and processes on one file, locking.
/// What every store that several instances (processes, hosts) share does:
/// writers serialized with a wait limit, readers never blocked or shown a mix.
protocol SharedFeedStoreSpecs {
    func test_twoInstancesOnOneFile_seeEachOthersWrites() throws
    func test_transaction_heldByAnInstance_makesAnotherFailWithBusyAfterItsWaitLimit() throws
    func test_transaction_heldByAnInstance_makesAnotherWaitThenProceed() throws
    func test_read_duringAnotherInstancesTransaction_seesTheLastCommittedFeed() throws
    func test_concurrentAppendsFromSeveralInstances_loseNothing() throws
}

extension SharedFeedStoreSpecs where Self: XCTestCase {
    func assertThatTwoInstancesOnOneFileSeeEachOthersWrites(make: @escaping StoreMaker, at path: String, named name: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let first = make(path, 1)
        let second = make(path, 1)
        let image = uniqueImage()

        let cached = CachedFeed(feed: [image, uniqueImage()], timestamp: anyTimestamp())
        insert(cached, to: first, file: file, line: line)
        expect(second, toRetrieve: cached, file: file, line: line)

        insertImageData(anyImageData(), for: image.url, to: second, file: file, line: line)
        expect(first, toRetrieveData: anyImageData(), for: image.url, file: file, line: line)

        deleteCache(from: second, file: file, line: line)
        expect(first, toRetrieve: nil, file: file, line: line)
        expect(make(path, 1), toRetrieve: nil, file: file, line: line)
    }

    func assertThatATransactionHeldByAnInstanceMakesAnotherFailWithBusyAfterItsWaitLimit(make: @escaping StoreMaker, at path: String, named name: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let holder = make(path, 1)
        let waiter = make(path, 0.3)
        let kept = CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp())
        insert(kept, to: holder, file: file, line: line)

        var waited = 0.0
        var error: ErrorRecord?
        do {
            try holder.transaction { (tx) throws(ErrorRecord) in
                try tx.insert(uniqueFeed(count: 1), timestamp: Timestamp(seconds: 1))
                let start = StoreTestFiles.seconds()
                error = caughtRecord({ () throws(ErrorRecord) in
                    try waiter.transaction { (other) throws(ErrorRecord) in try other.insert(uniqueFeed(count: 3), timestamp: Timestamp(seconds: 2)) }
                }, file: file, line: line)
                waited = StoreTestFiles.seconds() - start
                throw ErrorRecord(.invalidData, "abandon")
            }
        } catch {
            XCTAssertEqual(error.message, "abandon", file: file, line: line)
        }

        XCTAssertEqual(error?.kind, .busy, file: file, line: line)
        XCTAssertEqual(error?.message, "\(name ?? path): store is busy: still locked by another process after waiting 0.3 s", file: file, line: line)
        XCTAssertGreaterThanOrEqual(waited, 0.25, "Expected to wait about its wait limit", file: file, line: line)
        XCTAssertLessThan(waited, 5, "Expected to stop waiting at its wait limit", file: file, line: line)
        expect(waiter, toRetrieve: kept, file: file, line: line)
    }

    func assertThatATransactionHeldByAnInstanceMakesAnotherWaitThenProceed(make: @escaping StoreMaker, at path: String, named name: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let first = CachedFeed(feed: uniqueFeed(), timestamp: Timestamp(seconds: 1_000))
        let holding = DispatchSemaphore(value: 0)
        let holderError = StoreTestBox<ErrorRecord?>(nil)
        let holdTime = 0.4

        let group = DispatchGroup()
        group.enter()
        Thread {
            let holder = make(path, 10)
            do throws(ErrorRecord) {
                try holder.transaction { (tx) throws(ErrorRecord) in
                    try tx.insert(first.feed, timestamp: first.timestamp)
                    holding.signal()
                    Thread.sleep(forTimeInterval: holdTime)
                }
            } catch {
                holderError.withValue { $0 = error }
                holding.signal()
            }
            group.leave()
        }.start()
        holding.wait()

        let waiter = make(path, 10)
        let start = StoreTestFiles.seconds()
        var seen: CachedFeed?
        do {
            seen = try waiter.transaction { (tx) throws(ErrorRecord) in
                let seen = try tx.retrieve()
                try tx.insert((seen?.feed ?? []) + [uniqueImage()], timestamp: Timestamp(seconds: 2_000))
                return seen
            }
        } catch {
            XCTFail("Expected the waiter to proceed once the holder committed, got \(error)", file: file, line: line)
        }
        let waited = StoreTestFiles.seconds() - start
        group.wait()

        XCTAssertNil(holderError.current, file: file, line: line)
        XCTAssertEqual(seen, first, "Expected the waiter to see the holder's committed feed, never a mix", file: file, line: line)
        XCTAssertGreaterThanOrEqual(waited, holdTime * 0.5, "Expected the waiter to wait for the holder", file: file, line: line)
        XCTAssertEqual(try make(path, 1).retrieve()?.feed.count, first.feed.count + 1, file: file, line: line)
    }

    func assertThatAReadDuringAnotherInstancesTransactionSeesTheLastCommittedFeed(make: @escaping StoreMaker, at path: String, named name: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let writer = make(path, 1)
        let reader = make(path, 5)
        let committed = CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp())
        insert(committed, to: writer, file: file, line: line)

        let replacement = CachedFeed(feed: uniqueFeed(count: 4), timestamp: Timestamp(seconds: 1_800_000_000))
        var readTime = 0.0
        do {
            try writer.transaction { (tx) throws(ErrorRecord) in
                try tx.deleteCachedFeed()
                expect(reader, toRetrieve: committed, file: file, line: line)
                try tx.insert(replacement.feed, timestamp: replacement.timestamp)
                let start = StoreTestFiles.seconds()
                expect(reader, toRetrieve: committed, file: file, line: line)
                readTime = StoreTestFiles.seconds() - start
            }
        } catch {
            XCTFail("Expected the transaction to commit, got \(error)", file: file, line: line)
        }

        XCTAssertLessThan(readTime, 1, "Expected a read not to wait for a transaction in progress", file: file, line: line)

        expect(reader, toRetrieve: replacement, file: file, line: line)
    }

    func assertThatConcurrentAppendsFromSeveralInstancesLoseNothing(make: @escaping StoreMaker, at path: String, named name: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let threads = 4
        let appendsPerThread = 5
        let appended = StoreTestBox<[UUID]>([])
        let errors = StoreTestBox<[ErrorRecord]>([])

        StoreTestFiles.onThreads(threads) { _ in
            let loader = LocalFeedLoader(store: make(path, 30), currentDate: anyTimestamp)
            for _ in 0..<appendsPerThread {
                let image = uniqueImage()
                do throws(ErrorRecord) {
                    try loader.append([image])
                    appended.withValue { $0.append(image.id) }
                } catch {
                    errors.withValue { $0.append(error) }
                }
            }
        }

        XCTAssertEqual(errors.current, [], file: file, line: line)
        let cached = try? make(path, 1).retrieve()
        XCTAssertEqual(cached?.feed.count, threads * appendsPerThread, "Expected every append to be kept", file: file, line: line)
        XCTAssertEqual(Set(cached?.feed.map(\.id) ?? []), Set(appended.current), file: file, line: line)
    }

}

protocol FileFeedStoreSpecs: SharedFeedStoreSpecs {
    /// The store's file name, e.g. `feed.sqlite`.
    var storeFileName: String { get }
    /// A store file of this kind, recognisably a feed cache, that cannot be read (cut short, damaged).
    func damagedFeedCache() -> [UInt8]

    func test_store_createsNothingBeforeTheFirstWrite() throws
    func test_insert_createsMissingDirectoriesOwnerOnlyAndAFileReadableByItsOwnerOnly() throws
    func test_insert_leavesOnlyTheStoreFilesBehind() throws
    func test_insert_failsNamingTheDirectoryWhenAParentIsAFile() throws
    func test_retrieve_failsNamingThePathOnAFileThatIsNotAFeedCache() throws
    func test_insert_failsOnAnUnreadableFileAndLeavesItUntouched() throws
    func test_validateCache_replacesAnUnreadableFileWithAnEmptyStore() throws
    func test_save_replacesAnUnreadableFile() throws
    func test_unreadableFileReplacedByOneInstance_isReadableByAnotherThatHadItOpen() throws
    func test_concurrentSavesOnAnUnreadableFile_allSucceedAndLeaveOneWholeFeed() throws
    func test_emptyFile_isAnEmptyStore() throws
    func test_insert_throughASymbolicLink_writesTheLinkedFileAndKeepsTheLink() throws
    func test_info_describesAMissingStore() throws
    func test_info_describesTheStoreAndItsContent() throws
}

extension FileFeedStoreSpecs where Self: XCTestCase {
    func assertThatStoreCreatesNothingBeforeTheFirstWrite(make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let path = directory.file("a/b/" + storeFileName)
        let sut = make(path, 1)

        expect(sut, toRetrieve: nil, file: file, line: line)
        expect(sut, toRetrieveData: nil, for: "https://a.example/1.png", file: file, line: line)
        XCTAssertEqual(try sut.cachedImageDataURLs(), [], file: file, line: line)

        XCTAssertEqual(StoreTestFiles.names(in: directory.path), [], "Expected reads to create nothing", file: file, line: line)
    }

    func assertThatInsertCreatesOwnerOnlyDirectoriesAndFile(make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let path = directory.file("a/b/" + storeFileName)
        let sut = make(path, 1)

        let previous = umask(0)  // the most permissive: the store must still restrict
        insert(CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp()), to: sut, file: file, line: line)
        umask(previous)

        XCTAssertEqual(StoreTestFiles.mode(directory.file("a")), 0o700, "directory mode", file: file, line: line)
        XCTAssertEqual(StoreTestFiles.mode(directory.file("a/b")), 0o700, "directory mode", file: file, line: line)
        for name in StoreTestFiles.names(in: directory.file("a/b")) {
            XCTAssertEqual(StoreTestFiles.mode(directory.file("a/b/" + name)), 0o600, "mode of \(name)", file: file, line: line)
        }
        XCTAssertEqual(StoreTestFiles.mode(path), 0o600, "store file mode", file: file, line: line)
    }

    func assertThatInsertLeavesOnlyTheStoreFiles(_ expected: [String], make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let sut = make(directory.file(expected[0]), 1)

        insert(CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp()), to: sut, file: file, line: line)
        save(CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp()), to: sut, file: file, line: line)

        XCTAssertEqual(StoreTestFiles.names(in: directory.path), expected.sorted(), file: file, line: line)
    }

    func assertThatInsertFailsNamingTheDirectoryWhenAParentIsAFile(make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        StoreTestFiles.write(Array("a file".utf8), to: directory.file("plain"))
        let sut = make(directory.file("plain/sub/" + storeFileName), 1)

        let error = caughtRecord({ () throws(ErrorRecord) in try sut.insert(uniqueFeed(), timestamp: anyTimestamp()) }, file: file, line: line)

        XCTAssertEqual(error?.kind, .store, file: file, line: line)
        XCTAssertEqual(error?.message, "cannot create directory \(directory.file("plain")): not a directory", file: file, line: line)
    }

    func assertThatRetrieveFailsNamingThePathOnAFileThatIsNotAFeedCache(make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let path = directory.file(storeFileName)
        for content in [Array("not a feed cache\n".utf8), [UInt8](repeating: 0x41, count: 8192)] {
            StoreTestFiles.write(content, to: path)
            let sut = make(path, 1)

            let error = caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() }, file: file, line: line)

            XCTAssertEqual(error?.kind, .store, file: file, line: line)
            XCTAssertTrue(error?.message.hasPrefix("\(path): not a feed cache (") ?? false, "got \(error?.message ?? "")", file: file, line: line)
            XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.info() }, file: file, line: line)?.kind, .store, file: file, line: line)
        }
    }

    func assertThatInsertFailsOnAnUnreadableFileAndLeavesItUntouched(make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let path = directory.file(storeFileName)
        // A file that is not ours, whatever it holds, is the user's: every
        // operation fails, and the file keeps its bytes and its mode.
        for content in [Array(String(repeating: "not a feed cache ", count: 500).utf8), Array("notes\n".utf8),
                        [UInt8](repeating: 0, count: 5000), Array("SQLite format 3".utf8) + [0] + [UInt8](repeating: 7, count: 200)] {
            StoreTestFiles.write(content, to: path)
            XCTAssertEqual(chmod(path, 0o644), 0)
            let sut = make(path, 1)
            let loader = LocalFeedLoader(store: sut, currentDate: anyTimestamp)

            XCTAssertEqual(insert(CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp()), to: sut)?.kind, .store, file: file, line: line)
            XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.insertImageData([1], for: "https://a.example/1.png") }, file: file, line: line)?.kind, .store, file: file, line: line)
            XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try loader.append(uniqueFeed()) }, file: file, line: line)?.kind, .store, file: file, line: line)
            XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try loader.load() }, file: file, line: line)?.kind, .store, file: file, line: line)
            XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try loader.save(uniqueFeed()) }, file: file, line: line)?.kind, .store, file: file, line: line)
            XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.deleteCachedFeed() }, file: file, line: line)?.kind, .store, file: file, line: line)
            XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in _ = try loader.validateCache() }, file: file, line: line)?.kind, .store, file: file, line: line)

            XCTAssertEqual(StoreTestFiles.bytes(path), content, "Expected the file to be left as it was", file: file, line: line)
            XCTAssertEqual(StoreTestFiles.mode(path), 0o644, "Expected the file to keep its mode", file: file, line: line)
        }
    }

    func assertThatValidateCacheReplacesAnUnreadableFileWithAnEmptyStore(make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let path = directory.file(storeFileName)
        StoreTestFiles.write(damagedFeedCache(), to: path)
        let sut = make(path, 1)
        let unreadable = caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() }, file: file, line: line)

        do {
            let validation = try LocalFeedLoader(store: sut, currentDate: anyTimestamp).validateCache()
            XCTAssertEqual(validation, unreadable.map(FeedCacheValidation.deletedUnreadable), file: file, line: line)
        } catch {
            XCTFail("Expected validation to delete the unreadable cache, got \(error)", file: file, line: line)
        }

        expect(sut, toRetrieve: nil, file: file, line: line)
        expect(make(path, 1), toRetrieve: nil, file: file, line: line)
        XCTAssertEqual(StoreTestFiles.mode(path), 0o600, file: file, line: line)
        XCTAssertFalse(StoreTestFiles.names(in: directory.path).contains { $0.hasSuffix(".tmp") || $0.hasSuffix("-journal") },
                       "Expected no temporary file left: \(StoreTestFiles.names(in: directory.path))", file: file, line: line)
    }

    func assertThatSaveReplacesAnUnreadableFile(make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let path = directory.file(storeFileName)
        StoreTestFiles.write(damagedFeedCache(), to: path)
        let sut = make(path, 1)
        let feed = uniqueFeed(count: 3)

        XCTAssertNoThrow(try LocalFeedLoader(store: sut, currentDate: anyTimestamp).save(feed), file: file, line: line)

        expect(sut, toRetrieve: CachedFeed(feed: feed, timestamp: anyTimestamp()), file: file, line: line)
        insertImageData(anyImageData(), for: feed[0].url, to: sut, file: file, line: line)
        expect(make(path, 1), toRetrieveData: anyImageData(), for: feed[0].url, file: file, line: line)
    }

    func assertThatAnUnreadableFileReplacedByOneInstanceIsReadableByAnotherThatHadItOpen(make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let path = directory.file(storeFileName)
        StoreTestFiles.write(damagedFeedCache(), to: path)
        let first = make(path, 1)
        let second = make(path, 1)
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try second.retrieve() }, file: file, line: line)?.kind, .store, file: file, line: line)

        let cached = CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp())
        save(cached, to: first, file: file, line: line)

        expect(second, toRetrieve: cached, file: file, line: line)
        let appended = uniqueImage()
        XCTAssertNoThrow(try LocalFeedLoader(store: second, currentDate: anyTimestamp).append([appended]), file: file, line: line)
        expect(first, toRetrieve: CachedFeed(feed: cached.feed + [appended], timestamp: anyTimestamp()), file: file, line: line)
    }

    func assertThatConcurrentSavesOnAnUnreadableFileAllSucceedAndLeaveOneWholeFeed(make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let path = directory.file(storeFileName)
        StoreTestFiles.write(damagedFeedCache(), to: path)
        let feeds = (0..<4).map { _ in uniqueFeed(count: 20) }
        let errors = StoreTestBox<[ErrorRecord]>([])

        StoreTestFiles.onThreads(feeds.count) { index in
            do throws(ErrorRecord) {
                try LocalFeedLoader(store: make(path, 30), currentDate: anyTimestamp).save(feeds[index])
            } catch {
                errors.withValue { $0.append(error) }
            }
        }

        XCTAssertEqual(errors.current, [], file: file, line: line)
        do {
            let cached = try make(path, 1).retrieve()
            XCTAssertTrue(feeds.contains { $0 == cached?.feed }, "Expected exactly one of the saved feeds, got \(String(describing: cached))", file: file, line: line)
        } catch {
            XCTFail("Expected a readable store, got \(error)", file: file, line: line)
        }
    }

    func assertThatAnEmptyFileIsAnEmptyStore(make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let path = directory.file(storeFileName)
        StoreTestFiles.write([], to: path)
        let sut = make(path, 1)

        expect(sut, toRetrieve: nil, file: file, line: line)
        let cached = CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp())
        insert(cached, to: sut, file: file, line: line)
        expect(sut, toRetrieve: cached, file: file, line: line)
    }

    func assertThatInsertThroughASymbolicLinkWritesTheLinkedFileAndKeepsTheLink(make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let real = directory.file("real-" + storeFileName)
        let link = directory.file(storeFileName)
        let first = CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp())
        insert(first, to: make(real, 1), file: file, line: line)
        XCTAssertEqual(symlink(real, link), 0, file: file, line: line)

        let second = CachedFeed(feed: uniqueFeed(count: 3), timestamp: anyTimestamp())
        insert(second, to: make(link, 1), file: file, line: line)

        var st = stat()
        XCTAssertEqual(lstat(link, &st), 0, file: file, line: line)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFLNK, "Expected the link to stay a link", file: file, line: line)
        expect(make(real, 1), toRetrieve: second, file: file, line: line)
    }

    /// A link to a file not made yet, in another folder (a relative link):
    /// the first insert makes that file, beside which its lock goes, and
    /// keeps the link; it once replaced the link with a file of its own.
    func assertThatInsertThroughALinkToNothingYetMakesTheLinkedFileAndKeepsTheLink(make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(mkdir(directory.file("elsewhere"), 0o700), 0, file: file, line: line)
        let link = directory.file(storeFileName)
        XCTAssertEqual(symlink("elsewhere/real-" + storeFileName, link), 0, file: file, line: line)

        let cached = CachedFeed(feed: uniqueFeed(count: 2), timestamp: anyTimestamp())
        insert(cached, to: make(link, 1), file: file, line: line)

        var st = stat()
        XCTAssertEqual(lstat(link, &st), 0, file: file, line: line)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFLNK, "Expected the link to stay a link", file: file, line: line)
        expect(make(directory.file("elsewhere/real-" + storeFileName), 1), toRetrieve: cached, file: file, line: line)
        XCTAssertEqual(FeedStores.folder(of: link), directory.file("elsewhere"), file: file, line: line)
    }

    func assertThatInfoDescribesAMissingStore(kind: String, make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let path = directory.file(storeFileName)

        XCTAssertEqual(try make(path, 1).info(), FeedStoreInfo(kind: kind, path: path, exists: false, schemaVersion: nil,
                                                              itemCount: nil, timestamp: nil, imageDataCount: 0, imageDataBytes: 0), file: file, line: line)
        XCTAssertFalse(StoreTestFiles.exists(path), file: file, line: line)
    }

    func assertThatInfoDescribesTheStoreAndItsContent(kind: String, schemaVersion: Int = 1, make: @escaping StoreMaker, in directory: StoreTestDirectory, file: StaticString = #filePath, line: UInt = #line) {
        let path = directory.file(storeFileName)
        let sut = make(path, 1)
        let feed = uniqueFeed(count: 3)
        insert(CachedFeed(feed: feed, timestamp: anyTimestamp()), to: sut, file: file, line: line)
        insertImageData([1, 2, 3], for: feed[0].url, to: sut, file: file, line: line)
        insertImageData([4, 5], for: feed[2].url, to: sut, file: file, line: line)

        do {
            let info = try sut.info()
            XCTAssertEqual(info.kind, kind, file: file, line: line)
            XCTAssertEqual(info.path, path, file: file, line: line)
            XCTAssertTrue(info.exists, file: file, line: line)
            XCTAssertEqual(info.schemaVersion, schemaVersion, file: file, line: line)
            XCTAssertEqual(info.itemCount, 3, file: file, line: line)
            XCTAssertEqual(info.timestamp, anyTimestamp(), file: file, line: line)
            XCTAssertEqual(info.imageDataCount, 2, file: file, line: line)
            XCTAssertEqual(info.imageDataBytes, 5, file: file, line: line)
            XCTAssertGreaterThan(info.fileBytes ?? 0, 0, file: file, line: line)
        } catch {
            XCTFail("Expected info, got \(error)", file: file, line: line)
        }
    }
}
