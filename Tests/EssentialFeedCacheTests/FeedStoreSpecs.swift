// The store spec suite: one set of behaviours every FeedStore passes.
//
// This file lives in EssentialFeedCacheTests (run against the in-memory store)
// and is linked as EssentialFeedInfraTests/StoreSpecs.swift (run against the
// SQLite and JSON-file stores on real files), so both targets run the very same
// assertions. It may use only XCTest and EssentialFeed.

import XCTest
import EssentialFeed

// MARK: - Fixtures

func uniqueImage(description: String? = "a description", location: String? = "a location", url: String? = nil) -> FeedImage {
    let id = UUID()
    return FeedImage(id: id, description: description, location: location, url: url ?? "https://any-url.com/\(id.uuidString.lowercased()).jpg")
}

func uniqueFeed(count: Int = 2) -> [FeedImage] {
    (0..<count).map { _ in uniqueImage() }
}

/// A feed exercising what a store must keep exactly: order, absent and empty
/// optional fields, and text beyond ASCII (combining marks, emoji, quotes,
/// backslashes, control characters, NUL).
func demandingFeed() -> [FeedImage] {
    [
        uniqueImage(description: nil, location: nil),
        uniqueImage(description: "Só descrição — naïve café 🍣", location: nil),
        uniqueImage(description: nil, location: "Zürich, \"CH\" \\ 北京"),
        uniqueImage(description: "", location: ""),
        uniqueImage(description: "tab\tnewline\nreturn\rnul\u{0}end", location: "e\u{301} ≠ é", url: "https://example.com/ünïcode/画像.png?q=a&b=c#frag"),
        uniqueImage(),
    ]
}

/// 2023-11-14T22:13:20.123456789Z: a timestamp with every nanosecond digit.
/// Reads `images` one per call, as lent text (a save's input).
func reading(_ images: [FeedImage]) -> LocalFeedLoader.FeedImageReading {
    var iterator = images.makeIterator()
    return { (add) throws(ErrorRecord) -> Bool in
        guard let image = iterator.next() else { return false }
        _ = try CachedImageText.lending(image) { (text) throws(ErrorRecord) in try add(text) }
        return true
    }
}

func anyTimestamp() -> Timestamp {
    Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789)
}

func anyImageData() -> [UInt8] { Array("any data".utf8) }

func anyStoreError() -> ErrorRecord { ErrorRecord(.store, "any store error") }

/// The error `expression` throws, or nil and a test failure when it returns.
@discardableResult
func caughtRecord<T>(_ expression: () throws(ErrorRecord) -> T, file: StaticString = #filePath, line: UInt = #line) -> ErrorRecord? {
    do {
        let value = try expression()
        XCTFail("expected an error, got \(value)", file: file, line: line)
        return nil
    } catch {
        return error
    }
}

// MARK: - The specs

protocol FeedStoreSpecs {
    func test_retrieve_deliversEmptyOnEmptyCache() throws
    func test_retrieve_hasNoSideEffectsOnEmptyCache() throws
    func test_retrieve_deliversFoundValuesOnNonEmptyCache() throws
    func test_retrieve_hasNoSideEffectsOnNonEmptyCache() throws
    func test_retrieve_keepsOrderOptionalFieldsAndUnicode() throws
    func test_retrieve_deliversTheTimestampToTheNanosecond() throws

    func test_insert_deliversNoErrorOnEmptyCache() throws
    func test_insert_deliversNoErrorOnNonEmptyCache() throws
    func test_insert_overridesPreviouslyInsertedCacheValues() throws

    func test_delete_deliversNoErrorOnEmptyCache() throws
    func test_delete_hasNoSideEffectsOnEmptyCache() throws
    func test_delete_deliversNoErrorOnNonEmptyCache() throws
    func test_delete_emptiesPreviouslyInsertedCache() throws

    func test_transaction_keepsNothingWhenItsBodyFails() throws
    func test_transaction_deliversWhatItsBodyReturns() throws
    func test_transaction_refusesToNestOnTheSameInstanceAndKeepsTheOuterOne() throws
}

protocol FailableRetrieveFeedStoreSpecs: FeedStoreSpecs {
    func test_retrieve_deliversStoreErrorOnUnreadableStore() throws
    func test_retrieve_hasNoSideEffectsOnFailure() throws
}

protocol FailableInsertFeedStoreSpecs: FeedStoreSpecs {
    func test_insert_deliversStoreErrorOnInsertionError() throws
    func test_insert_hasNoSideEffectsOnInsertionError() throws
}

protocol FailableDeleteFeedStoreSpecs: FeedStoreSpecs {
    func test_delete_deliversStoreErrorOnDeletionError() throws
    func test_delete_hasNoSideEffectsOnDeletionError() throws
}

