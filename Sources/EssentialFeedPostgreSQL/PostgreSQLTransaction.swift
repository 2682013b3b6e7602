import CLibpq
import EssentialFeed
import EssentialFeedInfra
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

/// The operations of one PostgreSQL transaction; usable only while it runs.
final class PostgreSQLTransaction: FeedStoreTransaction {
    private let connection: PostgreSQLConnection
    private var active = true
    private var feedChanged = false
    /// The writer of the feed being written, if any.
    private var writer: PostgreSQLFeedWriter?
    private static let s = PostgreSQLFeedStore.schema

    /// Whether the rows keep when their image was first cached (schema 2).
    private let hasFirstCached: Bool

    init(_ connection: PostgreSQLConnection, hasFirstCached: Bool = true) {
        self.connection = connection
        self.hasFirstCached = hasFirstCached
    }

    private var name: String { connection.name }

    /// Ends the transaction without committing (the rollback that follows drops what it wrote).
    func end() {
        active = false
        writer?.end()
        writer = nil
    }

    /// Applies the image data rule and commits.
    func commit() throws(ErrorRecord) {
        try checkActive()
        writer?.end()
        writer = nil
        if feedChanged, try connection.integer("SELECT count(*) FROM (SELECT 1 FROM \(Self.s).image_data LIMIT 1) AS any_data", "write") > 0 {
            // Image data is kept under the URL with its password shown as *** (see LocalFeedImageDataLoader.key).
            try connection.execute("""
                DELETE FROM \(Self.s).image_data AS d WHERE NOT EXISTS
                    (SELECT 1 FROM \(Self.s).feed_image AS f WHERE coalesce(f.data_key, f.url) = d.url)
                """, "write")
        }
        try connection.execute("COMMIT", "commit")
        active = false
    }

    /// Fails once the transaction ended; else sends the rows a writer still
    /// holds, so that whatever comes next sees them.
    private func checkActive() throws(ErrorRecord) {
        guard active else { throw ErrorRecord(.internal, "\(name): store transaction used after it ended") }
        // A statement failed (a failure the caller went past): it is the
        // failure of whatever comes next, not "current transaction is aborted".
        if connection.transactionFailed, let failure = connection.lastFailure { throw failure }
        try writer?.settle()
    }

    private func damaged(_ reason: String) -> ErrorRecord {
        ErrorRecord(.store, "\(name): damaged feed cache: \(reason)")
    }

    private func timestamp(_ result: PostgreSQLResult) throws(ErrorRecord) -> Timestamp {
        guard let seconds = result.text(0, 0).flatMap({ Int64($0) }), let nanoseconds = result.text(0, 1).flatMap({ Int32($0) }),
              (0..<1_000_000_000).contains(nanoseconds), Timestamp(seconds: seconds, nanoseconds: 0).isWithinISO8601Years else {
            // Years 0 to 9999 only, as in the other stores: no tool reads another back.
            throw damaged("invalid timestamp")
        }
        return Timestamp(seconds: seconds, nanoseconds: nanoseconds)
    }

    func retrieve() throws(ErrorRecord) -> CachedFeed? {
        try checkActive()
        let header = try connection.query("SELECT timestamp_seconds, timestamp_nanoseconds FROM \(Self.s).feed_cache", "read")
        guard header.rows > 0 else { return nil }
        let timestamp = try timestamp(header)
        var feed: [FeedImage] = []
        try forEachCachedImage { image in feed.append(image.image) }
        return CachedFeed(feed: feed, timestamp: timestamp)
    }

    func retrieveHeader() throws(ErrorRecord) -> CachedFeedHeader? {
        try checkActive()
        let header = try connection.query("""
            SELECT timestamp_seconds, timestamp_nanoseconds, (SELECT count(*) FROM \(Self.s).feed_image) FROM \(Self.s).feed_cache
            """, "read")
        guard header.rows > 0 else { return nil }
        return CachedFeedHeader(timestamp: try timestamp(header), count: Int(header.text(0, 2) ?? "") ?? 0)
    }

