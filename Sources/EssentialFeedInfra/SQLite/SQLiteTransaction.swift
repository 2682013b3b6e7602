import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import EssentialFeed

/// The operations of one SQLite transaction; usable only while it runs.
/// Every use of the connection holds its interrupt guard.
final class SQLiteTransaction: FeedStoreTransaction {
    private let connection: SQLiteConnection
    private let idsInMemory: Int
    /// Whether the schema has the validators' columns (not in a version 1
    /// file read without migrating it).
    private let hasValidators: Bool
    /// Whether the rows keep when their image was first cached (schema 3).
    private let hasFirstCached: Bool
    private var active = true
    private var feedChanged = false
    /// The writer of the feed being written, if any.
    private var writer: SQLiteFeedWriter?

    init(_ connection: SQLiteConnection, idsInMemory: Int, hasValidators: Bool = true, hasFirstCached: Bool = true) {
        self.hasFirstCached = hasFirstCached
        self.connection = connection
        self.idsInMemory = idsInMemory
        self.hasValidators = hasValidators
    }

    /// Ends the transaction without committing: a writer's rows not yet
    /// written are dropped (the rollback that follows drops the rest).
    func end() {
        active = false
        endWriter()
    }

    /// Ends the writer (after `checkActive`, which settles it: then nothing
    /// is dropped). Its thread may be inside a batch: not under the guard.
    private func endWriter() {
        writer?.end()
        writer = nil
    }

    /// Drops the save's index, applies the image data rule and commits.
    func commit() throws(ErrorRecord) {
        try checkActive()
        let indexed = writer?.indexed == true
        endWriter()
        try connection.guarded { () throws(ErrorRecord) in
            #if DEBUG
            // A signal can be sent here, under the guard.
            TestPause.at("FEED_TEST_PAUSE_BEFORE_COMMIT")
            #endif
            // A signal taken before COMMIT starts: the tool exits 128 + N,
            // so nothing is committed (the caller rolls back). One taken
            // while COMMIT runs finds the feed committed, whole.
            if connection.interruptRequested.isRaised {
                throw ErrorRecord(.store, "\(path): interrupted before the commit: nothing saved")
            }
            if indexed { try connection.execute("DROP INDEX IF EXISTS \(SQLiteFeedWriter.indexName)", "write") }
            if feedChanged, try connection.integer("SELECT EXISTS (SELECT 1 FROM image_data)", "write") != 0 {
                // Image data is kept under the URL with its password shown as *** (see LocalFeedImageDataLoader.key).
                try connection.execute("DELETE FROM image_data WHERE url NOT IN (SELECT \(SQLiteConnection.imageKeyFunction)(url) FROM feed_image)", "write")
            }
            // Again: the statements above may have taken a while.
            if connection.interruptRequested.isRaised {
                throw ErrorRecord(.store, "\(path): interrupted before the commit: nothing saved")
            }
            try connection.execute("COMMIT", "write")
        }
        active = false
    }

    /// Fails once the transaction ended; else writes the rows a writer
    /// still holds, so that whatever comes next sees them.
    private func checkActive() throws(ErrorRecord) {
        guard active else { throw ErrorRecord(.internal, "\(connection.path): store transaction used after it ended") }
        try writer?.settle()
    }

    private var path: String { connection.path }

    private func damaged(_ reason: String) -> ErrorRecord {
        ErrorRecord(.store, "\(path): damaged feed cache: \(reason)")
    }

    func retrieve() throws(ErrorRecord) -> CachedFeed? {
        guard let timestamp = try retrieveTimestamp() else { return nil }
        var feed: [FeedImage] = []
        try forEachCachedImage { image in feed.append(image.image) }
        return CachedFeed(feed: feed, timestamp: timestamp)
    }

    private func retrieveTimestamp() throws(ErrorRecord) -> Timestamp? {
        try checkActive()
        return try connection.guarded { () throws(ErrorRecord) -> Timestamp? in
            let header = try connection.prepare("SELECT timestamp_seconds, timestamp_nanoseconds FROM feed_cache WHERE singleton = 1", "read")
            guard try header.step() else { return nil }
            return try timestamp(header.int64(0), header.int64(1))
        }
    }

    private func timestamp(_ seconds: Int64, _ nanoseconds: Int64) throws(ErrorRecord) -> Timestamp {
        // Years 0 to 9999 only: no tool reads another back (found in review).
        guard (0..<1_000_000_000).contains(nanoseconds), Timestamp(seconds: seconds, nanoseconds: 0).isWithinISO8601Years else {
            throw damaged("invalid timestamp")
        }
        return Timestamp(seconds: seconds, nanoseconds: Int32(nanoseconds))
    }