typealias FailableFeedStoreSpecs = FailableRetrieveFeedStoreSpecs & FailableInsertFeedStoreSpecs & FailableDeleteFeedStoreSpecs

protocol FeedImageDataStoreSpecs {
    func test_retrieveImageData_deliversNotFoundWhenEmpty() throws
    func test_retrieveImageData_deliversNotFoundWhenStoredDataURLDoesNotMatch() throws
    func test_retrieveImageData_deliversFoundDataWhenThereIsAStoredImageDataMatchingURL() throws
    func test_retrieveImageData_deliversLastInsertedValue() throws
    func test_retrieveImageData_deliversEveryByteValue() throws
    func test_insertImageData_keepsDataUnderURLsOfAnyLength() throws
    func test_insertImageData_keepsDataOfImagesThatStayInAReplacingFeed() throws
    func test_insertImageData_dropsDataOfImagesNoLongerInTheFeed() throws
    func test_deleteCachedFeed_dropsItsImagesData() throws
    func test_cachedImageDataURLs_deliversTheURLsThatHaveData() throws
}

/// Saving and loading image by image, with bounded memory.
protocol StreamingFeedStoreSpecs {
    func test_retrieveHeader_deliversTheTimestampAndCountWithoutTheImages() throws
    func test_forEachCachedImage_lendsEachImageInOrderAsTheRecordFeedImageWrites() throws
    func test_beginFeed_addsImagesInOrderAndKeepsTheFirstOfEachID() throws
    func test_beginFeed_keepingCachedImages_addsAfterThemAndSkipsTheirIDs() throws
    func test_beginFeed_keepsNothingWhenTheTransactionFailsMidway() throws
}

/// The validators kept with a feed, and a feed confirmed current.
protocol ValidatorsFeedStoreSpecs {
    func test_validators_areKeptWithTheFeed() throws
    func test_validators_goWithAReplacedOrDeletedFeed_andStayWhenImagesAreAddedAfterIt() throws
    func test_touchCachedFeed_restampsTheFeed_keepingItsImagesAndValidators() throws
}

// MARK: - The assertions

extension ValidatorsFeedStoreSpecs where Self: XCTestCase {
    private func anyValidators(_ etag: String = "\"v1\"") -> FeedValidators {
        FeedValidators(url: "https://any-url.com/v1/feed?limit=10", etag: etag, lastModified: "Tue, 24 Nov 2026 10:00:00 GMT")
    }

