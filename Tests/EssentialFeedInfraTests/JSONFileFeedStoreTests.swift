import Foundation
import XCTest
import EssentialFeed
import EssentialFeedInfra

/// The store specs against the JSON-file store on real files.
final class JSONFileFeedStoreTests: XCTestCase, FailableFeedStoreSpecs, FeedImageDataStoreSpecs, FileFeedStoreSpecs, StreamingFeedStoreSpecs, ValidatorsFeedStoreSpecs {
    private var directory: StoreTestDirectory!

    override func setUpWithError() throws {
        directory = try StoreTestDirectory()
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    // MARK: FeedStoreSpecs

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

    // MARK: FailableFeedStoreSpecs

    func test_retrieve_deliversStoreErrorOnUnreadableStore() throws {
        writeGarbageToTheStoreFile()
        assertThatRetrieveDeliversStoreErrorOnUnreadableStore(on: makeSUT(), path: storePath)
    }

    func test_retrieve_hasNoSideEffectsOnFailure() throws {
        writeGarbageToTheStoreFile()
        assertThatRetrieveHasNoSideEffectsOnFailure(on: makeSUT())
        XCTAssertEqual(StoreTestFiles.bytes(storePath), garbage)
    }

    func test_insert_deliversStoreErrorOnInsertionError() throws {
        assertThatInsertDeliversStoreErrorOnInsertionError(on: makeSUT(), failing: onAFullDisk)
    }

    func test_insert_hasNoSideEffectsOnInsertionError() throws {
        assertThatInsertHasNoSideEffectsOnInsertionError(on: makeSUT(), failing: onAFullDisk)
    }

    func test_delete_deliversStoreErrorOnDeletionError() throws {
        assertThatDeleteDeliversStoreErrorOnDeletionError(on: makeSUT(), failing: onAFullDisk)
    }

    func test_delete_hasNoSideEffectsOnDeletionError() throws {
        assertThatDeleteHasNoSideEffectsOnDeletionError(on: makeSUT(), failing: onAFullDisk)
    }

    // MARK: FeedImageDataStoreSpecs

    // MARK: ValidatorsFeedStoreSpecs

    func test_validators_areKeptWithTheFeed() throws {
        assertThatValidatorsAreKeptWithTheFeed(on: makeSUT())
    }

    func test_firstCached_isKeptWithEachImageAcrossSavesMergesAndAppends() throws {
        assertThatEachImageKeepsWhenItWasFirstCached(on: makeSUT())
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

    // MARK: FileFeedStoreSpecs

    func test_store_createsNothingBeforeTheFirstWrite() throws {
        assertThatStoreCreatesNothingBeforeTheFirstWrite(make: make, in: directory)
    }

    func test_insert_createsMissingDirectoriesOwnerOnlyAndAFileReadableByItsOwnerOnly() throws {
        assertThatInsertCreatesOwnerOnlyDirectoriesAndFile(make: make, in: directory)
    }

    func test_insert_leavesOnlyTheStoreFilesBehind() throws {
        assertThatInsertLeavesOnlyTheStoreFiles(["feed.json", "feed.json.lock"], make: make, in: directory)
    }

    func test_insert_failsNamingTheDirectoryWhenAParentIsAFile() throws {
        assertThatInsertFailsNamingTheDirectoryWhenAParentIsAFile(make: make, in: directory)
    }

    func test_retrieve_failsNamingThePathOnAFileThatIsNotAFeedCache() throws {
        assertThatRetrieveFailsNamingThePathOnAFileThatIsNotAFeedCache(make: make, in: directory)
    }

    func test_insert_failsOnAnUnreadableFileAndLeavesItUntouched() throws {
        assertThatInsertFailsOnAnUnreadableFileAndLeavesItUntouched(make: make, in: directory)
    }

    func test_validateCache_replacesAnUnreadableFileWithAnEmptyStore() throws {
        assertThatValidateCacheReplacesAnUnreadableFileWithAnEmptyStore(make: make, in: directory)
    }

    func test_save_replacesAnUnreadableFile() throws {
        assertThatSaveReplacesAnUnreadableFile(make: make, in: directory)
    }

    func test_unreadableFileReplacedByOneInstance_isReadableByAnotherThatHadItOpen() throws {
        assertThatAnUnreadableFileReplacedByOneInstanceIsReadableByAnotherThatHadItOpen(make: make, in: directory)
    }

    func test_concurrentSavesOnAnUnreadableFile_allSucceedAndLeaveOneWholeFeed() throws {
        assertThatConcurrentSavesOnAnUnreadableFileAllSucceedAndLeaveOneWholeFeed(make: make, in: directory)
    }

    func test_emptyFile_isAnEmptyStore() throws {
        assertThatAnEmptyFileIsAnEmptyStore(make: make, in: directory)
    }

    func test_twoInstancesOnOneFile_seeEachOthersWrites() throws {
        assertThatTwoInstancesOnOneFileSeeEachOthersWrites(make: make, at: directory.file(storeFileName))
    }

    func test_transaction_heldByAnInstance_makesAnotherFailWithBusyAfterItsWaitLimit() throws {
        assertThatATransactionHeldByAnInstanceMakesAnotherFailWithBusyAfterItsWaitLimit(make: make, at: directory.file(storeFileName))
    }

    func test_transaction_heldByAnInstance_makesAnotherWaitThenProceed() throws {
        assertThatATransactionHeldByAnInstanceMakesAnotherWaitThenProceed(make: make, at: directory.file(storeFileName))
    }

    func test_read_duringAnotherInstancesTransaction_seesTheLastCommittedFeed() throws {
        assertThatAReadDuringAnotherInstancesTransactionSeesTheLastCommittedFeed(make: make, at: directory.file(storeFileName))
    }

    func test_concurrentAppendsFromSeveralInstances_loseNothing() throws {
        assertThatConcurrentAppendsFromSeveralInstancesLoseNothing(make: make, at: directory.file(storeFileName))
    }

    func test_insert_throughASymbolicLink_writesTheLinkedFileAndKeepsTheLink() throws {
        assertThatInsertThroughASymbolicLinkWritesTheLinkedFileAndKeepsTheLink(make: make, in: directory)
    }

    func test_insert_throughALinkToNothingYet_makesTheLinkedFileAndKeepsTheLink() throws {
        assertThatInsertThroughALinkToNothingYetMakesTheLinkedFileAndKeepsTheLink(make: make, in: directory)
    }

    func test_info_describesAMissingStore() throws {
        assertThatInfoDescribesAMissingStore(kind: "json", make: make, in: directory)
    }

    func test_info_describesTheStoreAndItsContent() throws {
        assertThatInfoDescribesTheStoreAndItsContent(kind: "json", make: make, in: directory)
    }

    // MARK: Helpers

    let storeFileName = "feed.json"

    private var storePath: String { directory.file(storeFileName) }

    private let make: StoreMaker = { JSONFileFeedStore(path: $0, wait: $1) }

    private func makeSUT(wait: Double = 1) -> any FeedStore {
        make(storePath, wait)
    }

    /// A document of ours cut short: not JSON, but it starts as this store writes.
    func damagedFeedCache() -> [UInt8] {
        Array(#"{"format":"essential-feed-cache","version":1,"timestamp":"2020-01-01T00:00:00Z","feed":[{"id":"2AB2"#.utf8)
    }

    private let garbage = Array("this is not a feed cache\n".utf8)

    private func writeGarbageToTheStoreFile() {
        StoreTestFiles.write(garbage, to: storePath)
    }

    /// Runs `body` as on a full disk: every write past the first byte of a file fails.
    private func onAFullDisk(_ body: () -> Void) {
        StoreTestFiles.withFileSizeLimit(0, body)
    }
}
