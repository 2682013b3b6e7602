import Foundation
import XCTest
import EssentialFeed
import EssentialFeedInfra

/// What is particular to the JSON-file store: its document, its temporary
/// and lock files, documents it must refuse, damage it can recover from.
final class JSONFileFeedStoreDocumentTests: XCTestCase {
    private var directory: StoreTestDirectory!

    override func setUpWithError() throws {
        directory = try StoreTestDirectory()
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    func test_insert_writesOneDocumentLineWithFormatVersionTimestampAndFeed() throws {
        let feed = [uniqueImage(description: nil, location: "Lisboa"), uniqueImage()]
        try makeSUT().insert(feed, timestamp: Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789))

        let bytes = try XCTUnwrap(StoreTestFiles.bytes(storePath))
        XCTAssertEqual(bytes.last, 0x0A)
        XCTAssertEqual(bytes.filter { $0 == 0x0A }.count, 1, "Expected one line")
        let document = try JSONParser.parse(bytes)
        XCTAssertEqual(document.member(0, "format").flatMap(document.string), "essential-feed-cache")
        XCTAssertEqual(document.member(0, "version").flatMap(document.int), 1)
        XCTAssertEqual(document.member(0, "timestamp").flatMap(document.string), "2023-11-14T22:13:20.123456789Z")
        let items = Array(document.elements(try XCTUnwrap(document.member(0, "feed"))))
        XCTAssertEqual(items.count, 2)
        XCTAssertEqual(document.member(items[0], "id").flatMap(document.string), feed[0].id.uuidString)
        XCTAssertNil(document.member(items[0], "description"), "Expected absent fields to be omitted")
        XCTAssertEqual(document.member(items[0], "location").flatMap(document.string), "Lisboa")
        XCTAssertEqual(document.member(items[0], "url").flatMap(document.string), feed[0].url)
    }

    func test_delete_keepsADocumentWithoutAFeed() throws {
        let sut = makeSUT()
        try sut.insert(uniqueFeed(), timestamp: anyTimestamp())
        try sut.deleteCachedFeed()

        XCTAssertEqual(StoreTestFiles.bytes(storePath), Array(#"{"format":"essential-feed-cache","version":1}"#.utf8) + [0x0A])
    }

    func test_insertImageData_storesTheDataBase64InTheDocumentSortedByURL() throws {
        let sut = makeSUT()
        try sut.insert([uniqueImage(url: "https://b.example/2.png"), uniqueImage(url: "https://a.example/1.png")], timestamp: anyTimestamp())
        try sut.insertImageData([0xFF, 0x00, 0x10], for: "https://b.example/2.png")
        try sut.insertImageData([1, 2, 3], for: "https://a.example/1.png")

        let text = String(decoding: try XCTUnwrap(StoreTestFiles.bytes(storePath)), as: UTF8.self)
        XCTAssertTrue(text.hasSuffix(#","image_data":{"https://a.example/1.png":"AQID","https://b.example/2.png":"/wAQ"}}"# + "\n"), text)
    }

    func test_transaction_removesATemporaryFileLeftByACrash() throws {
        let sut = makeSUT()
        try sut.insert(uniqueFeed(), timestamp: anyTimestamp())
        StoreTestFiles.write(Array("half a docu".utf8), to: storePath + ".tmp")

        let cached = CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp())
        try sut.insert(cached.feed, timestamp: cached.timestamp)

        XCTAssertFalse(StoreTestFiles.exists(storePath + ".tmp"))
        expect(sut, toRetrieve: cached)
    }

    func test_transaction_writesNothingWhenItChangesNothing() throws {
        let sut = makeSUT()

        _ = try sut.transaction { (tx) throws(ErrorRecord) in try tx.retrieve() }
        _ = try LocalFeedLoader(store: sut, currentDate: anyTimestamp).validateCache()

        XCTAssertFalse(StoreTestFiles.exists(storePath), "Expected no document to be written")
    }

    func test_store_refusesJSONWithoutTheFormatAndLeavesItUntouched() throws {
        let content = Array(#"{"feed":[],"timestamp":"2024-01-01T00:00:00Z"}"#.utf8)
        StoreTestFiles.write(content, to: storePath)
        let sut = makeSUT()

        let error = caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() })
        XCTAssertEqual(error, ErrorRecord(.store, "\(storePath): not a feed cache (no \"format\":\"essential-feed-cache\")"))
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.insert(uniqueFeed(), timestamp: anyTimestamp()) }), error)
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.deleteCachedFeed() }), error)
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try LocalFeedLoader(store: sut, currentDate: anyTimestamp).validateCache() }), error)
        XCTAssertEqual(StoreTestFiles.bytes(storePath), content)
    }

    func test_store_refusesANewerVersion() throws {
        StoreTestFiles.write(Array(#"{"format":"essential-feed-cache","version":2,"whatever":"new"}"#.utf8), to: storePath)

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try self.makeSUT().retrieve() }),
                       ErrorRecord(.store, "\(storePath): feed cache schema version 2 is newer than this release supports (1)"))
    }

    func test_retrieve_failsOnADamagedFeedThatValidationThenDeletes() throws {
        StoreTestFiles.write(Array(#"{"format":"essential-feed-cache","version":1,"timestamp":"2024-01-01T00:00:00Z","feed":[{"id":"0F618D2C-83C6-4C5D-97F7-8E51F97BAAC5"}]}"#.utf8), to: storePath)
        let sut = makeSUT()
        let damage = ErrorRecord(.store, "\(storePath): damaged feed cache: feed item 1 has no url")

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() }), damage)
        XCTAssertEqual(try LocalFeedLoader(store: sut, currentDate: anyTimestamp).validateCache(), .deletedUnreadable(damage))
        expect(sut, toRetrieve: nil)
    }

    func test_insertImageData_keepsADamagedFeedAsItWas() throws {
        let damaged = #"{"format":"essential-feed-cache","version":1,"timestamp":"yesterday","feed":[]}"#
        StoreTestFiles.write(Array(damaged.utf8), to: storePath)
        let sut = makeSUT()

        try sut.insertImageData([1], for: "https://a.example/1.png")

        let text = String(decoding: try XCTUnwrap(StoreTestFiles.bytes(storePath)), as: UTF8.self)
        XCTAssertTrue(text.hasPrefix(#"{"format":"essential-feed-cache","version":1,"timestamp":"yesterday","feed":[]"#), text)
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() })?.message, "\(storePath): damaged feed cache: no valid \"timestamp\"")
        expect(sut, toRetrieveData: [1], for: "https://a.example/1.png")
    }

    func test_store_treatsImageDataThatIsNotBase64AsUnreadableUntilDeleted() throws {
        StoreTestFiles.write(Array(#"{"format":"essential-feed-cache","version":1,"image_data":{"https://a.example/1.png":"not base64!"}}"#.utf8), to: storePath)

        let sut = makeSUT()
        let damage = ErrorRecord(.store, "\(storePath): damaged feed cache: image data https://a.example/1.png is not base64")

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.retrieveImageData(for: "https://a.example/1.png") }), damage)
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() }), damage)
        XCTAssertEqual(try LocalFeedLoader(store: sut, currentDate: anyTimestamp).validateCache(), .deletedUnreadable(damage))
        XCTAssertEqual(try sut.cachedImageDataURLs(), [])
    }

    // MARK: Helpers

    private var storePath: String { directory.file("feed.json") }

    private func makeSUT(wait: Double = 1) -> JSONFileFeedStore {
        JSONFileFeedStore(path: storePath, wait: wait)
    }
}
