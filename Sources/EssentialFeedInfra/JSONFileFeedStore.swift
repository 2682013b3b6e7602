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

/// A store in one JSON document, selected by a path ending in `.json`: easy
/// to read with `jq`, meant for small caches.
///
/// The document (one line, keys in this order):
///
///     {"format":"essential-feed-cache","version":1,
///      "timestamp":"2024-05-20T11:24:59.123456789Z","feed":[feed image records],
///      "image_data":{"URL":"BASE64",…}}
///
/// `timestamp` and `feed` are present together, only while a feed is cached;
/// the timestamp keeps all nine digits of nanoseconds when it has them.
/// Image data is stored base64 in the document itself (sorted by URL), not in
/// side files, so that one rename replaces everything at once and there is
/// never a data file without its document or the other way round; the price is
/// that every write rewrites all of it, which is why big image caches belong
/// in the SQLite store.
///
/// - A write transaction holds an exclusive `flock` on the side file
///   `PATH.lock` (created 0600) from before it reads until after it has
///   written, so read-modify-writes of several processes are serialized;
///   another writer waits up to `wait` seconds, then fails with `.busy`.
/// - The document is written to `PATH.tmp` in the same directory (0600),
///   fsynced, renamed over `PATH`, then the directory is fsynced. A
///   `PATH.tmp` left by a crash is removed by the next writer (only a lock
///   holder writes it). Nothing is written when the transaction changed nothing.
/// - A read takes no lock: the rename makes every read see one whole document.
/// - An empty (0-byte) file is an empty store. A JSON document without
///   `"format":"essential-feed-cache"` (`PATH: not a feed cache (…)`), or of a
///   newer version, fails every operation and is never written. A file that
///   is not JSON (`PATH: not a feed cache (invalid JSON …)`) or whose image data
///   is damaged fails every read; deleting the cached feed (so `delete`,
///   `validate`, `save`) replaces it with an empty store. A document whose
///   feed alone is damaged fails `retrieve`; its image data stays readable.
///
/// Not thread-safe: use one instance from one thread at a time.
public final class JSONFileFeedStore: FeedStore {
    /// The path as given, used in messages.
    public let path: String
    public let wait: Double
    /// The file written: `path`, or the file it links to, so that the rename
    /// replaces the file and not a symbolic link to it.
    private let documentPath: String
    private var running = false

    public static let format = "essential-feed-cache"
    public static let schemaVersion = 1

    public var lockPath: String { documentPath + ".lock" }
    /// Where a write transaction writes the document before renaming it
    /// (removed on failure, and by the next writer after a crash).
    public var temporaryPath: String { documentPath + ".tmp" }

    /// Told about the temporary file while a write transaction may create
    /// it, so that an interrupted process can remove it (see `TemporaryFiles`).
    public var temporaryFiles: (any TemporaryFiles)?

    public init(path: String, wait: Double, temporaryFiles: (any TemporaryFiles)? = nil) {
        self.temporaryFiles = temporaryFiles
        self.path = path
        self.wait = wait.isNaN ? 0 : max(wait, 0)
        documentPath = POSIXFiles.resolvingSymbolicLink(path)
    }

    public func transaction<T>(_ body: (any FeedStoreTransaction) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        // A nested transaction would wait for this instance's own lock.
        guard !running else { throw ErrorRecord(.internal, "\(path): a transaction is already running on this store instance") }
        running = true
        defer { running = false }
        try POSIXFiles.makeDirectories(POSIXFiles.directory(of: documentPath))
        let lock = try FileLock(lockPath, for: path, wait: wait)
        defer { lock.unlock() }
        // Only a lock holder writes the temporary file: from here it is ours.
        let token = temporaryFiles?.mayCreate(temporaryPath)
        defer { if let token { temporaryFiles?.done(token) } }
        _ = unlink(temporaryPath)  // left by a writer that crashed
        let loaded = try load()
        if let problem = loaded.unreadable {
            let tx = UnreadableStoreTransaction(problem)
            let result = try body(tx)
            if let snapshot = tx.resetSnapshot {
                let bytes = JSONFileFeedStore.encode(snapshot, keeping: nil, unchanged: false)
                try POSIXFiles.replaceAtomically(documentPath, named: path, with: bytes, temporary: temporaryPath)
            }
            return result
        }
        let tx = FeedStoreSnapshotTransaction(loaded.snapshot)
        let result = try body(tx)
        if tx.hasChanges {
            let snapshot = tx.commit()
            let bytes = JSONFileFeedStore.encode(snapshot, keeping: loaded.document, unchanged: snapshot.cache == loaded.snapshot.cache)
            try POSIXFiles.replaceAtomically(documentPath, named: path, with: bytes, temporary: temporaryPath)
        }
        return result
    }

    public func read<T>(_ body: (any FeedStoreReader) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        let loaded = try load()
        if let problem = loaded.unreadable { throw problem }
        return try body(FeedStoreSnapshotTransaction(loaded.snapshot))
    }

    public func info() throws(ErrorRecord) -> FeedStoreInfo {
        guard let st = try POSIXFiles.status(documentPath) else {
            return FeedStoreSnapshot().info(kind: "json", path: path, exists: false, schemaVersion: nil, fileBytes: nil)
        }
        let loaded = try load()
        if let problem = loaded.unreadable { throw problem }
        return loaded.snapshot.info(kind: "json", path: path, exists: true, schemaVersion: loaded.document == nil ? nil : Self.schemaVersion,
                                    fileBytes: Int(st.st_size))
    }

    private struct Loaded {
        var snapshot: FeedStoreSnapshot
        var document: JSONDocument?
        /// Why the file cannot be read, when it cannot (it can then only be reset).
        var unreadable: ErrorRecord?
    }