    private func validators(_ sut: any FeedStore, file: StaticString, line: UInt) -> FeedValidators? {
        do { return try sut.read { (reader) throws(ErrorRecord) in try reader.retrieveValidators() } } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
            return nil
        }
    }

    /// Each image keeps when the cache first had it, through a save that
    /// replaces the feed, a merged page and an append; an image new to the
    /// cache takes its save's time. (What an Atom entry's `updated` is.)
    func assertThatEachImageKeepsWhenItWasFirstCached(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let a = uniqueImage(), b = uniqueImage(), c = uniqueImage(), d = uniqueImage(), e = uniqueImage()
        let day: Int64 = 86_400
        let start = anyTimestamp().seconds
        func loader(_ days: Int64) -> LocalFeedLoader {
            LocalFeedLoader(store: sut, currentDate: { Timestamp(seconds: start + days * day, nanoseconds: 5) })
        }
        func firstCached(at days: Int64) -> [String] {
            var out: [String] = []
            do {
                _ = try loader(days).load { (image) in
                    out.append("\(image.image.id == a.id ? "a" : image.image.id == b.id ? "b" : image.image.id == c.id ? "c" : image.image.id == d.id ? "d" : "e")\((image.firstCached ?? -1 - start) - start)")
                }
            } catch {
                XCTFail("unexpected \(error)", file: file, line: line)
            }
            return out
        }
        XCTAssertNoThrow(try loader(0).save(reading: reading([a, b])), file: file, line: line)
        XCTAssertEqual(firstCached(at: 0), ["a0", "b0"], "a new feed: its save's time, in whole seconds", file: file, line: line)
        XCTAssertNoThrow(try loader(1).save(reading: reading([c, a])), file: file, line: line)
        XCTAssertEqual(firstCached(at: 1), ["c\(day)", "a0"], "a replacing save: a stays, c is new", file: file, line: line)
        XCTAssertNoThrow(try loader(2).merge(reading: reading([d, c]), after: nil), file: file, line: line)
        XCTAssertEqual(firstCached(at: 2), ["d\(2 * day)", "c\(day)", "a0"], "a merged page, and what it does not cover", file: file, line: line)
        XCTAssertNoThrow(try loader(3).append(reading: reading([e, a])), file: file, line: line)
        XCTAssertEqual(firstCached(at: 3), ["d\(2 * day)", "c\(day)", "a0", "e\(3 * day)"], "an append keeps the first", file: file, line: line)
        XCTAssertNoThrow(try loader(4).merge(reading: reading([a]), after: d.id), file: file, line: line)
        XCTAssertEqual(firstCached(at: 4), ["d\(2 * day)", "a0", "e\(3 * day)"], "a page after an image: a moved up keeps its time", file: file, line: line)
        XCTAssertNoThrow(try loader(5).save(reading: reading([b])), file: file, line: line)
        XCTAssertEqual(firstCached(at: 5), ["b\(5 * day)"], "an image that left the feed is new when it comes back", file: file, line: line)
        XCTAssertNoThrow(try loader(13).merge(reading: reading([c, b]), after: nil), file: file, line: line)
        XCTAssertEqual(firstCached(at: 13), ["c\(13 * day)", "b\(5 * day)"], "a page merged into an expired feed: what comes back keeps its time", file: file, line: line)
    }

    func assertThatValidatorsAreKeptWithTheFeed(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNil(validators(sut, file: file, line: line), "none on an empty store", file: file, line: line)
        let feed = uniqueFeed()
        XCTAssertNoThrow(try sut.transaction { (tx) throws(ErrorRecord) in
            try tx.setValidators(anyValidators())  // nothing cached: nothing kept
            try tx.insert(feed, timestamp: anyTimestamp())
            try tx.setValidators(anyValidators())
        }, file: file, line: line)
        XCTAssertEqual(validators(sut, file: file, line: line), anyValidators(), file: file, line: line)
        XCTAssertEqual(try sut.retrieve()?.feed, feed, file: file, line: line)
        XCTAssertNoThrow(try sut.transaction { (tx) throws(ErrorRecord) in try tx.setValidators(FeedValidators(url: "u", etag: nil, lastModified: "d")) },
                         file: file, line: line)
        XCTAssertEqual(validators(sut, file: file, line: line), FeedValidators(url: "u", etag: nil, lastModified: "d"), file: file, line: line)
        XCTAssertNoThrow(try sut.transaction { (tx) throws(ErrorRecord) in try tx.setValidators(nil) }, file: file, line: line)
        XCTAssertNil(validators(sut, file: file, line: line), file: file, line: line)
    }

    func assertThatValidatorsGoWithAReplacedOrDeletedFeedAndStayWhenImagesAreAdded(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        func save(keeping: Bool, _ validators: FeedValidators?) {
            XCTAssertNoThrow(try sut.transaction { (tx) throws(ErrorRecord) in
                if !keeping { try tx.deleteCachedFeed() }
                let writer = try tx.beginFeed(timestamp: anyTimestamp(), keepingCachedImages: keeping)
                _ = try writer.add(uniqueImage())
                if let validators { try tx.setValidators(validators) }
            }, file: file, line: line)
        }
        save(keeping: false, anyValidators())
        save(keeping: true, nil)
        XCTAssertEqual(validators(sut, file: file, line: line), anyValidators(), "images added after the first page", file: file, line: line)
        XCTAssertEqual(try sut.retrieve()?.feed.count, 2, file: file, line: line)
        save(keeping: false, nil)
        XCTAssertNil(validators(sut, file: file, line: line), "a feed saved anew, without validators", file: file, line: line)
        save(keeping: false, anyValidators("\"v2\""))
        XCTAssertNoThrow(try sut.transaction { (tx) throws(ErrorRecord) in try tx.deleteCachedFeed() }, file: file, line: line)
        XCTAssertNil(validators(sut, file: file, line: line), "deleted with the feed", file: file, line: line)
    }

    func assertThatTouchRestampsTheFeedKeepingItsImagesAndValidators(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try sut.transaction { (tx) throws(ErrorRecord) in try tx.touchCachedFeed(timestamp: anyTimestamp()) }, false,
                       "nothing cached, nothing touched", file: file, line: line)
        let feed = demandingFeed()
        XCTAssertNoThrow(try sut.transaction { (tx) throws(ErrorRecord) in
            try tx.insert(feed, timestamp: anyTimestamp())
            try tx.setValidators(anyValidators())
        }, file: file, line: line)
        let later = Timestamp(seconds: anyTimestamp().seconds + 86_400, nanoseconds: 5)
        XCTAssertEqual(try sut.transaction { (tx) throws(ErrorRecord) in try tx.touchCachedFeed(timestamp: later) }, true, file: file, line: line)
        XCTAssertEqual(try sut.retrieve(), CachedFeed(feed: feed, timestamp: later), file: file, line: line)
        XCTAssertEqual(validators(sut, file: file, line: line), anyValidators(), file: file, line: line)
    }
}

extension FeedStoreSpecs where Self: XCTestCase {
    func assertThatRetrieveDeliversEmptyOnEmptyCache(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        expect(sut, toRetrieve: nil, file: file, line: line)
    }