    func retrieveHeader() throws(ErrorRecord) -> CachedFeedHeader? {
        try checkActive()
        return try connection.guarded { () throws(ErrorRecord) -> CachedFeedHeader? in
            let header = try connection.prepare("SELECT timestamp_seconds, timestamp_nanoseconds, (SELECT count(*) FROM feed_image) FROM feed_cache WHERE singleton = 1", "read")
            guard try header.step() else { return nil }
            return CachedFeedHeader(timestamp: try timestamp(header.int64(0), header.int64(1)), count: Int(header.int64(2)))
        }
    }

    func forEachCachedImage(_ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        try checkActive()
        let rows = try connection.guarded { () throws(ErrorRecord) in
            try connection.prepare("SELECT id, description, location, url\(hasFirstCached ? ", first_cached_seconds" : "") FROM feed_image ORDER BY position", "read")
        }
        var item = 0
        let canonical = UnsafeMutablePointer<UInt8>.allocate(capacity: 36)
        defer { canonical.deallocate() }
        while true {
            // The guard is held while SQLite's buffers are lent, so that an interrupt's rollback cannot free them.
            let more = try connection.guarded { () throws(ErrorRecord) -> Bool in
                guard try rows.step() else { return false }
                item += 1
                guard let url = rows.textBytes(3) else { throw damaged("item \(item) has no url") }
                guard var id = rows.textBytes(0) else { throw damaged("item \(item) has no valid id") }
                if !Identifiers.isCanonicalUUID(bytes: id) {
                    guard let uuid = Identifiers.uuid(bytes: id) else { throw damaged("item \(item) has no valid id") }
                    UUID.writeCanonical(uuid.uuid, to: canonical)
                    id = UnsafeBufferPointer(start: canonical, count: 36)
                }
                let firstCached = hasFirstCached && !rows.isNull(4) ? rows.int64(4) : nil
                // SQLite keeps text as it was given: what a save never wrote (text edited in another encoding) is damage.
                let description = rows.textBytes(1), location = rows.textBytes(2)
                guard UTF8Text.isValid(url), UTF8Text.isValid(description), UTF8Text.isValid(location) else {
                    throw damaged("item \(item) has text that is not UTF-8")
                }
                try body(CachedImageText(id: id, description: description, location: location, url: url, firstCached: firstCached))
                return true
            }
            if !more { return }
        }
    }

    func insert(_ feed: [FeedImage], timestamp: Timestamp) throws(ErrorRecord) {
        let writer = try beginFeed(timestamp: timestamp, keepingCachedImages: false)
        for image in feed { _ = try writer.add(image) }
    }

    func beginFeed(timestamp: Timestamp, keepingCachedImages: Bool) throws(ErrorRecord) -> any FeedImageWriter {
        try checkActive()
        endWriter()
        return try connection.guarded { () throws(ErrorRecord) -> any FeedImageWriter in
            var ids = IDSet(directory: FeedStores.folder(of: connection.path), path: connection.path)
            var indexed = false
            if keepingCachedImages {
                let count = try connection.integer("SELECT count(*) FROM feed_image", "read")
                if count > idsInMemory {
                    indexed = true
                } else {
                    let rows = try connection.prepare("SELECT id FROM feed_image ORDER BY position", "read")
                    var item = 0
                    while try rows.step() {
                        item += 1
                        guard let text = rows.textBytes(0), let id = Identifiers.uuid(bytes: text) else {
                            throw damaged("item \(item) has no valid id")
                        }
                        _ = try ids.insert(id)
                    }
                }
            } else {
                try connection.execute("DELETE FROM feed_image", "write")
            }
            // Validators belong to the feed's first page: kept when images are added after it.
            let kept = keepingCachedImages ? try readValidators() : nil
            let header = try connection.prepare("INSERT OR REPLACE INTO feed_cache (singleton, timestamp_seconds, timestamp_nanoseconds) VALUES (1, ?, ?)", "write")
            try header.bind(1, timestamp.seconds)
            try header.bind(2, Int64(timestamp.nanoseconds))
            _ = try header.step()
            if let kept { try writeValidators(kept) }
            feedChanged = true
            let writer = try SQLiteFeedWriter(connection, ids: ids, idsInMemory: idsInMemory, firstCached: timestamp.seconds)
            if indexed { try writer.indexIDs() }
            self.writer = writer
            return writer
        }
    }

    func retrieveValidators() throws(ErrorRecord) -> FeedValidators? {
        try checkActive()
        return try connection.guarded(readValidators)
    }