    func forEachCachedImage(_ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        try checkActive()
        _ = try connection.query("COPY (SELECT id, description, location, url, \(hasFirstCached ? "first_cached_seconds" : "NULL") FROM \(Self.s).feed_image ORDER BY position) TO STDOUT",
                                 expecting: PGRES_COPY_OUT, "read")
        var scratch: [UInt8] = []
        var fields: [Range<Int>?] = [nil, nil, nil, nil, nil]
        var item = 0
        let canonical = UnsafeMutablePointer<UInt8>.allocate(capacity: 36)
        defer { canonical.deallocate() }
        do throws(ErrorRecord) {
            try connection.copyOut("read") { (row) throws(ErrorRecord) in
                item += 1
                guard PostgreSQLText.decodeRow(row, scratch: &scratch, fields: &fields) else { throw damaged("item \(item) is not a row of 5 fields") }
                try scratch.withUnsafeBufferPointer { (all) throws(ErrorRecord) in
                    func slice(_ range: Range<Int>?) -> UnsafeBufferPointer<UInt8>? {
                        range.map { UnsafeBufferPointer(rebasing: all[$0]) }
                    }
                    guard let url = slice(fields[3]) else { throw damaged("item \(item) has no url") }
                    guard var id = slice(fields[0]) else { throw damaged("item \(item) has no valid id") }
                    if !Identifiers.isCanonicalUUID(bytes: id) {
                        guard let uuid = Identifiers.uuid(bytes: id) else { throw damaged("item \(item) has no valid id") }
                        UUID.writeCanonical(uuid.uuid, to: canonical)
                        id = UnsafeBufferPointer(start: canonical, count: 36)
                    }
                    let firstCached = slice(fields[4]).flatMap { Int64(String(decoding: $0, as: UTF8.self)) }
                    try body(CachedImageText(id: id, description: slice(fields[1]), location: slice(fields[2]), url: url, firstCached: firstCached))
                }
            }
        } catch {
            connection.drainCopyOut()
            throw error
        }
    }

    func insert(_ feed: [FeedImage], timestamp: Timestamp) throws(ErrorRecord) {
        let writer = try beginFeed(timestamp: timestamp, keepingCachedImages: false)
        for image in feed { _ = try writer.add(image) }
    }

    func beginFeed(timestamp: Timestamp, keepingCachedImages: Bool) throws(ErrorRecord) -> any FeedImageWriter {
        try checkActive()
        writer?.end()
        writer = nil
        var ids = IDSet(directory: Self.temporaryDirectory, path: name)
        // Positions only ever grow, also past a replaced feed's: an insert then
        // never meets the deleted rows' keys in the primary key's index (each
        // such meeting costs a visit to the heap), and goes to its last page.
        let next = try connection.integer("SELECT coalesce(max(position) + 1, 0) FROM \(Self.s).feed_image", "read")
        if keepingCachedImages {
            _ = try connection.query("COPY (SELECT id FROM \(Self.s).feed_image ORDER BY position) TO STDOUT", expecting: PGRES_COPY_OUT, "read")
            var item = 0
            do throws(ErrorRecord) {
                try connection.copyOut("read") { (row) throws(ErrorRecord) in
                    item += 1
                    let text = UnsafeBufferPointer(rebasing: row[..<(row.last == 10 ? row.count - 1 : row.count)])
                    guard let id = Identifiers.uuid(bytes: text) else { throw damaged("item \(item) has no valid id") }
                    _ = try ids.insert(id)
                }
            } catch {
                connection.drainCopyOut()
                throw error
            }
        } else {
            try connection.execute("DELETE FROM \(Self.s).feed_image", "write")
        }
        // Validators belong to the feed's first page: kept when images are added after it.
        let kept = keepingCachedImages ? try retrieveValidators() : nil
        _ = try connection.query("""
            INSERT INTO \(Self.s).feed_cache (singleton, timestamp_seconds, timestamp_nanoseconds) VALUES (1, $1, $2)
            ON CONFLICT (singleton) DO UPDATE SET timestamp_seconds = $1, timestamp_nanoseconds = $2,
                validators_url = NULL, etag = NULL, last_modified = NULL
            """, [String(timestamp.seconds), String(timestamp.nanoseconds)], "write")
        if let kept { try writeValidators(kept) }
        feedChanged = true
        let writer = PostgreSQLFeedWriter(connection, ids: ids, next: next, firstCached: timestamp.seconds)
        self.writer = writer
        return writer
    }

    /// Where the id set's temporary file goes: `$TMPDIR`, else /tmp.
    private static var temporaryDirectory: String {
        if let directory = getenv("TMPDIR").map({ String(cString: $0) }), directory.hasPrefix("/") { return directory }
        return "/tmp"
    }

