import XCTest
import EssentialFeed

final class InMemoryFeedStoreTests: XCTestCase, FeedStoreSpecs, FeedImageDataStoreSpecs, StreamingFeedStoreSpecs, ValidatorsFeedStoreSpecs {

    func test_retrieve_deliversEmptyOnEmptyCache() throws {
        assertThatRetrieveDeliversEmptyOnEmptyCache(on: makeSUT())
    }

    func test_retrieve_hasNoSideEffectsOnEmptyCache() throws {
        assertThatRetrieveHasNoSideEffectsOnEmptyCache(on: makeSUT())
    }

    func test_retrieve_deliversFoundValuesOnNonEmptyCache() throws {
        assertThatRetrieveDeliversFoundValuesOnNonEmptyCache(on: makeSUT())
    }

    func test_retrieve_hasNoSideEffectsOnNonEmptyCache() throws {
        assertThatRetrieveHasNoSideEffectsOnNonEmptyCache(on: makeSUT())
    }

    func test_retrieve_keepsOrderOptionalFieldsAndUnicode() throws {
        assertThatRetrieveKeepsOrderOptionalFieldsAndUnicode(on: makeSUT())
    }

    func test_retrieve_deliversTheTimestampToTheNanosecond() throws {
        assertThatRetrieveDeliversTheTimestampToTheNanosecond(on: makeSUT())
    }

    func test_insert_deliversNoErrorOnEmptyCache() throws {
        assertThatInsertDeliversNoErrorOnEmptyCache(on: makeSUT())
    }

    func test_insert_deliversNoErrorOnNonEmptyCache() throws {
        assertThatInsertDeliversNoErrorOnNonEmptyCache(on: makeSUT())
    }

    func test_insert_overridesPreviouslyInsertedCacheValues() throws {
        assertThatInsertOverridesPreviouslyInsertedCacheValues(on: makeSUT())
    }

    func test_delete_deliversNoErrorOnEmptyCache() throws {
        assertThatDeleteDeliversNoErrorOnEmptyCache(on: makeSUT())
    }

    func test_delete_hasNoSideEffectsOnEmptyCache() throws {
        assertThatDeleteHasNoSideEffectsOnEmptyCache(on: makeSUT())
    }

    func test_delete_deliversNoErrorOnNonEmptyCache() throws {
        assertThatDeleteDeliversNoErrorOnNonEmptyCache(on: makeSUT())
    }

    func test_delete_emptiesPreviouslyInsertedCache() throws {
        assertThatDeleteEmptiesPreviouslyInsertedCache(on: makeSUT())
    }

    func test_transaction_keepsNothingWhenItsBodyFails() throws {
        assertThatTransactionKeepsNothingWhenItsBodyFails(on: makeSUT())
    }

    func test_transaction_deliversWhatItsBodyReturns() throws {
        assertThatTransactionDeliversWhatItsBodyReturns(on: makeSUT())
    }

    func test_transaction_refusesToNestOnTheSameInstanceAndKeepsTheOuterOne() throws {
        assertThatTransactionRefusesToNestOnTheSameInstanceAndKeepsTheOuterOne(on: makeSUT())
    }

    // MARK: ValidatorsFeedStoreSpecs

    func test_validators_areKeptWithTheFeed() throws {
        assertThatValidatorsAreKeptWithTheFeed(on: makeSUT())
    }

    func test_validators_goWithAReplacedOrDeletedFeed_andStayWhenImagesAreAddedAfterIt() throws {
        assertThatValidatorsGoWithAReplacedOrDeletedFeedAndStayWhenImagesAreAdded(on: makeSUT())
    }

    func test_touchCachedFeed_restampsTheFeed_keepingItsImagesAndValidators() throws {
        assertThatTouchRestampsTheFeedKeepingItsImagesAndValidators(on: makeSUT())
    }

    // MARK: StreamingFeedStoreSpecs

    func test_retrieveHeader_deliversTheTimestampAndCountWithoutTheImages() throws {
        assertThatRetrieveHeaderDeliversTheTimestampAndCountWithoutTheImages(on: makeSUT())
    }

    func test_forEachCachedImage_lendsEachImageInOrderAsTheRecordFeedImageWrites() throws {
        assertThatForEachCachedImageLendsEachImageInOrderAsTheRecordFeedImageWrites(on: makeSUT())
    }

    func test_beginFeed_addsImagesInOrderAndKeepsTheFirstOfEachID() throws {
        assertThatBeginFeedAddsImagesInOrderAndKeepsTheFirstOfEachID(on: makeSUT())
    }

