import Foundation
import XCTest
import EssentialFeed
import EssentialFeedInfra
import EssentialFeedPostgreSQL

/// The store specs against the PostgreSQL store, on a throwaway server
/// (`PostgreSQLServer`) started once for the class; each test has a new
/// database of its own.
final class PostgreSQLFeedStoreTests: XCTestCase, FailableFeedStoreSpecs, FeedImageDataStoreSpecs, SharedFeedStoreSpecs, StreamingFeedStoreSpecs, ValidatorsFeedStoreSpecs {
    nonisolated(unsafe) private static var shared: PostgreSQLServer?
    nonisolated(unsafe) private static var unavailable: Error?
    private var database = ""

    private var server: PostgreSQLServer { Self.shared! }

    override class func setUp() {
        super.setUp()
        do { shared = try PostgreSQLServer.start() } catch { unavailable = error }
    }

    override class func tearDown() {
        shared?.stop()
        shared = nil
        super.tearDown()
    }

    override func setUpWithError() throws {
        if let unavailable = Self.unavailable { throw unavailable }
        database = "t\(UUID().uuidString.prefix(8).lowercased())"
        try server.psql("CREATE DATABASE \(database)")
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

    // MARK: ValidatorsFeedStoreSpecs

    func test_validators_areKeptWithTheFeed() throws {
        assertThatValidatorsAreKeptWithTheFeed(on: makeSUT())
    }

    func test_firstCached_isKeptWithEachImageAcrossSavesMergesAndAppends() throws {
        assertThatEachImageKeepsWhenItWasFirstCached(on: makeSUT())
    }

    /// A store of schema version 1 (before the first-cached times) is read
    /// as it is, its images first cached at their feed's timestamp, and
    /// migrated by the next write.
    func test_storeOfSchemaVersion1_isReadAsItIsAndMigratedByTheNextWrite() throws {
        let feed = uniqueFeed(count: 2)
        try makeSUT().insert(feed, timestamp: anyTimestamp())
        _ = try server.psql("ALTER TABLE essential_feed.image_data DROP CONSTRAINT image_data_url, ADD PRIMARY KEY (url); ALTER TABLE essential_feed.feed_image DROP COLUMN first_cached_seconds; UPDATE essential_feed.store SET schema_version = 1", database: database)
        var times: [Int64?] = []
        _ = try LocalFeedLoader(store: makeSUT(), currentDate: anyTimestamp).load { times.append($0.firstCached) }
        XCTAssertEqual(times, [anyTimestamp().seconds, anyTimestamp().seconds])
        XCTAssertEqual(try makeSUT().retrieve()?.feed, feed)

        // A 304 restamps the feed: the rows migrated keep their feed's former time.
        let later = Timestamp(seconds: anyTimestamp().seconds + 60)
        XCTAssertNotNil(try LocalFeedLoader(store: makeSUT(), currentDate: { later }).confirm(validators: nil))
        XCTAssertEqual(try server.psql("SELECT schema_version FROM essential_feed.store", database: database), "3\n")
        XCTAssertEqual(try makeSUT().info().schemaVersion, 3)
        // Version 1's B-tree key on image_data is version 3's hash exclusion.
        XCTAssertEqual(try server.psql("SELECT conname, contype FROM pg_constraint WHERE conrelid = 'essential_feed.image_data'::regclass", database: database),
                       "image_data_url|x\n")
        times = []
        _ = try LocalFeedLoader(store: makeSUT(), currentDate: { later }).load { times.append($0.firstCached) }
        XCTAssertEqual(times, [anyTimestamp().seconds, anyTimestamp().seconds])
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

    // MARK: FailableFeedStoreSpecs

    func test_retrieve_deliversStoreErrorOnUnreadableStore() throws {
        try makeTheSchemaForeign()
        assertThatRetrieveDeliversStoreErrorOnUnreadableStore(on: makeSUT(), path: server.directory)
    }

    func test_retrieve_hasNoSideEffectsOnFailure() throws {
        try makeTheSchemaForeign()
        assertThatRetrieveHasNoSideEffectsOnFailure(on: makeSUT())
        XCTAssertEqual(try server.psql("SELECT count(*) FROM essential_feed.notes", database: database), "1\n")
    }

    func test_insert_deliversStoreErrorOnInsertionError() throws {
        assertThatInsertDeliversStoreErrorOnInsertionError(on: makeSUT(), failing: whenWritesFail)
    }

    func test_insert_hasNoSideEffectsOnInsertionError() throws {
        assertThatInsertHasNoSideEffectsOnInsertionError(on: makeSUT(), failing: whenWritesFail)
    }

    func test_delete_deliversStoreErrorOnDeletionError() throws {
        assertThatDeleteDeliversStoreErrorOnDeletionError(on: makeSUT(), failing: whenWritesFail)
    }

    func test_delete_hasNoSideEffectsOnDeletionError() throws {
        assertThatDeleteHasNoSideEffectsOnDeletionError(on: makeSUT(), failing: whenWritesFail)
    }

    // MARK: FeedImageDataStoreSpecs

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

    // MARK: SharedFeedStoreSpecs

    func test_twoInstancesOnOneFile_seeEachOthersWrites() throws {
        assertThatTwoInstancesOnOneFileSeeEachOthersWrites(make: make, at: uri)
    }

    func test_transaction_heldByAnInstance_makesAnotherFailWithBusyAfterItsWaitLimit() throws {
        assertThatATransactionHeldByAnInstanceMakesAnotherFailWithBusyAfterItsWaitLimit(make: make, at: uri)
    }

    func test_transaction_heldByAnInstance_makesAnotherWaitThenProceed() throws {
        assertThatATransactionHeldByAnInstanceMakesAnotherWaitThenProceed(make: make, at: uri)
    }

    func test_read_duringAnotherInstancesTransaction_seesTheLastCommittedFeed() throws {
        assertThatAReadDuringAnotherInstancesTransactionSeesTheLastCommittedFeed(make: make, at: uri)
    }

    func test_concurrentAppendsFromSeveralInstances_loseNothing() throws {
        assertThatConcurrentAppendsFromSeveralInstancesLoseNothing(make: make, at: uri)
    }

    // MARK: The PostgreSQL store's own

    /// A replacing save gives its rows positions past the replaced feed's, so
    /// that no insert meets a deleted row's key in the primary key's index.
    func test_insert_overAFeed_givesPositionsPastTheReplacedFeeds() throws {
        let sut = makeSUT()
        try sut.insert(uniqueFeed(count: 2), timestamp: anyTimestamp())
        let replacement = uniqueFeed(count: 3)
        try sut.insert(replacement, timestamp: anyTimestamp())

        XCTAssertEqual(try server.psql("SELECT string_agg(position::text, ',' ORDER BY position) FROM essential_feed.feed_image", database: database), "2,3,4\n")
        XCTAssertEqual(try sut.retrieve()?.feed, replacement)
    }

    /// A database whose encoding is SQL_ASCII keeps text as it is given; the
    /// server itself refuses to send text that is not UTF-8 to the store's
    /// connection (its client encoding), so no record of such text is ever
    /// written: the read is a store error.
    func test_retrieve_ofTextThatIsNotUTF8_inASQLASCIIDatabase_isAStoreError() throws {
        database += "a"
        try server.psql("CREATE DATABASE \(database) ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
        let sut = makeSUT()
        try sut.insert(uniqueFeed(count: 2), timestamp: anyTimestamp())
        _ = try server.psql(#"UPDATE essential_feed.feed_image SET description = E'Caf\xe9' WHERE position = (SELECT max(position) FROM essential_feed.feed_image)"#,
                            database: database)

        let error = caughtRecord({ () throws(ErrorRecord) in try sut.retrieve() })
        XCTAssertEqual(error?.kind, .store)
        XCTAssertTrue(error?.message.contains("invalid byte sequence for encoding \"UTF8\"") == true, error?.message ?? "")
    }

    // MARK: Helpers

    private var uri: String { server.uri(database: database) }

    private let make: StoreMaker = { PostgreSQLFeedStore(uri: $0, wait: $1) }

    private func makeSUT(wait: Double = 1) -> any FeedStore {
        make(uri, wait)
    }

    /// A schema named as the store's that holds someone else's table.
    private func makeTheSchemaForeign() throws {
        try server.psql("CREATE SCHEMA essential_feed; CREATE TABLE essential_feed.notes (note text); INSERT INTO essential_feed.notes VALUES ('theirs')",
                        database: database)
    }

    /// Runs `body` while every write to the store's tables fails on the
    /// server (a trigger raises, as a full disk would), the schema made first.
    private func whenWritesFail(_ body: () -> Void) {
        do {
            try makeSUT().transaction { _ in }
            try server.psql("""
                CREATE FUNCTION public.refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device'; END $$;
                CREATE TRIGGER refuse BEFORE INSERT OR UPDATE OR DELETE ON essential_feed.feed_cache FOR EACH STATEMENT EXECUTE FUNCTION public.refuse();
                CREATE TRIGGER refuse BEFORE INSERT OR UPDATE OR DELETE ON essential_feed.feed_image FOR EACH STATEMENT EXECUTE FUNCTION public.refuse();
                """, database: database)
        } catch {
            XCTFail("cannot make writes fail: \(error)")
        }
        body()
        _ = try? server.psql("DROP FUNCTION public.refuse() CASCADE", database: database)
    }
}