    func retrieveValidators() throws(ErrorRecord) -> FeedValidators? {
        try checkActive()
        let row = try connection.query("SELECT validators_url, etag, last_modified FROM \(Self.s).feed_cache", "read")
        guard row.rows > 0, let url = row.bytes(0, 0).map(PostgreSQLText.string(column:)) else { return nil }
        let validators = FeedValidators(url: url, etag: row.bytes(0, 1).map(PostgreSQLText.string(column:)),
                                        lastModified: row.bytes(0, 2).map(PostgreSQLText.string(column:)))
        return validators.etag == nil && validators.lastModified == nil ? nil : validators
    }

    func setValidators(_ validators: FeedValidators?) throws(ErrorRecord) {
        try checkActive()
        try writeValidators(validators)
    }

    private func writeValidators(_ validators: FeedValidators?) throws(ErrorRecord) {
        _ = try connection.query("UPDATE \(Self.s).feed_cache SET validators_url = $1, etag = $2, last_modified = $3",
                                 [validators.map { PostgreSQLText.column($0.url) }, validators?.etag.map(PostgreSQLText.column),
                                  validators?.lastModified.map(PostgreSQLText.column)], "write")
    }

    func touchCachedFeed(timestamp: Timestamp) throws(ErrorRecord) -> Bool {
        try checkActive()
        let result = try connection.query("UPDATE \(Self.s).feed_cache SET timestamp_seconds = $1, timestamp_nanoseconds = $2",
                                          [String(timestamp.seconds), String(timestamp.nanoseconds)], "write")
        return result.changed > 0
    }

    func deleteCachedFeed() throws(ErrorRecord) {
        try checkActive()
        writer?.end()
        writer = nil
        let feeds = try connection.query("DELETE FROM \(Self.s).feed_cache", "write")
        let images = try connection.query("DELETE FROM \(Self.s).feed_image", "write")
        if feeds.changed > 0 || images.changed > 0 { feedChanged = true }
    }

    /// In `$TMPDIR` (else /tmp), in an unlinked temporary file past 1 MiB.
    func makeCachedImageSpool() -> any CachedImageSpool {
        FileCachedImageSpool(directory: Self.temporaryDirectory, path: name)
    }

    func insertImageData(_ data: [UInt8], for url: String) throws(ErrorRecord) {
        try checkActive()
        // Added, else replaced: the writers' lock keeps another writer from
        // adding the URL in between. The key's constraint, an exclusion, can
        // be no ON CONFLICT DO UPDATE's target. Against version 2's upsert on
        // its B-tree key, for 20,000 images: new ones (what save-images mostly
        // gets) in 0.8-1.0x the time, replaced ones in 1.4x (two statements);
        // one statement doing both (an UPDATE in a WITH, then an INSERT)
        // took 1.9x for new ones.
        let parameters = [PostgreSQLText.column(url)]
        if try connection.query("""
            INSERT INTO \(Self.s).image_data (url, data) VALUES ($1, $2) ON CONFLICT DO NOTHING
            """, parameters, binary: [data], "write").changed == 0 {
            _ = try connection.query("UPDATE \(Self.s).image_data SET data = $2 WHERE url = $1", parameters, binary: [data], "write")
        }
    }

    func retrieveImageData(for url: String) throws(ErrorRecord) -> [UInt8]? {
        try checkActive()
        let row = try connection.query("SELECT data FROM \(Self.s).image_data WHERE url = $1", [PostgreSQLText.column(url)], binaryRows: true, "read")
        guard row.rows > 0 else { return nil }
        return row.bytes(0, 0).map(Array.init) ?? []
    }

    func cachedImageDataURLs() throws(ErrorRecord) -> Set<ExactText> {
        try checkActive()
        let rows = try connection.query("SELECT url FROM \(Self.s).image_data", "read")
        return Set((0..<rows.rows).compactMap { rows.bytes($0, 0).map { ExactText(PostgreSQLText.string(column: $0)) } })
    }

    /// How many URLs have data, and its size in bytes.
    func imageDataSummary() throws(ErrorRecord) -> (Int, Int) {
        try checkActive()
        let row = try connection.query("SELECT count(*), coalesce(sum(length(data)), 0) FROM \(Self.s).image_data", "read")
        return (Int(row.text(0, 0) ?? "") ?? 0, Int(row.text(0, 1) ?? "") ?? 0)
    }
}