    func assertThatRetrieveHasNoSideEffectsOnEmptyCache(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        expect(sut, toRetrieveTwice: nil, file: file, line: line)
    }

    func assertThatRetrieveDeliversFoundValuesOnNonEmptyCache(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let cached = CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp())
        insert(cached, to: sut, file: file, line: line)
        expect(sut, toRetrieve: cached, file: file, line: line)
    }

    func assertThatRetrieveHasNoSideEffectsOnNonEmptyCache(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let cached = CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp())
        insert(cached, to: sut, file: file, line: line)
        expect(sut, toRetrieveTwice: cached, file: file, line: line)
    }

    func assertThatRetrieveKeepsOrderOptionalFieldsAndUnicode(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let cached = CachedFeed(feed: demandingFeed(), timestamp: anyTimestamp())
        insert(cached, to: sut, file: file, line: line)
        expect(sut, toRetrieve: cached, file: file, line: line)
    }

    func assertThatRetrieveDeliversTheTimestampToTheNanosecond(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        for timestamp in [Timestamp(seconds: 1_700_000_000, nanoseconds: 1),
                          Timestamp(seconds: 1_700_000_000, nanoseconds: 999_999_999),
                          Timestamp(seconds: -86_401, nanoseconds: 5),
                          Timestamp(seconds: 0)] {
            let cached = CachedFeed(feed: uniqueFeed(count: 1), timestamp: timestamp)
            insert(cached, to: sut, file: file, line: line)
            expect(sut, toRetrieve: cached, file: file, line: line)
        }
    }

    func assertThatInsertDeliversNoErrorOnEmptyCache(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNil(insert(CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp()), to: sut), "Expected to insert cache successfully", file: file, line: line)
    }

    func assertThatInsertDeliversNoErrorOnNonEmptyCache(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        insert(CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp()), to: sut, file: file, line: line)
        XCTAssertNil(insert(CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp()), to: sut), "Expected to override cache successfully", file: file, line: line)
    }

    func assertThatInsertOverridesPreviouslyInsertedCacheValues(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        insert(CachedFeed(feed: uniqueFeed(count: 3), timestamp: anyTimestamp()), to: sut, file: file, line: line)
        let latest = CachedFeed(feed: uniqueFeed(count: 1), timestamp: Timestamp(seconds: 1_800_000_000, nanoseconds: 7))
        insert(latest, to: sut, file: file, line: line)
        expect(sut, toRetrieve: latest, file: file, line: line)
    }

    func assertThatDeleteDeliversNoErrorOnEmptyCache(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNil(deleteCache(from: sut), "Expected empty cache deletion to succeed", file: file, line: line)
    }

    func assertThatDeleteHasNoSideEffectsOnEmptyCache(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        deleteCache(from: sut, file: file, line: line)
        expect(sut, toRetrieve: nil, file: file, line: line)
    }

    func assertThatDeleteDeliversNoErrorOnNonEmptyCache(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        insert(CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp()), to: sut, file: file, line: line)
        XCTAssertNil(deleteCache(from: sut), "Expected non-empty cache deletion to succeed", file: file, line: line)
    }

    func assertThatDeleteEmptiesPreviouslyInsertedCache(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        insert(CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp()), to: sut, file: file, line: line)
        deleteCache(from: sut, file: file, line: line)
        expect(sut, toRetrieve: nil, file: file, line: line)
    }

    func assertThatTransactionKeepsNothingWhenItsBodyFails(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let url = "https://kept.example/image.png"
        let kept = CachedFeed(feed: uniqueFeed() + [uniqueImage(url: url)], timestamp: anyTimestamp())
        insert(kept, to: sut, file: file, line: line)
        insertImageData(anyImageData(), for: url, to: sut, file: file, line: line)

        let failure = ErrorRecord(.invalidData, "the input ended early")
        let error = caughtRecord({ () throws(ErrorRecord) in
            try sut.transaction { (tx) throws(ErrorRecord) in
                try tx.deleteCachedFeed()
                try tx.insert(uniqueFeed(count: 5), timestamp: Timestamp(seconds: 1))
                try tx.insertImageData([9, 9, 9], for: url)
                try tx.insertImageData([7], for: "https://other.example/image.png")
                throw failure
            }
        }, file: file, line: line)

        XCTAssertEqual(error, failure, "Expected the body's error to come through unchanged", file: file, line: line)
        expect(sut, toRetrieve: kept, file: file, line: line)
        XCTAssertEqual(try sut.retrieveImageData(for: url), anyImageData(), "Expected the image data of before the failed transaction", file: file, line: line)
        XCTAssertEqual(try sut.cachedImageDataURLs(), [ExactText(url)], file: file, line: line)
    }

    func assertThatTransactionDeliversWhatItsBodyReturns(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let cached = CachedFeed(feed: uniqueFeed(count: 3), timestamp: anyTimestamp())
        do {
            let count = try sut.transaction { (tx) throws(ErrorRecord) -> Int in
                try tx.insert(cached.feed, timestamp: cached.timestamp)
                return try tx.retrieve()?.feed.count ?? 0
            }
            XCTAssertEqual(count, 3, "Expected the transaction to see its own writes", file: file, line: line)
            let read = try sut.read { (reader) throws(ErrorRecord) in try reader.retrieve() }
            XCTAssertEqual(read, cached, file: file, line: line)
        } catch {
            XCTFail("Expected the transaction to succeed, got \(error)", file: file, line: line)
        }
    }
}

