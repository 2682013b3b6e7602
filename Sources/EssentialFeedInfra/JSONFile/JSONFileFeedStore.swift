import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
/// The document is never held whole: reads go through it with the streaming
/// JSON reader (once to check it and count the feed, once more to hand out
/// the images one by one), and a write transaction writes the new document
/// to `PATH.tmp` as the images come, copying what it keeps from the old one.
/// Memory stays bounded whatever the feed's size, but for the ids of the feed
/// being written (16 bytes each, to keep the first image of an id: 16 MiB a
/// million, no index to fall back on as the SQLite store has) and the image
/// data URLs; the image data a transaction stores waits for its commit in
/// memory up to 4 MiB, then in an unlinked temporary file beside the store.
///
/// - A write transaction holds an exclusive `flock` on the side file
///   `PATH.lock` (created 0600) from before it reads until after it has
///   written, so read-modify-writes of several processes are serialized;
///   another writer waits up to `wait` seconds, then fails with `.busy`.
/// - The document is written to `PATH.tmp` in the same directory (0600) while
///   the transaction runs, fsynced, renamed over `PATH`, then the directory is
///   fsynced; a transaction that fails removes it and leaves `PATH` as it was. A
///   `PATH.tmp` left by a crash is removed by the next writer (only a lock
///   holder writes it). Nothing is written when the transaction changed nothing.
/// - A read takes no lock: the rename makes every read see one whole document.
/// - An empty (0-byte) file is an empty store. A JSON document without
///   `"format":"essential-feed-cache"` (`PATH: not a feed cache (…)`), of a
///   newer version, or a file that is not JSON at all, fails every operation
///   and is never written (nor is a lock file made beside it). A document of
///   ours that is cut short or damaged after its `format` member
///   (`PATH: damaged feed cache: …`), or whose image data is damaged, fails
///   every read; deleting the cached feed (so `delete`, `validate`, `save`)
///   replaces it with an empty store. A document whose
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

    /// Told about the temporary file while a write transaction has it, so
    /// that an interrupted process removes it (see `TemporaryFiles`).
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
        // Before this store's first lock file: a document that is not ours
        // gets nothing beside it either (it is read again under the lock).
        if access(lockPath, F_OK) != 0 {
            let document = try openDocument()
            if document.exists { close(document.fd) }
        }
        let lock = try FileLock(lockPath, for: path, wait: wait)
        defer { lock.unlock() }
        _ = unlink(temporaryPath)  // left by a writer that crashed
        let document = try openDocument()
        // Its lock file removed (or replaced) meanwhile, another writer may
        // have come in: this one saves nothing, and leaves that writer's
        // temporary file alone.
        let tx = JSONFileTransaction(document, path: path, documentPath: documentPath, temporaryPath: temporaryPath, temporaryFiles: temporaryFiles) { [path, lockPath] in
            lock.isStillHeld ? nil : ErrorRecord(.store, "cannot write \(path): its lock file \(lockPath) was removed or replaced while it was written (another writer may have come in): nothing saved")
        }
        defer { tx.end() }
        let result = try body(tx)
        try tx.commit()
        return result
    }

    public func read<T>(_ body: (any FeedStoreReader) throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        let document = try openDocument()
        let tx = JSONFileTransaction(document, path: path, documentPath: documentPath, temporaryPath: nil)
        defer { tx.end() }
        if case .unreadable(let problem) = document.content { throw problem }
        return try body(tx)
    }

    public func info() throws(ErrorRecord) -> FeedStoreInfo {
        let document = try openDocument()
        defer { if document.fd >= 0 { close(document.fd) } }
        guard document.exists else {
            return FeedStoreSnapshot().info(kind: "json", path: path, exists: false, schemaVersion: nil, fileBytes: nil)
        }
        var summary: JSONFeedDocumentSummary?
        switch document.content {
        case .unreadable(let problem): throw problem
        case .empty: break
        case .readable(let content): summary = content
        }
        var itemCount: Int?, timestamp: Timestamp?
        switch summary?.feed {
        case .valid(let header)?:
            itemCount = header.count
            timestamp = header.timestamp
        case .damaged(let problem)?:
            // As for a load (`info` said "empty", status 0).
            throw problem
        case .absent?, nil:
            break
        }
        return FeedStoreInfo(kind: "json", path: path, exists: true, schemaVersion: summary == nil ? nil : Self.schemaVersion,
                             fileBytes: document.size, itemCount: itemCount, timestamp: timestamp,
                             imageDataCount: summary?.imageDataCount ?? 0, imageDataBytes: summary?.imageDataBytes ?? 0)
    }

    /// The document, open (a rename that replaces it later leaves this one
    /// readable, whole) and read once through.
    private func openDocument() throws(ErrorRecord) -> JSONFileDocument {
        var fd: Int32
        repeat { fd = open(documentPath, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        if fd < 0 {
            let code = errno
            if code == ENOENT { return JSONFileDocument(fd: -1, size: 0, content: .empty) }
            throw POSIXFiles.failure("open", path, code)
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let code = errno
            close(fd)
            throw POSIXFiles.failure("read", path, code)
        }
        if POSIXFiles.isDirectory(st) {
            close(fd)
            throw POSIXFiles.failure("read", path, EISDIR)
        }
        let size = Int(st.st_size)
        if size == 0 { return JSONFileDocument(fd: fd, size: 0, content: .empty) }
        let outcome: JSONFeedDocumentSummary.Outcome
        do throws(ErrorRecord) {
            outcome = try JSONFeedDocumentSummary.read(fd, path: path)
        } catch {
            close(fd)
            throw error
        }
        switch outcome {
        case .readable(let summary): return JSONFileDocument(fd: fd, size: size, content: .readable(summary))
        case .unreadable(let problem): return JSONFileDocument(fd: fd, size: size, content: .unreadable(problem))
        }
    }
}