    func setValidators(_ validators: FeedValidators?) throws(ErrorRecord) {
        try checkActive()
        try connection.guarded { () throws(ErrorRecord) in try writeValidators(validators) }
    }

    /// The validators of the feed's row (the interrupt guard held).
    private func readValidators() throws(ErrorRecord) -> FeedValidators? {
        guard hasValidators else { return nil }
        let row = try connection.prepare("SELECT validators_url, etag, last_modified FROM feed_cache WHERE singleton = 1", "read")
        guard try row.step(), let url = row.text(0) else { return nil }
        let validators = FeedValidators(url: url, etag: row.text(1), lastModified: row.text(2))
        return validators.etag == nil && validators.lastModified == nil ? nil : validators
    }

    private func writeValidators(_ validators: FeedValidators?) throws(ErrorRecord) {
        let row = try connection.prepare("UPDATE feed_cache SET validators_url = ?, etag = ?, last_modified = ? WHERE singleton = 1", "write")
        try row.bind(1, validators?.url)
        try row.bind(2, validators?.etag)
        try row.bind(3, validators?.lastModified)
        _ = try row.step()
    }

    func touchCachedFeed(timestamp: Timestamp) throws(ErrorRecord) -> Bool {
        try checkActive()
        return try connection.guarded { () throws(ErrorRecord) -> Bool in
            let row = try connection.prepare("UPDATE feed_cache SET timestamp_seconds = ?, timestamp_nanoseconds = ? WHERE singleton = 1", "write")
            try row.bind(1, timestamp.seconds)
            try row.bind(2, Int64(timestamp.nanoseconds))
            _ = try row.step()
            return sqlite3_changes(connection.db) > 0
        }
    }

    func deleteCachedFeed() throws(ErrorRecord) {
        try checkActive()
        endWriter()
        try connection.guarded { () throws(ErrorRecord) in
            try connection.execute("DELETE FROM feed_cache", "write")
            let deleted = sqlite3_changes(connection.db)
            try connection.execute("DELETE FROM feed_image", "write")
            if deleted > 0 || sqlite3_changes(connection.db) > 0 { feedChanged = true }
        }
    }

    /// Beside the store, in an unlinked temporary file past 1 MiB.
    func makeCachedImageSpool() -> any CachedImageSpool {
        FileCachedImageSpool(directory: FeedStores.folder(of: connection.path), path: connection.path)
    }

    func insertImageData(_ data: [UInt8], for url: String) throws(ErrorRecord) {
        try checkActive()
        try connection.guarded { () throws(ErrorRecord) in
            let statement = try connection.prepare("INSERT OR REPLACE INTO image_data (url, data) VALUES (?, ?)", "write")
            try statement.bind(1, url)
            try statement.stepOnce(binding: data, at: 2)
        }
    }

    func retrieveImageData(for url: String) throws(ErrorRecord) -> [UInt8]? {
        try checkActive()
        return try connection.guarded { () throws(ErrorRecord) -> [UInt8]? in
            let statement = try connection.prepare("SELECT data FROM image_data WHERE url = ?", "read")
            try statement.bind(1, url)
            guard try statement.step() else { return nil }
            return statement.bytes(0)
        }
    }

    func cachedImageDataURLs() throws(ErrorRecord) -> Set<ExactText> {
        try checkActive()
        return try connection.guarded { () throws(ErrorRecord) -> Set<ExactText> in
            let statement = try connection.prepare("SELECT url FROM image_data", "read")
            var urls = Set<ExactText>()
            while try statement.step() {
                if let url = statement.text(0) { urls.insert(ExactText(url)) }
            }
            return urls
        }
    }

    /// The item count and timestamp of the cached feed, without decoding it.
    func feedSummary() throws(ErrorRecord) -> (Int?, Timestamp?) {
        try checkActive()
        let header = try connection.prepare("SELECT timestamp_seconds, timestamp_nanoseconds, (SELECT count(*) FROM feed_image) FROM feed_cache WHERE singleton = 1", "read")
        guard try header.step() else { return (nil, nil) }
        // A timestamp that cannot be read is a damaged store, as for a load
        // (`info` said "empty", status 0, of a feed it counted).
        return (Int(header.int64(2)), try timestamp(header.int64(0), header.int64(1)))
    }

    func imageDataSummary() throws(ErrorRecord) -> (Int, Int) {
        try checkActive()
        let statement = try connection.prepare("SELECT count(*), coalesce(sum(length(data)), 0) FROM image_data", "read")
        guard try statement.step() else { return (0, 0) }
        return (Int(statement.int64(0)), Int(statement.int64(1)))
    }
}