extension FeedStoreSpecs where Self: XCTestCase {
    func assertThatTransactionRefusesToNestOnTheSameInstanceAndKeepsTheOuterOne(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let cached = CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp())
        var nested: ErrorRecord?
        do {
            try sut.transaction { (tx) throws(ErrorRecord) in
                try tx.insert(cached.feed, timestamp: cached.timestamp)
                nested = caughtRecord({ () throws(ErrorRecord) in
                    try sut.transaction { (inner) throws(ErrorRecord) in try inner.deleteCachedFeed() }
                }, file: file, line: line)
            }
        } catch {
            XCTFail("Expected the outer transaction to commit, got \(error)", file: file, line: line)
        }

        XCTAssertEqual(nested?.kind, .internal, file: file, line: line)
        expect(sut, toRetrieve: cached, file: file, line: line)
    }
}

extension FailableRetrieveFeedStoreSpecs where Self: XCTestCase {
    func assertThatRetrieveDeliversStoreErrorOnUnreadableStore(on sut: any FeedStore, path: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let error = caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() }, file: file, line: line)
        XCTAssertEqual(error?.kind, .store, file: file, line: line)
        if let path { XCTAssertTrue(error?.message.contains(path) ?? false, "Expected the message to name \(path): \(error?.message ?? "")", file: file, line: line) }
    }

    func assertThatRetrieveHasNoSideEffectsOnFailure(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let first = caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() }, file: file, line: line)
        let second = caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() }, file: file, line: line)
        XCTAssertEqual(first?.kind, .store, file: file, line: line)
        XCTAssertEqual(first, second, "Expected retrieving twice to fail the same way", file: file, line: line)
    }
}

extension FailableInsertFeedStoreSpecs where Self: XCTestCase {
    /// `failing` runs `body` under conditions in which the store cannot write.
    func assertThatInsertDeliversStoreErrorOnInsertionError(on sut: any FeedStore, failing: (() -> Void) -> Void, file: StaticString = #filePath, line: UInt = #line) {
        var error: ErrorRecord?
        failing { error = insert(CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp()), to: sut) }
        XCTAssertEqual(error?.kind, .store, "Expected insertion to fail with a store error", file: file, line: line)
    }

    func assertThatInsertHasNoSideEffectsOnInsertionError(on sut: any FeedStore, failing: (() -> Void) -> Void, file: StaticString = #filePath, line: UInt = #line) {
        let kept = CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp())
        insert(kept, to: sut, file: file, line: line)
        var error: ErrorRecord?
        failing { error = insert(CachedFeed(feed: uniqueFeed(count: 200), timestamp: Timestamp(seconds: 1)), to: sut) }
        XCTAssertNotNil(error, "Expected insertion to fail", file: file, line: line)
        expect(sut, toRetrieve: kept, file: file, line: line)
    }
}

extension FailableDeleteFeedStoreSpecs where Self: XCTestCase {
    func assertThatDeleteDeliversStoreErrorOnDeletionError(on sut: any FeedStore, failing: (() -> Void) -> Void, file: StaticString = #filePath, line: UInt = #line) {
        insert(CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp()), to: sut, file: file, line: line)
        var error: ErrorRecord?
        failing { error = deleteCache(from: sut) }
        XCTAssertEqual(error?.kind, .store, "Expected deletion to fail with a store error", file: file, line: line)
    }

    func assertThatDeleteHasNoSideEffectsOnDeletionError(on sut: any FeedStore, failing: (() -> Void) -> Void, file: StaticString = #filePath, line: UInt = #line) {
        let kept = CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp())
        insert(kept, to: sut, file: file, line: line)
        var error: ErrorRecord?
        failing { error = deleteCache(from: sut) }
        XCTAssertNotNil(error, "Expected deletion to fail", file: file, line: line)
        expect(sut, toRetrieve: kept, file: file, line: line)
    }
}

extension FeedImageDataStoreSpecs where Self: XCTestCase {
    func assertThatRetrieveImageDataDeliversNotFoundWhenEmpty(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        expect(sut, toRetrieveData: nil, for: "https://a-url.com/image.png", file: file, line: line)
    }

