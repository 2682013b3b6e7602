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

    /// A document of an earlier release has no `first_cached`: its items
    /// were first cached with their feed, and keep that time through an
    /// append (which restamps the feed) and a confirmation.
    func test_itemsOfAnEarlierReleasesDocument_keepTheirFeedsTimeAsFirstCached_throughAnAppend() throws {
        let document = #"{"format":"essential-feed-cache","version":1,"timestamp":"2024-01-01T00:00:00Z","feed":[{"id":"0F618D2C-83C6-4C5D-97F7-8E51F97BAAC5","url":"https://a.example/1.png"}]}"# + "\n"
        StoreTestFiles.write(Array(document.utf8), to: storePath)
        let later = Timestamp(seconds: 1_704_067_200 + 3_600)
        let new = uniqueImage()
        let loader = LocalFeedLoader(store: makeSUT(), currentDate: { later })
        var sent = false
        try loader.append(reading: { (add) throws(ErrorRecord) -> Bool in
            guard !sent else { return false }
            sent = true
            _ = try CachedImageText.lending(new) { (text) throws(ErrorRecord) in try add(text) }
            return true
        })
        _ = try loader.confirm(validators: nil)
        var times: [Int64?] = []
        _ = try loader.load { times.append($0.firstCached) }
        XCTAssertEqual(times, [1_704_067_200, later.seconds])
    }

    func test_retrieve_readsADocumentWrittenByHandInAnyKeyOrderWithBlanksEscapesAndRepeatedMembers() throws {
        let document = """
            {
              "image_data": {"https://b.example/2.png": "AQID", "https://a.example/1.png": "/wAQ"},
              "feed": [{"url": "ignored"}],
              "feed": [
                {"extra": [1, {"x": null}], "url": "https:\\/\\/a.example\\/1.png", "id": "0f618d2c-83c6-4c5d-97f7-8e51f97baac5",
                 "location": "Lisboa \\u00e9", "location": "Porto"},
                {"id": "1F618D2C-83C6-4C5D-97F7-8E51F97BAAC5", "url": "https://b.example/2.png", "description": "a \\"quote\\""}
              ],
              "version": 1, "timestamp": "2024-01-01T00:00:00Z", "format": "essential-feed-cache"
            }

            """
        StoreTestFiles.write(Array(document.utf8), to: storePath)
        let sut = makeSUT()
        let feed = [
            FeedImage(id: try XCTUnwrap(UUID(uuidString: "0F618D2C-83C6-4C5D-97F7-8E51F97BAAC5")), description: nil, location: "Porto", url: "https://a.example/1.png"),
            FeedImage(id: try XCTUnwrap(UUID(uuidString: "1F618D2C-83C6-4C5D-97F7-8E51F97BAAC5")), description: "a \"quote\"", location: nil, url: "https://b.example/2.png"),
        ]
        let timestamp = try XCTUnwrap(Timestamp(iso8601: "2024-01-01T00:00:00Z"))

        expect(sut, toRetrieve: CachedFeed(feed: feed, timestamp: timestamp))
        expect(sut, toRetrieveData: [1, 2, 3], for: "https://b.example/2.png")
        expect(sut, toRetrieveData: [0xFF, 0, 0x10], for: "https://a.example/1.png")

        // Any write writes it again as this store writes documents: compact, sorted image data.
        try sut.insertImageData([9], for: "https://c.example/3.png")
        let expected = #"{"format":"essential-feed-cache","version":1,"timestamp":"\#(timestamp.iso8601)","feed":[{"id":"0F618D2C-83C6-4C5D-97F7-8E51F97BAAC5","location":"Porto","url":"https://a.example/1.png","first_cached":1704067200},{"id":"1F618D2C-83C6-4C5D-97F7-8E51F97BAAC5","description":"a \"quote\"","url":"https://b.example/2.png","first_cached":1704067200}],"image_data":{"https://a.example/1.png":"/wAQ","https://b.example/2.png":"AQID","https://c.example/3.png":"CQ=="}}"# + "\n"
        XCTAssertEqual(String(decoding: try XCTUnwrap(StoreTestFiles.bytes(storePath)), as: UTF8.self), expected)
    }

    func test_failedTransaction_afterStreamingImages_leavesTheDocumentByteForByteAndNoTemporaryFile() throws {
        let sut = makeSUT()
        try sut.insert(uniqueFeed(count: 3), timestamp: anyTimestamp())
        try sut.insertImageData([1, 2], for: "https://x.example/a.png")
        let before = StoreTestFiles.bytes(storePath)

        let error = caughtRecord({ () throws(ErrorRecord) in
            try sut.transaction { (tx) throws(ErrorRecord) in
                try tx.deleteCachedFeed()
                let writer = try tx.beginFeed(timestamp: anyTimestamp(), keepingCachedImages: false)
                for image in uniqueFeed(count: 5_000) { _ = try writer.add(image) }
                try tx.insertImageData([UInt8](repeating: 7, count: 5 << 20), for: "https://x.example/big.png")
                throw ErrorRecord(.invalidData, "stop")
            }
        })

        XCTAssertEqual(error, ErrorRecord(.invalidData, "stop"))
        XCTAssertEqual(StoreTestFiles.bytes(storePath), before)
        XCTAssertEqual(StoreTestFiles.names(in: directory.file("")).sorted(), ["feed.json", "feed.json.lock"])
    }

    func test_beginFeed_again_keepingTheImagesWritten_takesTheNewTimestamp() throws {
        let sut = makeSUT()
        let first = uniqueFeed(count: 3), second = uniqueFeed(count: 2)
        let later = Timestamp(seconds: 1_800_000_000, nanoseconds: 5)

        try sut.transaction { (tx) throws(ErrorRecord) in
            let writer = try tx.beginFeed(timestamp: Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789), keepingCachedImages: false)
            for image in first { _ = try writer.add(image) }
            let again = try tx.beginFeed(timestamp: later, keepingCachedImages: true)
            XCTAssertFalse(try again.add(first[0]))
            for image in second { XCTAssertTrue(try again.add(image)) }
            XCTAssertEqual(try tx.retrieveHeader(), CachedFeedHeader(timestamp: later, count: 5))
        }

        expect(sut, toRetrieve: CachedFeed(feed: first + second, timestamp: later))
    }

    func test_imageDataPastWhatATransactionKeepsInMemory_isStoredWholeAndLeavesNoOtherFile() throws {
        let sut = makeSUT()
        let feed = (0..<6).map { uniqueImage(url: "https://x.example/\($0).png") }
        let data = (0..<6).map { i in [UInt8]((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* (i + 3)) }) }
        try sut.insert(feed, timestamp: anyTimestamp())

        try sut.transaction { (tx) throws(ErrorRecord) in
            for (image, bytes) in zip(feed, data) { try tx.insertImageData(bytes, for: image.url) }
            XCTAssertEqual(try tx.retrieveImageData(for: feed[5].url), data[5])
        }

        for (image, bytes) in zip(feed, data) { expect(sut, toRetrieveData: bytes, for: image.url) }
        XCTAssertEqual(try sut.info().imageDataBytes, 6 << 20)
        XCTAssertEqual(StoreTestFiles.names(in: directory.file("")).sorted(), ["feed.json", "feed.json.lock"])
    }

    func test_imageDataPastTheMemoryLimit_mergesWithTheDocumentsData_theLastPutWinning_andAnewFeedKeepsOnlyItsImagesData() throws {
        let sut = makeSUT()
        // 60 images; 40 data of 128 KiB a transaction (5 MiB: written out in sorted runs).
        let feed = (0..<60).map { uniqueImage(url: "https://x.example/\($0 * 7 % 60).png") }
        func data(_ i: Int, _ round: Int) -> [UInt8] { [UInt8(i), UInt8(round)] + [UInt8](repeating: UInt8(truncatingIfNeeded: i &* 7 &+ round), count: 128 << 10) }
        try sut.insert(feed, timestamp: anyTimestamp())
        try sut.transaction { (tx) throws(ErrorRecord) in
            for i in (0..<40).reversed() { try tx.insertImageData(data(i, 1), for: "https://x.example/\(i).png") }
        }
        try sut.transaction { (tx) throws(ErrorRecord) in
            for i in 20..<60 { try tx.insertImageData(data(i, 2), for: "https://x.example/\(i).png") }
            try tx.insertImageData(data(5, 3), for: "https://x.example/5.png")
            try tx.insertImageData(data(5, 4), for: "https://x.example/5.png")
            XCTAssertEqual(try tx.retrieveImageData(for: "https://x.example/5.png"), data(5, 4))
            XCTAssertEqual(try tx.cachedImageDataURLs().count, 60)
        }

        for i in 0..<60 { expect(sut, toRetrieveData: data(i, i == 5 ? 4 : i < 20 ? 1 : 2), for: "https://x.example/\(i).png") }
        XCTAssertEqual(try sut.info().imageDataCount, 60)
        let text = String(decoding: try XCTUnwrap(StoreTestFiles.bytes(storePath)), as: UTF8.self)
        let keys = text.components(separatedBy: #""https://x.example/"#).dropFirst(61).map { $0.prefix { $0 != "\"" } }
        XCTAssertEqual(keys, (0..<60).map { "\($0).png" }.sorted()[...].map { Substring($0) }, "Expected each URL's data once, in byte order")

        // A new feed of every third image keeps only their data.
        let kept = feed.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        try sut.insert(kept, timestamp: anyTimestamp())
        XCTAssertEqual(try sut.info().imageDataCount, kept.count)
        for image in kept {
            let i = Int(image.url.dropFirst("https://x.example/".count).dropLast(4))!
            expect(sut, toRetrieveData: data(i, i == 5 ? 4 : i < 20 ? 1 : 2), for: image.url)
        }
        XCTAssertEqual(StoreTestFiles.names(in: directory.file("")).sorted(), ["feed.json", "feed.json.lock"])
    }

    func test_imageDataOfADocumentNotInURLOrder_pastTheMemoryLimit_isSortedOnTheNextWrite_theLastOfARepeatedURLKept() throws {
        // Written by hand: 40 data of 128 KiB in decreasing order of URL, one URL twice.
        func data(_ i: Int) -> [UInt8] { [UInt8(i)] + [UInt8](repeating: UInt8(truncatingIfNeeded: i &* 13), count: 128 << 10) }
        let members = (0..<40).reversed().map { #""https://x.example/\#($0).png":"\#(Data(data($0)).base64EncodedString())""# }
        let document = #"{"format":"essential-feed-cache","version":1,"image_data":{"https://x.example/7.png":"AQID",\#(members.joined(separator: ","))}}"#
        StoreTestFiles.write(Array(document.utf8), to: storePath)
        let sut = makeSUT()
        expect(sut, toRetrieveData: data(7), for: "https://x.example/7.png")

        try sut.insertImageData([9], for: "https://x.example/40.png")

        for i in 0..<40 { expect(sut, toRetrieveData: data(i), for: "https://x.example/\(i).png") }
        expect(sut, toRetrieveData: [9], for: "https://x.example/40.png")
        XCTAssertEqual(try sut.info().imageDataCount, 41)
        let text = String(decoding: try XCTUnwrap(StoreTestFiles.bytes(storePath)), as: UTF8.self)
        let keys = text.components(separatedBy: #""https://x.example/"#).dropFirst().map { String($0.prefix { $0 != "\"" }) }
        XCTAssertEqual(keys, (0...40).map { "\($0).png" }.sorted(), "Expected each URL's data once, in byte order")
        XCTAssertEqual(StoreTestFiles.names(in: directory.file("")).sorted(), ["feed.json", "feed.json.lock"])
    }

    func test_retrieveImageData_manyTimesInOneRead_findsEachURLsDataWhereverItLies() throws {
        // By hand: out of order, blanks around the commas, an escaped URL, a URL written twice (the last wins).
        let document = """
            {"format":"essential-feed-cache","version":1,"image_data":{ "https://c.example/3.png" : "AQ==" ,
              "https:\\/\\/a.example\\/1.png":"Ag==","https://b.example/2.png":"Aw==" , "https://c.example/3.png":"BA==","https://d.example/4.png":"BQ=="}}

            """
        StoreTestFiles.write(Array(document.utf8), to: storePath)
        let sut = makeSUT()
        let expected: [(String, [UInt8]?)] = [
            ("https://d.example/4.png", [5]), ("https://a.example/1.png", [2]), ("https://c.example/3.png", [4]),
            ("https://b.example/2.png", [3]), ("https://x.example/none.png", nil), ("https://a.example/1.png", [2]),
        ]

        try sut.read { (reader) throws(ErrorRecord) in
            for _ in 0..<2 {
                for (url, data) in expected { XCTAssertEqual(try reader.retrieveImageData(for: url), data, url) }
            }
        }
        // Written by this store (sorted, each URL once), the same.
        try sut.insertImageData([6], for: "https://e.example/5.png")
        try sut.read { (reader) throws(ErrorRecord) in
            for (url, data) in expected + [("https://e.example/5.png", [6])] { XCTAssertEqual(try reader.retrieveImageData(for: url), data, url) }
        }
    }

    // MARK: Helpers

    private var storePath: String { directory.file("feed.json") }

    private func makeSUT(wait: Double = 1) -> JSONFileFeedStore {
        JSONFileFeedStore(path: storePath, wait: wait)
    }
}