    func test_beginFeed_keepingCachedImages_addsAfterThemAndSkipsTheirIDs() throws {
        assertThatBeginFeedKeepingCachedImagesAddsAfterThemAndSkipsTheirIDs(on: makeSUT())
    }

    func test_beginFeed_keepsNothingWhenTheTransactionFailsMidway() throws {
        assertThatBeginFeedKeepsNothingWhenTheTransactionFailsMidway(on: makeSUT())
    }

    func test_retrieveImageData_deliversNotFoundWhenEmpty() throws {
        assertThatRetrieveImageDataDeliversNotFoundWhenEmpty(on: makeSUT())
    }

    func test_retrieveImageData_deliversNotFoundWhenStoredDataURLDoesNotMatch() throws {
        assertThatRetrieveImageDataDeliversNotFoundWhenStoredDataURLDoesNotMatch(on: makeSUT())
    }

    func test_retrieveImageData_deliversFoundDataWhenThereIsAStoredImageDataMatchingURL() throws {
        assertThatRetrieveImageDataDeliversFoundDataWhenThereIsAStoredImageDataMatchingURL(on: makeSUT())
    }

    func test_retrieveImageData_deliversLastInsertedValue() throws {
        assertThatRetrieveImageDataDeliversLastInsertedValue(on: makeSUT())
    }

    func test_retrieveImageData_deliversEveryByteValue() throws {
        assertThatRetrieveImageDataDeliversEveryByteValue(on: makeSUT())
    }

    func test_insertImageData_keepsDataUnderURLsOfAnyLength() throws {
        assertThatImageDataIsKeptUnderURLsOfAnyLength(on: makeSUT())
    }

    func test_insertImageData_keepsDataOfImagesThatStayInAReplacingFeed() throws {
        assertThatImageDataOfImagesThatStayInAReplacingFeedSurvives(on: makeSUT())
    }

    func test_insertImageData_dropsDataOfImagesNoLongerInTheFeed() throws {
        assertThatImageDataOfImagesNoLongerInTheFeedIsDropped(on: makeSUT())
    }

    func test_deleteCachedFeed_dropsItsImagesData() throws {
        assertThatDeleteCachedFeedDropsItsImagesData(on: makeSUT())
    }

    func test_cachedImageDataURLs_deliversTheURLsThatHaveData() throws {
        assertThatCachedImageDataURLsDeliversTheURLsThatHaveData(on: makeSUT())
    }

    // MARK: In-memory specifics

    func test_retrieve_deliversTheErrorOfADamagedSnapshotUntilTheFeedIsReplaced() throws {
        let damage = ErrorRecord(.store, "memory: damaged feed cache")
        let sut = InMemoryFeedStore(FeedStoreSnapshot(cache: .failure(damage)))

        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() }), damage)
        XCTAssertEqual(caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() }), damage)

        let cached = CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp())
        insert(cached, to: sut)
        expect(sut, toRetrieve: cached)
    }

    func test_insertImageData_keepsDataOfURLsNotInTheFeedUntilTheFeedChanges() throws {
        let sut = makeSUT()
        insertImageData(anyImageData(), for: "https://elsewhere.example/a.png", to: sut)
        expect(sut, toRetrieveData: anyImageData(), for: "https://elsewhere.example/a.png")

        insert(CachedFeed(feed: uniqueFeed(), timestamp: anyTimestamp()), to: sut)
        expect(sut, toRetrieveData: nil, for: "https://elsewhere.example/a.png")
    }

    func test_read_writesNothing() throws {
        let sut = makeSUT()
        try sut.read { (reader) throws(ErrorRecord) in
            try (reader as? any FeedStoreTransaction)?.insert(uniqueFeed(), timestamp: anyTimestamp())
        }
        expect(sut, toRetrieve: nil)
    }

    func test_info_describesTheContent() throws {
        let sut = makeSUT()
        let feed = uniqueFeed(count: 3)
        insert(CachedFeed(feed: feed, timestamp: anyTimestamp()), to: sut)
        insertImageData([1, 2, 3], for: feed[0].url, to: sut)
        insertImageData([4, 5], for: feed[1].url, to: sut)

        XCTAssertEqual(try sut.info(), FeedStoreInfo(kind: "memory", path: nil, exists: true, schemaVersion: nil,
                                                     itemCount: 3, timestamp: anyTimestamp(), imageDataCount: 2, imageDataBytes: 5))
    }

    // MARK: Helpers

    private func makeSUT() -> InMemoryFeedStore {
        InMemoryFeedStore()
    }
}