    func assertThatRetrieveImageDataDeliversNotFoundWhenStoredDataURLDoesNotMatch(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let image = uniqueImage(url: "https://a-url.com/image.png")
        insert(CachedFeed(feed: [image], timestamp: anyTimestamp()), to: sut, file: file, line: line)
        insertImageData(anyImageData(), for: image.url, to: sut, file: file, line: line)
        expect(sut, toRetrieveData: nil, for: "https://another-url.com/image.png", file: file, line: line)
    }

    func assertThatRetrieveImageDataDeliversFoundDataWhenThereIsAStoredImageDataMatchingURL(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let image = uniqueImage()
        insert(CachedFeed(feed: [image], timestamp: anyTimestamp()), to: sut, file: file, line: line)
        insertImageData(anyImageData(), for: image.url, to: sut, file: file, line: line)
        expect(sut, toRetrieveData: anyImageData(), for: image.url, file: file, line: line)
    }

    func assertThatRetrieveImageDataDeliversLastInsertedValue(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let image = uniqueImage()
        insert(CachedFeed(feed: [image], timestamp: anyTimestamp()), to: sut, file: file, line: line)
        insertImageData(Array("first".utf8), for: image.url, to: sut, file: file, line: line)
        insertImageData(Array("last".utf8), for: image.url, to: sut, file: file, line: line)
        expect(sut, toRetrieveData: Array("last".utf8), for: image.url, file: file, line: line)
    }

    func assertThatRetrieveImageDataDeliversEveryByteValue(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let image = uniqueImage()
        var bytes: [UInt8] = []
        for _ in 0..<3 { for value in 0...255 { bytes.append(UInt8(value)) } }
        bytes += [0, 0]
        insert(CachedFeed(feed: [image], timestamp: anyTimestamp()), to: sut, file: file, line: line)
        insertImageData(bytes, for: image.url, to: sut, file: file, line: line)
        expect(sut, toRetrieveData: bytes, for: image.url, file: file, line: line)
    }

    /// Image URLs are the server's to choose: two of 64 KiB (random text) that differ in
    /// their last byte alone each keep their own data, replaced by the
    /// next insert under the same URL, and kept by a feed that keeps them.
    func assertThatImageDataIsKeptUnderURLsOfAnyLength(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        // Not compressible: PostgreSQL compresses a key before it measures it.
        let long = "https://a-url.com/" + (0..<1800).map { _ in UUID().uuidString }.joined()
        let first = uniqueImage(url: long + "1"), second = uniqueImage(url: long + "2")
        insert(CachedFeed(feed: [first, second], timestamp: anyTimestamp()), to: sut, file: file, line: line)
        insertImageData(Array("first".utf8), for: first.url, to: sut, file: file, line: line)
        insertImageData(Array("second".utf8), for: second.url, to: sut, file: file, line: line)
        insertImageData(Array("second, again".utf8), for: second.url, to: sut, file: file, line: line)
        expect(sut, toRetrieveData: Array("first".utf8), for: first.url, file: file, line: line)
        expect(sut, toRetrieveData: Array("second, again".utf8), for: second.url, file: file, line: line)
        expect(sut, toRetrieveData: nil, for: long, file: file, line: line)

        save(CachedFeed(feed: [uniqueImage(), second], timestamp: Timestamp(seconds: 1_800_000_000)), to: sut, file: file, line: line)
        expect(sut, toRetrieveData: nil, for: first.url, file: file, line: line)
        expect(sut, toRetrieveData: Array("second, again".utf8), for: second.url, file: file, line: line)
    }

    func assertThatImageDataOfImagesThatStayInAReplacingFeedSurvives(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let staying = uniqueImage()
        insert(CachedFeed(feed: [uniqueImage(), staying], timestamp: anyTimestamp()), to: sut, file: file, line: line)
        insertImageData(anyImageData(), for: staying.url, to: sut, file: file, line: line)

        save(CachedFeed(feed: [uniqueImage(), uniqueImage(description: "new description", url: staying.url)], timestamp: Timestamp(seconds: 1_800_000_000)), to: sut, file: file, line: line)

        expect(sut, toRetrieveData: anyImageData(), for: staying.url, file: file, line: line)
    }

    func assertThatImageDataOfImagesNoLongerInTheFeedIsDropped(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let leaving = uniqueImage()
        let staying = uniqueImage()
        insert(CachedFeed(feed: [leaving, staying], timestamp: anyTimestamp()), to: sut, file: file, line: line)
        insertImageData(Array("leaving".utf8), for: leaving.url, to: sut, file: file, line: line)
        insertImageData(Array("staying".utf8), for: staying.url, to: sut, file: file, line: line)

        save(CachedFeed(feed: [staying, uniqueImage()], timestamp: Timestamp(seconds: 1_800_000_000)), to: sut, file: file, line: line)

        expect(sut, toRetrieveData: nil, for: leaving.url, file: file, line: line)
        expect(sut, toRetrieveData: Array("staying".utf8), for: staying.url, file: file, line: line)
        XCTAssertEqual(try sut.cachedImageDataURLs(), [ExactText(staying.url)], file: file, line: line)
    }