    /// The store's content. Throws for a file that must not be touched (not
    /// readable by the C library, a JSON document that is not a feed cache, a
    /// newer version); a file that is not JSON, or whose image data is damaged,
    /// is returned as unreadable.
    private func load() throws(ErrorRecord) -> Loaded {
        guard let bytes = try POSIXFiles.readFile(documentPath, named: path), !bytes.isEmpty else {
            return Loaded(snapshot: FeedStoreSnapshot(), document: nil)
        }
        return try JSONFileFeedStore.decode(bytes, path: path)
    }

    // MARK: The document

    private static func notAFeedCache(_ path: String, _ reason: String) -> ErrorRecord {
        ErrorRecord(.store, "\(path): not a feed cache (\(reason))")
    }

    private static func damaged(_ path: String, _ reason: String) -> ErrorRecord {
        ErrorRecord(.store, "\(path): damaged feed cache: \(reason)")
    }

    /// A file that is not JSON, or a feed cache whose image data is damaged, is
    /// unreadable (it can be reset); a JSON document that is not a feed cache,
    /// or of a newer version, is refused (thrown: it is never written).
    private static func decode(_ bytes: [UInt8], path: String) throws(ErrorRecord) -> Loaded {
        func unreadable(_ error: ErrorRecord) -> Loaded {
            Loaded(snapshot: FeedStoreSnapshot(), document: nil, unreadable: error)
        }
        let document: JSONDocument
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            return unreadable(notAFeedCache(path, error.description))
        }
        let root = document.root
        guard document.kind(root) == .object,
              let format = document.member(root, "format"), document.string(format) == Self.format else {
            throw notAFeedCache(path, "no \"format\":\"\(Self.format)\"")
        }
        guard let versionNode = document.member(root, "version"), let version = document.int(versionNode), version >= 1 else {
            throw notAFeedCache(path, "no valid \"version\"")
        }
        guard version <= Self.schemaVersion else {
            throw ErrorRecord(.store, "\(path): feed cache schema version \(version) is newer than this release supports (\(Self.schemaVersion))")
        }

        var snapshot = FeedStoreSnapshot()
        if document.member(root, "timestamp") != nil || document.member(root, "feed") != nil {
            do throws(ErrorRecord) {
                snapshot.cache = .success(try decodeFeed(document, path: path))
            } catch {
                snapshot.cache = .failure(error)
            }
        }
        if let data = document.member(root, "image_data") {
            guard document.kind(data) == .object else { return unreadable(damaged(path, "\"image_data\" is not an object")) }
            for key in document.keys(data) {
                guard let url = document.string(key),
                      let text = document.string(key + 1),
                      let decoded = Data(base64Encoded: text) else {
                    return unreadable(damaged(path, "image data \(document.string(key) ?? "") is not base64"))
                }
                snapshot.imageData[url] = [UInt8](decoded)
            }
        }
        return Loaded(snapshot: snapshot, document: document)
    }

    private static func decodeFeed(_ document: JSONDocument, path: String) throws(ErrorRecord) -> CachedFeed {
        let root = document.root
        guard let node = document.member(root, "timestamp"), let text = document.string(node),
              let timestamp = Timestamp(iso8601: text) else {
            throw damaged(path, "no valid \"timestamp\"")
        }
        guard let feedNode = document.member(root, "feed"), document.kind(feedNode) == .array else {
            throw damaged(path, "no \"feed\" array")
        }
        var feed: [FeedImage] = []
        feed.reserveCapacity(document.count(feedNode))
        for (index, item) in document.elements(feedNode).enumerated() {
            func field(_ key: String) throws(ErrorRecord) -> String? {
                guard let value = document.member(item, key) else { return nil }
                guard let text = document.string(value) else { throw damaged(path, "feed item \(index + 1): \"\(key)\" is not a string") }
                return text
            }
            guard document.kind(item) == .object else { throw damaged(path, "feed item \(index + 1) is not an object") }
            guard let id = try field("id").flatMap(Identifiers.uuid) else { throw damaged(path, "feed item \(index + 1) has no valid id") }
            guard let url = try field("url") else { throw damaged(path, "feed item \(index + 1) has no url") }
            feed.append(FeedImage(id: id, description: try field("description"), location: try field("location"), url: url))
        }
        return CachedFeed(feed: feed, timestamp: timestamp)
    }

    /// The document for `snapshot`. A damaged feed the transaction did not
    /// touch (`unchanged`) is copied from `previous` as it was, never lost.
    static func encode(_ snapshot: FeedStoreSnapshot, keeping previous: JSONDocument?, unchanged: Bool) -> [UInt8] {
        var writer = JSONWriter(capacity: 4096)
        writer.beginObject()
        writer.member("format", Self.format)
        writer.member("version", Self.schemaVersion)
        switch snapshot.cache {
        case .success(let cached)?:
            writer.member("timestamp", cached.timestamp.iso8601)
            writer.key("feed")
            writer.beginArray()
            for image in cached.feed { image.write(to: &writer) }
            writer.endArray()
        case .failure?:
            if unchanged, let previous {
                for key in ["timestamp", "feed"] {
                    if let node = previous.member(previous.root, key) { writer.member(key, previous, node) }
                }
            }
        case nil:
            break
        }
        if !snapshot.imageData.isEmpty {
            writer.key("image_data")
            writer.beginObject()
            for url in snapshot.imageData.keys.sorted() {
                writer.member(url, Data(snapshot.imageData[url]!).base64EncodedString())
            }
            writer.endObject()
        }
        writer.endObject()
        writer.bytes.append(0x0A)
        return writer.bytes
    }
}