    func assertThatDeleteCachedFeedDropsItsImagesData(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let image = uniqueImage()
        insert(CachedFeed(feed: [image], timestamp: anyTimestamp()), to: sut, file: file, line: line)
        insertImageData(anyImageData(), for: image.url, to: sut, file: file, line: line)

        deleteCache(from: sut, file: file, line: line)

        expect(sut, toRetrieveData: nil, for: image.url, file: file, line: line)
        XCTAssertEqual(try sut.cachedImageDataURLs(), [], file: file, line: line)
    }

    func assertThatCachedImageDataURLsDeliversTheURLsThatHaveData(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let feed = uniqueFeed(count: 3)
        XCTAssertEqual(try sut.cachedImageDataURLs(), [], "Expected no URLs on an empty store", file: file, line: line)
        insert(CachedFeed(feed: feed, timestamp: anyTimestamp()), to: sut, file: file, line: line)
        insertImageData(anyImageData(), for: feed[0].url, to: sut, file: file, line: line)
        insertImageData(anyImageData(), for: feed[2].url, to: sut, file: file, line: line)
        XCTAssertEqual(try sut.cachedImageDataURLs(), [ExactText(feed[0].url), ExactText(feed[2].url)], file: file, line: line)
    }
}

extension StreamingFeedStoreSpecs where Self: XCTestCase {
    func assertThatRetrieveHeaderDeliversTheTimestampAndCountWithoutTheImages(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNil(try sut.read { (reader) throws(ErrorRecord) in try reader.retrieveHeader() }, file: file, line: line)
        insert(CachedFeed(feed: uniqueFeed(count: 3), timestamp: anyTimestamp()), to: sut, file: file, line: line)
        XCTAssertEqual(try sut.read { (reader) throws(ErrorRecord) in try reader.retrieveHeader() },
                       CachedFeedHeader(timestamp: anyTimestamp(), count: 3), file: file, line: line)
        insert(CachedFeed(feed: [], timestamp: Timestamp(seconds: 7)), to: sut, file: file, line: line)
        XCTAssertEqual(try sut.read { (reader) throws(ErrorRecord) in try reader.retrieveHeader() },
                       CachedFeedHeader(timestamp: Timestamp(seconds: 7), count: 0), "an empty feed is still a cached feed", file: file, line: line)
    }

    func assertThatForEachCachedImageLendsEachImageInOrderAsTheRecordFeedImageWrites(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let feed = demandingFeed()
        insert(CachedFeed(feed: feed, timestamp: anyTimestamp()), to: sut, file: file, line: line)
        var images: [FeedImage] = []
        var records: [[UInt8]] = []
        do {
            try sut.read { (reader) throws(ErrorRecord) in
                try reader.forEachCachedImage { image in
                    images.append(image.image)
                    var record: [UInt8] = []
                    image.appendRecord(to: &record)
                    records.append(record)
                }
            }
        } catch {
            XCTFail("Expected to visit the images, got \(error)", file: file, line: line)
        }
        XCTAssertEqual(images, feed, file: file, line: line)
        let expected = feed.map { image -> [UInt8] in
            var writer = JSONWriter()
            image.write(to: &writer)
            return writer.bytes
        }
        XCTAssertEqual(records.map { String(decoding: $0, as: UTF8.self) }, expected.map { String(decoding: $0, as: UTF8.self) },
                       "Expected byte for byte the records FeedImage.write writes", file: file, line: line)
    }

    func assertThatBeginFeedAddsImagesInOrderAndKeepsTheFirstOfEachID(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        insert(CachedFeed(feed: uniqueFeed(count: 3), timestamp: anyTimestamp()), to: sut, file: file, line: line)
        let feed = demandingFeed() + uniqueFeed(count: 50)
        let again = FeedImage(id: feed[1].id, description: "another", location: nil, url: "https://again.example/x.png")
        let timestamp = Timestamp(seconds: 1_800_000_000, nanoseconds: 5)
        var added: [Bool] = []
        do {
            try sut.transaction { (tx) throws(ErrorRecord) in
                let writer = try tx.beginFeed(timestamp: timestamp, keepingCachedImages: false)
                for (index, image) in feed.enumerated() {
                    // Values and lent text alike.
                    if index.isMultiple(of: 2) {
                        added.append(try writer.add(image))
                    } else {
                        added.append(try CachedImageText.lending(image) { (text) throws(ErrorRecord) in try writer.add(text) })
                    }
                }
                added.append(try writer.add(again))
                added.append(try CachedImageText.lending(feed[0]) { (text) throws(ErrorRecord) in try writer.add(text) })
            }
        } catch {
            XCTFail("Expected to save, got \(error)", file: file, line: line)
        }
        XCTAssertEqual(added, Array(repeating: true, count: feed.count) + [false, false], file: file, line: line)
        expect(sut, toRetrieve: CachedFeed(feed: feed, timestamp: timestamp), file: file, line: line)
    }

    func assertThatBeginFeedKeepingCachedImagesAddsAfterThemAndSkipsTheirIDs(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let cached = uniqueFeed(count: 3)
        insert(CachedFeed(feed: cached, timestamp: anyTimestamp()), to: sut, file: file, line: line)
        let new = uniqueFeed(count: 2)
        let timestamp = Timestamp(seconds: 1_800_000_000)
        do {
            try sut.transaction { (tx) throws(ErrorRecord) in
                let writer = try tx.beginFeed(timestamp: timestamp, keepingCachedImages: true)
                XCTAssertFalse(try writer.add(cached[1]), "Expected a cached id to be skipped", file: file, line: line)
                for image in new { XCTAssertTrue(try writer.add(image), file: file, line: line) }
                XCTAssertFalse(try writer.add(new[0]), file: file, line: line)
            }
        } catch {
            XCTFail("Expected to append, got \(error)", file: file, line: line)
        }
        expect(sut, toRetrieve: CachedFeed(feed: cached + new, timestamp: timestamp), file: file, line: line)
    }

    func assertThatBeginFeedKeepsNothingWhenTheTransactionFailsMidway(on sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        let kept = CachedFeed(feed: uniqueFeed(count: 2), timestamp: anyTimestamp())
        insert(kept, to: sut, file: file, line: line)
        let failure = ErrorRecord(.invalidData, "stdin:1001: not a feed image record")
        let error = caughtRecord({ () throws(ErrorRecord) in
            try sut.transaction { (tx) throws(ErrorRecord) in
                try tx.deleteCachedFeed()
                let writer = try tx.beginFeed(timestamp: Timestamp(seconds: 1), keepingCachedImages: false)
                for image in uniqueFeed(count: 1000) { _ = try writer.add(image) }
                throw failure
            }
        }, file: file, line: line)
        XCTAssertEqual(error, failure, file: file, line: line)
        expect(sut, toRetrieve: kept, file: file, line: line)
    }
}

// MARK: - Helpers

extension XCTestCase {
    /// Inserts `cached` in its own transaction; the error, if any.
    @discardableResult
    func insert(_ cached: CachedFeed, to sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) -> ErrorRecord? {
        do {
            try sut.insert(cached.feed, timestamp: cached.timestamp)
            return nil
        } catch {
            return error
        }
    }

    /// Replaces the feed as the save use case does: delete, then insert, in one transaction.
    func save(_ cached: CachedFeed, to sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        do {
            try sut.transaction { (tx) throws(ErrorRecord) in
                try tx.deleteCachedFeed()
                try tx.insert(cached.feed, timestamp: cached.timestamp)
            }
        } catch {
            XCTFail("Expected to save, got \(error)", file: file, line: line)
        }
    }

    @discardableResult
    func deleteCache(from sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) -> ErrorRecord? {
        do {
            try sut.deleteCachedFeed()
            return nil
        } catch {
            return error
        }
    }

    func insertImageData(_ data: [UInt8], for url: String, to sut: any FeedStore, file: StaticString = #filePath, line: UInt = #line) {
        do {
            try sut.insertImageData(data, for: url)
        } catch {
            XCTFail("Expected to insert image data, got \(error)", file: file, line: line)
        }
    }

    func expect(_ sut: any FeedStore, toRetrieveTwice expected: CachedFeed?, file: StaticString = #filePath, line: UInt = #line) {
        expect(sut, toRetrieve: expected, file: file, line: line)
        expect(sut, toRetrieve: expected, file: file, line: line)
    }

    func expect(_ sut: any FeedStore, toRetrieve expected: CachedFeed?, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let retrieved = try sut.retrieve()
            XCTAssertEqual(retrieved, expected, file: file, line: line)
        } catch {
            XCTFail("Expected to retrieve \(String(describing: expected)), got \(error)", file: file, line: line)
        }
    }

    func expect(_ sut: any FeedStore, toRetrieveData expected: [UInt8]?, for url: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let data = try sut.retrieveImageData(for: url)
            XCTAssertEqual(data, expected, file: file, line: line)
        } catch {
            XCTFail("Expected to retrieve data for \(url), got \(error)", file: file, line: line)
        }
    }
}
