// Over 400 lines, and one type: a transaction on the JSON-file store holds
// the open document, its lock, the temporary file being written and the
// interrupt guard, and each operation (load, save, append, image data,
// commit) keeps them consistent; the document's own reading and writing
// live beside it (`JSONFeedDocumentSummary`, `DocumentOutput`).
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

/// A transaction of the JSON-file store over its open document, streaming:
/// the old document is read where it lies, and a feed begun is written to
/// the temporary file as its images come (the document's head first, so that
/// committing only adds the image data and the closing brace, then renames).
///
/// A document that cannot be read (not JSON, damaged image data) fails every
/// operation until the cached feed is deleted, which resets the store to an
/// empty one (as `UnreadableStoreTransaction` does for the other stores).
final class JSONFileTransaction: FeedStoreTransaction {
    private let document: JSONFileDocument
    private let path: String
    private let documentPath: String
    /// Nil for a read transaction.
    private let temporaryPath: String?

    /// The old document's content; nil when it is empty or was reset.
    private var summary: JSONFeedDocumentSummary?
    /// Why the old document cannot be read, until it is reset.
    private var unreadable: ErrorRecord?
    /// Whether the old content is gone (an unreadable document was reset).
    private var reset = false

    private enum Feed {
        /// The old document's (valid, damaged or absent).
        case old
        /// Deleted.
        case none
        /// Written to the temporary file.
        case new
    }

    private var feed = Feed.old
    private var output: DocumentOutput?
    private var temporaryFD: Int32 = -1
    /// The interrupt's removal of the temporary file, while it may be there.
    private var removalToken: Int?
    /// Where the new feed's first item starts in the temporary file.
    private var itemsStart = 0
    private var newCount = 0
    private var newTimestamp = Timestamp(seconds: 0, nanoseconds: 0)
    private var ids: IDSet
    private var record: [UInt8] = []
    private weak var writer: JSONFileFeedWriter?
    /// The validators to keep with the feed (the old document's until changed).
    private var validators: FeedValidators?
    /// The old feed's new timestamp, when a server confirmed it current.
    private var touched: Timestamp?
    /// The old document's image data entries by URL fingerprint, once lookups needed them.
    private var imageDataIndex: [UInt64]?
    private var lookups = 0
    /// The image data put in this transaction, by URL.
    private lazy var insertedData = SortedEntrySpool(directory: POSIXFiles.directory(of: documentPath), path: path)
    private(set) var hasChanges = false
    private var feedChanged = false
    private var committed = false
    private var ended = false

    /// Who removes the temporary file at an interrupt: its creation and
    /// rename are made under their lock.
    private let temporaryFiles: (any TemporaryFiles)?

    /// Why the writer's lock no longer holds (its lock file removed or
    /// replaced: another writer may have come in), nil while it holds; asked
    /// before each use of the temporary file's name, which is then another
    /// writer's (two wrote at once, one's file renamed over the store by
    /// the other: found by the hunt).
    private let lockLost: () -> ErrorRecord?

    init(_ document: JSONFileDocument, path: String, documentPath: String, temporaryPath: String?, temporaryFiles: (any TemporaryFiles)? = nil,
         lockLost: @escaping () -> ErrorRecord? = { nil }) {
        self.lockLost = lockLost
        self.temporaryFiles = temporaryFiles
        self.document = document
        self.path = path
        self.documentPath = documentPath
        self.temporaryPath = temporaryPath
        ids = IDSet(directory: POSIXFiles.directory(of: documentPath), path: path)
        switch document.content {
        case .empty: break
        case .readable(let content):
            summary = content
            validators = content.validators
        case .unreadable(let problem): unreadable = problem
        }
        record.reserveCapacity(1024)
    }

    /// Closes the files; removes the temporary file unless it was committed.
    func end() {
        guard !ended else { return }
        ended = true
        writer = nil
        if temporaryFD >= 0 {
            // With the lock lost, removed only while its name is still this
            // file's (it was left behind: found in review).
            if !committed, let temporaryPath, lockLost() == nil || POSIXFiles.isSameFile(temporaryFD, as: temporaryPath) { _ = unlink(temporaryPath) }
            endRemoval()
            close(temporaryFD)
            temporaryFD = -1
        }
        endRemoval()
        if document.fd >= 0 { close(document.fd) }
        insertedData.discard()
    }

    /// Ends the interrupt's removal of the temporary file: while this
    /// file's descriptor is open (or its name links it), its inode is its
    /// own; once it is freed, another writer's new file may have it, which
    /// the removal's check would take for this one (found in review).
    private func endRemoval() {
        if let removalToken { temporaryFiles?.done(removalToken) }
        removalToken = nil
    }

    private func checkReadable() throws(ErrorRecord) {
        if let unreadable { throw unreadable }
        if ended { throw ErrorRecord(.internal, "\(path): the transaction has ended") }
    }

    private var oldFeed: JSONFeedDocumentSummary.Feed { summary?.feed ?? .absent }

    // MARK: Reading

    func retrieveHeader() throws(ErrorRecord) -> CachedFeedHeader? {
        try checkReadable()
        switch feed {
        case .none: return nil
        case .new: return CachedFeedHeader(timestamp: newTimestamp, count: newCount)
        case .old:
            switch oldFeed {
            case .absent: return nil
            case .valid(var header):
                if let touched { header.timestamp = touched }
                return header
            case .damaged(let error): throw error
            }
        }
    }

    func retrieve() throws(ErrorRecord) -> CachedFeed? {
        guard let header = try retrieveHeader() else { return nil }
        var images: [FeedImage] = []
        images.reserveCapacity(header.count)
        try forEachCachedImage { images.append($0.image) }
        return CachedFeed(feed: images, timestamp: header.timestamp)
    }

    func forEachCachedImage(_ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        guard try retrieveHeader() != nil else { return }
        try readingDocument { () throws(ErrorRecord) in
            switch feed {
            case .none: return
            case .new:
                var reader = try newItemsReader()
                try reader.beginArray()
                try JSONFeedDocumentSummary.visitItems(&reader, path: path, body)
            case .old:
                guard let member = summary?.feedMember else { return }
                var reader = JSONFeedDocumentSummary.reader(document.fd, path: path)
                try JSONFeedDocumentSummary.seek(&reader, member: member)
                try reader.beginArray()
                try JSONFeedDocumentSummary.visitItems(&reader, path: path, body)
            }
        }
    }

    /// Runs `body`, which reads a document already checked: a syntax error
    /// there means the file was damaged meanwhile.
    private func readingDocument<T>(_ body: () throws(ErrorRecord) -> T) throws(ErrorRecord) -> T {
        do throws(ErrorRecord) {
            return try body()
        } catch where error.kind == .invalidData {
            throw JSONFeedDocumentSummary.damaged(path, error.message)
        }
    }

    /// A reader over the items of the new feed, as an array.
    private func newItemsReader() throws(ErrorRecord) -> JSONStreamReader {
        guard let output else { throw ErrorRecord(.internal, "\(path): no feed is being written") }
        try output.flush()
        var reader = JSONStreamReader(source: FileRegionSource(fd: temporaryFD, path: path, from: itemsStart, to: output.offset,
                                                               prefix: [UInt8(ascii: "[")], suffix: [UInt8(ascii: "]")]))
        reader.multiline = true
        return reader
    }

    func retrieveImageData(for url: String) throws(ErrorRecord) -> [UInt8]? {
        try checkReadable()
        if !insertedData.isEmpty, let data = try insertedData.value(for: Array(url.utf8)) { return data }
        guard !reset, let summary, let member = summary.imageDataMember, summary.imageDataCount > 0 else { return nil }
        let wanted = Array(url.utf8)
        lookups += 1
        guard lookups > 1 else {
            // One lookup (`feed-cache image URL`): a scan of the image data,
            // which ends at the URL when it is in order.
            return try readingDocument { () throws(ErrorRecord) -> [UInt8]? in
                var reader = JSONFeedDocumentSummary.reader(document.fd, path: path)
                try JSONFeedDocumentSummary.seek(&reader, member: member)
                try reader.beginObject()
                var key: [UInt8] = []
                var found: [UInt8]?
                while try reader.nextMember(key: &key) {
                    if key == wanted {
                        found = try Self.imageData(&reader, url: url, path: path)
                        if summary.imageDataSorted { break }
                    } else if summary.imageDataSorted && SortedEntrySpool.less(wanted, key) {
                        break
                    } else {
                        try reader.skipValue()
                    }
                }
                return found
            }
        }
        let index = try oldImageDataIndex()
        let tag = Self.fingerprint(wanted) >> 40
        var low = 0, high = index.count
        while low < high {
            let mid = (low + high) / 2
            if index[mid] >> 40 < tag { low = mid + 1 } else { high = mid }
        }
        // Of a URL written twice (by hand) the last wins, as in a parse.
        var found: [UInt8]?
        var key: [UInt8] = []
        while low < index.count, index[low] >> 40 == tag {
            let at = Int(index[low] & (1 << 40 - 1))
            low += 1
            try readingDocument { () throws(ErrorRecord) in
                var reader = JSONStreamReader(source: FileRegionSource(fd: document.fd, path: path, from: at >> 1,
                                                                       prefix: at & 1 == 1 ? [UInt8(ascii: "{")] : Array(#"{"":0"#.utf8)),
                                              chunkSize: 4096)
                reader.multiline = true
                try reader.beginObject()
                if at & 1 == 0 {
                    _ = try reader.nextMember(key: &key)
                    try reader.skipValue()
                }
                guard try reader.nextMember(key: &key), key == wanted else { return }
                found = try Self.imageData(&reader, url: url, path: path)
            }
        }
        return found
    }

    /// Where each of the old document's image data entries starts, made at
    /// the second lookup in one pass over the image data, so that a lookup
    /// reads that entry alone where it read the document up to it (a view
    /// of a feed of 100k images with data took hours; now half a second).
    /// An entry is 8 bytes, sorted: its URL's keyed fingerprint's top 24 bits,
    /// then the offset just after the entry before it (the `,` comes next),
    /// or after the object's `{` for the first (the lowest bit tells). A
    /// lookup reads each entry of its tag and compares the URL.
    private func oldImageDataIndex() throws(ErrorRecord) -> [UInt64] {
        if let imageDataIndex { return imageDataIndex }
        var index: [UInt64] = []
        guard let summary, let member = summary.imageDataMember else { return [] }
        index.reserveCapacity(summary.imageDataCount)
        try readingDocument { () throws(ErrorRecord) in
            var reader = JSONFeedDocumentSummary.reader(document.fd, path: path)
            try JSONFeedDocumentSummary.seek(&reader, member: member)
            try reader.beginObject()
            var key: [UInt8] = []
            var at = reader.offset << 1 | 1
            while try reader.nextMember(key: &key) {
                guard at < 1 << 40 else { throw ErrorRecord(.store, "\(path): a document of more than 512 GiB") }
                index.append((Self.fingerprint(key) >> 40) << 40 | UInt64(at))
                try reader.skipValue()
                at = reader.offset << 1
            }
        }
        index.sort()
        imageDataIndex = index
        return index
    }

    /// A 64-bit hash of `bytes` keyed with the process's own random seed
    /// (the standard library's `Hasher`, SipHash-1-3): URLs cannot be chosen
    /// to share a tag, so that each lookup would compare every entry (an
    /// unkeyed hash let a server make a view of n images take n² reads).
    private static func fingerprint(_ bytes: [UInt8]) -> UInt64 {
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// The data of the image data value that comes next (checked already when the document was read).
    private static func imageData(_ reader: inout JSONStreamReader, url: String, path: String) throws(ErrorRecord) -> [UInt8] {
        var text: [UInt8] = []
        try reader.string(into: &text, decode: true)
        guard let data = Data(base64Encoded: String(decoding: text, as: UTF8.self)) else {
            throw JSONFeedDocumentSummary.damaged(path, "image data \(url) is not base64")
        }
        return [UInt8](data)
    }

    func cachedImageDataURLs() throws(ErrorRecord) -> Set<ExactText> {
        try checkReadable()
        var urls = Set<ExactText>()
        var old = try OldImageData(self)
        while let (key, _) = try old.next() { urls.insert(ExactText(String(decoding: key, as: UTF8.self))) }
        try insertedData.forEachKey { (key) throws(ErrorRecord) in urls.insert(ExactText(String(decoding: key, as: UTF8.self))) }
        return urls
    }

    // MARK: Writing

    func insert(_ images: [FeedImage], timestamp: Timestamp) throws(ErrorRecord) {
        _ = try beginFeed(timestamp: timestamp, keepingCachedImages: false)
        writer = nil
        for image in images {
            // As ever with this store, an inserted feed is kept as given, repeated ids included.
            _ = try CachedImageText.lending(image) { (text) throws(ErrorRecord) in try append(text, keepingRepeatedIDs: true) }
        }
    }

    func beginFeed(timestamp: Timestamp, keepingCachedImages: Bool) throws(ErrorRecord) -> any FeedImageWriter {
        try checkReadable()
        guard temporaryPath != nil else { throw ErrorRecord(.internal, "\(path): a read transaction cannot write") }
        writer = nil
        // Validators belong to the feed's first page: kept when images are added after it.
        if !keepingCachedImages { validators = nil }
        let prefix = Self.head(timestamp: timestamp)
        if keepingCachedImages && feed == .new, let output {
            // The items written stay; the head before them takes the new timestamp.
            try output.replacePrefix(of: itemsStart, with: prefix)
            itemsStart = prefix.count
        } else {
            var keptOld = false
            var oldSeconds: Int64 = 0
            if keepingCachedImages && feed == .old {
                switch oldFeed {
                case .absent: break
                case .valid(let header):
                    keptOld = true
                    oldSeconds = header.timestamp.seconds
                case .damaged(let error): throw error
                }
            }
            let output = try openOutput()
            try output.append(prefix)
            itemsStart = prefix.count
            newCount = 0
            ids = IDSet(directory: POSIXFiles.directory(of: documentPath), path: path)
            feed = .new
            if keptOld {
                guard let member = summary?.feedMember else { throw ErrorRecord(.internal, "\(path): no feed to keep") }
                try readingDocument { () throws(ErrorRecord) in
                    var reader = JSONFeedDocumentSummary.reader(document.fd, path: path)
                    try JSONFeedDocumentSummary.seek(&reader, member: member)
                    try reader.beginArray()
                    try JSONFeedDocumentSummary.visitItems(&reader, path: path) { (image) throws(ErrorRecord) in
                        // An item of an earlier release's document: first cached with its feed.
                        var image = image
                        if image.firstCached == nil { image.firstCached = oldSeconds }
                        _ = try append(image, keepingRepeatedIDs: true)
                    }
                }
            }
        }
        feed = .new
        newTimestamp = timestamp
        hasChanges = true
        feedChanged = true
        let writer = JSONFileFeedWriter(self)
        self.writer = writer
        return writer
    }

    /// `,"validators":{"url":…,"etag":…,"last_modified":…}`
    private static func member(_ validators: FeedValidators) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("url", validators.url)
        writer.member("etag", validators.etag)
        writer.member("last_modified", validators.lastModified)
        writer.endObject()
        return Array(#","validators":"#.utf8) + writer.bytes
    }

    /// `{"format":…,"version":1,"timestamp":"…","feed":[`
    private static func head(timestamp: Timestamp) -> [UInt8] {
        var head = documentStart
        head.append(contentsOf: #","timestamp":""#.utf8)
        head.append(contentsOf: timestamp.iso8601.utf8)
        head.append(contentsOf: #"","feed":["#.utf8)
        return head
    }

    private static let documentStart = Array(#"{"format":"\#(JSONFileFeedStore.format)","version":\#(JSONFileFeedStore.schemaVersion)"#.utf8)

    /// The temporary file, created or emptied.
    private func openOutput() throws(ErrorRecord) -> DocumentOutput {
        if let output {
            try output.truncate()
            return output
        }
        guard let temporaryPath else { throw ErrorRecord(.internal, "\(path): a read transaction cannot write") }
        // The document replaced keeps its mode and (for root) its owner; one
        // made read-only is not replaced, as SQLite refuses to write one. A
        // damaged one reset is a new store (0600, as SQLite makes one).
        var existing = stat()
        let exists = stat(documentPath, &existing) == 0
        if exists, access(documentPath, W_OK) != 0 { throw POSIXFiles.failure("write", path) }
        let replaced = exists && !reset
        #if DEBUG
        TestPause.at("FEED_TEST_PAUSE_BEFORE_TEMPORARY_FILE")
        #endif
        if let lost = lockLost() { throw lost }
        let (fd, code) = uninterrupted { () -> (Int32, Int32) in
            _ = unlink(temporaryPath)
            var fd: Int32
            repeat { fd = open(temporaryPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) } while fd < 0 && errno == EINTR
            let code = errno
            // Removed at an interrupt only while its name is still this
            // file's: with the lock lost, another writer's may have taken
            // it (that file was removed, and that writer failed: found by
            // the hunt).
            if fd >= 0 { removalToken = temporaryFiles?.onInterrupt(POSIXFiles.removal(of: temporaryPath, whileItNames: fd)) }
            return (fd, code)
        }
        guard fd >= 0 else { throw POSIXFiles.failure("write", path, code) }
        temporaryFD = fd
        // The replaced file's mode; confined, one without others' write,
        // set-id or sticky bits (the sandbox gives no file those).
        let mode = replaced ? existing.st_mode & 0o7777 : 0o600
        guard fchmod(fd, mode) == 0 || (errno == EPERM && fchmod(fd, mode & ~0o7002) == 0) else { throw POSIXFiles.failure("write", path) }
        if replaced, geteuid() == 0 { _ = fchown(fd, existing.st_uid, existing.st_gid) }
        let output = DocumentOutput(fd: fd, path: path)
        self.output = output
        return output
    }

    /// Runs `step` under the lock of the interrupt's cleanup, if any.
    private func uninterrupted<T>(_ step: () -> T) -> T {
        temporaryFiles.map { $0.uninterrupted(step) } ?? step()
    }

    /// Adds `image` to the new feed unless an image of its id is in it (or
    /// whatever its id, when `keepingRepeatedIDs`).
    func append(_ image: CachedImageText, from writer: JSONFileFeedWriter) throws(ErrorRecord) -> Bool {
        guard writer === self.writer, feed == .new, !ended else {
            throw ErrorRecord(.internal, "\(path): a feed writer was used after its feed or transaction ended")
        }
        return try append(image, keepingRepeatedIDs: false)
    }

    private func append(_ image: CachedImageText, keepingRepeatedIDs: Bool) throws(ErrorRecord) -> Bool {
        guard let output, let id = Identifiers.uuid(bytes: image.id) else {
            throw ErrorRecord(.internal, "\(path): a feed image lent with an invalid id")
        }
        guard try ids.insert(id) || keepingRepeatedIDs else { return false }
        record.removeAll(keepingCapacity: true)
        if newCount > 0 { record.append(UInt8(ascii: ",")) }
        if Identifiers.isCanonicalUUID(bytes: image.id) {
            image.appendRecord(to: &record)
        } else {
            id.withCanonicalText { CachedImageText(id: $0, description: image.description, location: image.location, url: image.url).appendRecord(to: &record) }
        }
        Self.appendFirstCached(image.firstCached ?? newTimestamp.seconds, to: &record)
        try output.append(record)
        newCount += 1
        return true
    }

    /// Gives the item record that ends `record` its `first_cached` member,
    /// in seconds: a feed item of the document is its record and that.
    private static func appendFirstCached(_ seconds: Int64, to record: inout [UInt8]) {
        record.removeLast()
        record.append(contentsOf: #","first_cached":"#.utf8)
        record.append(contentsOf: String(seconds).utf8)
        record.append(UInt8(ascii: "}"))
    }

    func retrieveValidators() throws(ErrorRecord) -> FeedValidators? {
        guard try retrieveHeader() != nil else { return nil }
        return validators
    }

    func setValidators(_ validators: FeedValidators?) throws(ErrorRecord) {
        guard try retrieveHeader() != nil, validators != self.validators else { return }
        self.validators = validators
        hasChanges = true
    }

    func touchCachedFeed(timestamp: Timestamp) throws(ErrorRecord) -> Bool {
        guard try retrieveHeader() != nil else { return false }
        if feed == .new, let output {
            // The head before the items takes the new timestamp.
            let prefix = Self.head(timestamp: timestamp)
            try output.replacePrefix(of: itemsStart, with: prefix)
            itemsStart = prefix.count
            newTimestamp = timestamp
        } else {
            touched = timestamp
        }
        hasChanges = true
        return true
    }

    func deleteCachedFeed() throws(ErrorRecord) {
        writer = nil
        validators = nil
        if unreadable != nil {
            guard temporaryPath != nil else { try checkReadable(); return }
            unreadable = nil
            // As an empty store from now on; the reset drops the old image data by itself.
            reset = true
            summary = nil
            feed = .none
            hasChanges = true
            return
        }
        try checkReadable()
        switch feed {
        case .none: return
        case .new: break
        case .old: if case .absent = oldFeed { return }
        }
        feed = .none
        hasChanges = true
        feedChanged = true
    }

    /// Beside the store, in an unlinked temporary file past 1 MiB.
    func makeCachedImageSpool() -> any CachedImageSpool {
        FileCachedImageSpool(directory: POSIXFiles.directory(of: documentPath), path: path)
    }

    func insertImageData(_ data: [UInt8], for url: String) throws(ErrorRecord) {
        try checkReadable()
        guard temporaryPath != nil else { throw ErrorRecord(.internal, "\(path): a read transaction cannot write") }
        try insertedData.put(Array(url.utf8), data)
        hasChanges = true
    }

    // MARK: Committing

    /// Completes the document in the temporary file and renames it over the
    /// store's file, when anything changed and the lock still holds.
    func commit() throws(ErrorRecord) {
        guard hasChanges, !ended, let temporaryPath else { return }
        #if DEBUG
        TestPause.at("FEED_TEST_PAUSE_BEFORE_COMMIT")
        #endif
        writer = nil
        let output: DocumentOutput
        // Image data is kept only for images of the feed: a new feed's URLs
        // are matched; a deleted feed keeps none.
        var keepsData = true
        var newFeedURLs: SortedEntrySpool?
        if feed == .new, let current = self.output {
            if feedChanged && hasImageData { newFeedURLs = try urlsOfNewFeed() }
            output = current
            try output.append("]")
        } else {
            output = try openOutput()
            try output.append(Self.documentStart)
            if feed == .old { try copyOldFeed(to: output) }
            if feedChanged { keepsData = false }
        }
        if feed != .none, let validators { try output.append(Self.member(validators)) }
        if keepsData { try writeImageData(to: output, onlyFor: newFeedURLs) }
        newFeedURLs?.discard()
        try output.append("}\n")
        try output.flush()
        var code: Int32?
        if fsync(temporaryFD) != 0 { code = errno }
        if let lost = lockLost() {
            // Removed only while its name is still this file's: it may name
            // another writer's now.
            if POSIXFiles.isSameFile(temporaryFD, as: temporaryPath) { _ = unlink(temporaryPath) }
            endRemoval()
            close(temporaryFD)
            temporaryFD = -1
            throw lost
        }
        if close(temporaryFD) != 0, code == nil { code = errno }
        temporaryFD = -1
        if code == nil { code = uninterrupted { rename(temporaryPath, documentPath) == 0 ? nil : errno } }
        if let code {
            // Its inode is freed by the unlink (the descriptor is closed),
            // and may be another file's next.
            endRemoval()
            _ = unlink(temporaryPath)
            throw POSIXFiles.failure("write", path, code)
        }
        committed = true
        try POSIXFiles.syncDirectory(POSIXFiles.directory(of: documentPath), for: path)
    }

    /// Whether there is image data, old or put in this transaction.
    private var hasImageData: Bool {
        !insertedData.isEmpty || (!reset && (summary?.imageDataCount ?? 0) > 0)
    }

    /// The keys of the new feed's image URLs, sorted, to match image data to.
    private func urlsOfNewFeed() throws(ErrorRecord) -> SortedEntrySpool {
        let urls = SortedEntrySpool(directory: POSIXFiles.directory(of: documentPath), path: path)
        var reader = try newItemsReader()
        try reader.beginArray()
        try JSONFeedDocumentSummary.visitItems(&reader, path: path) { (image) throws(ErrorRecord) in
            try urls.put(Array(LocalFeedImageDataLoader.key(String(decoding: image.url, as: UTF8.self)).utf8), [])
        }
        return urls
    }

    /// The old feed, unchanged: a valid one as this store writes it, a
    /// damaged one as it was (its timestamp and feed copied value by value).
    private func copyOldFeed(to output: DocumentOutput) throws(ErrorRecord) {
        guard let summary else { return }
        switch summary.feed {
        case .absent:
            return
        case .valid(let header):
            var head = Array(#","timestamp":""#.utf8)
            head.append(contentsOf: (touched ?? header.timestamp).iso8601.utf8)
            head.append(contentsOf: #"","feed":["#.utf8)
            try output.append(head)
            guard let member = summary.feedMember else { break }
            var first = true
            try readingDocument { () throws(ErrorRecord) in
                var reader = JSONFeedDocumentSummary.reader(document.fd, path: path)
                try JSONFeedDocumentSummary.seek(&reader, member: member)
                try reader.beginArray()
                try JSONFeedDocumentSummary.visitItems(&reader, path: path) { (image) throws(ErrorRecord) in
                    record.removeAll(keepingCapacity: true)
                    if !first { record.append(UInt8(ascii: ",")) }
                    first = false
                    image.appendRecord(to: &record)
                    Self.appendFirstCached(image.firstCached ?? header.timestamp.seconds, to: &record)
                    try output.append(record)
                }
            }
            try output.append("]")
        case .damaged:
            for (name, member) in [("timestamp", summary.timestampMember), ("feed", summary.feedMember)] {
                guard let member else { continue }
                try output.append(Array(",\"\(name)\":".utf8))
                try readingDocument { () throws(ErrorRecord) in
                    var reader = JSONFeedDocumentSummary.reader(document.fd, path: path)
                    try JSONFeedDocumentSummary.seek(&reader, member: member)
                    guard try reader.peekKind() == .array else {
                        record.removeAll(keepingCapacity: true)
                        try reader.captureValue(into: &record)
                        try output.append(record)
                        return
                    }
                    // Element by element, so that a big damaged feed is never held whole.
                    try reader.beginArray()
                    try output.append("[")
                    var first = true
                    while try reader.nextElement() {
                        record.removeAll(keepingCapacity: true)
                        if !first { record.append(UInt8(ascii: ",")) }
                        first = false
                        try reader.captureValue(into: &record)
                        try output.append(record)
                    }
                    try output.append("]")
                }
            }
        }
    }

    /// `,"image_data":{…}`, when there is any: the image data put in this
    /// transaction and the old document's, merged in increasing order of
    /// URL (the data put winning), only for the URLs in `onlyFor` when given.
    /// Old data is copied as its text stands (checked when it was read).
    private func writeImageData(to output: DocumentOutput, onlyFor urls: SortedEntrySpool?) throws(ErrorRecord) {
        var new = try insertedData.sorted()
        var old = try OldImageData(self)
        var wanted = try urls?.sorted()
        var nextWanted = try wanted?.next()
        var n = try new.next(), o = try old.next()
        var first = true
        var entry: [UInt8] = []
        while n != nil || o != nil {
            let fromNew: Bool
            if let a = n, let b = o {
                let c = SortedEntrySpool.less(a.key, b.key) ? -1 : a.key == b.key ? 0 : 1
                fromNew = c <= 0
                if c == 0 { o = try old.next() }  // the old data for the URL is replaced
            } else {
                fromNew = n != nil
            }
            let (key, value) = fromNew ? n! : o!
            if fromNew { n = try new.next() } else { o = try old.next() }
            if wanted != nil {
                while let w = nextWanted, SortedEntrySpool.less(w.key, key) { nextWanted = try wanted!.next() }
                guard let w = nextWanted, w.key == key else { continue }
            }
            entry.removeAll(keepingCapacity: true)
            entry.append(contentsOf: first ? Array(#","image_data":{""#.utf8) : Array(#",""#.utf8))
            first = false
            JSONWriter.appendEscaped(key, to: &entry)
            entry.append(contentsOf: #"":""#.utf8)
            if fromNew && value.count >= 3 << 16 {
                // A big image's text is made and written piece by piece.
                try output.append(entry)
                entry.removeAll(keepingCapacity: true)
                try ImageDataText.encode(value) { (piece) throws(ErrorRecord) in try output.append(piece) }
                entry.append(UInt8(ascii: "\""))
                try output.append(entry)
                continue
            }
            // The data apart: a big image is written as it is, not copied again.
            let text = fromNew ? ImageDataText.encode(value) : value
            if text.count < 1 << 16 {
                entry.append(contentsOf: text)
            } else {
                try output.append(entry)
                try output.append(text)
                entry.removeAll(keepingCapacity: true)
            }
            entry.append(UInt8(ascii: "\""))
            try output.append(entry)
        }
        if !first { try output.append("}") }
    }

    /// The old document's image data in increasing order of URL, each URL
    /// once with its text as written: read in one pass when sorted (as this
    /// store writes it), else sorted through a spool first.
    private struct OldImageData {
        private var reader: JSONStreamReader?
        private var sorted: SortedEntrySpool.Merge?
        private let path: String
        private var key: [UInt8] = []

        init(_ tx: JSONFileTransaction) throws(ErrorRecord) {
            path = tx.path
            guard !tx.reset, let summary = tx.summary, let member = summary.imageDataMember, summary.imageDataCount > 0 else { return }
            var reader = JSONFeedDocumentSummary.reader(tx.document.fd, path: path)
            try tx.readingDocument { () throws(ErrorRecord) in
                try JSONFeedDocumentSummary.seek(&reader, member: member)
                try reader.beginObject()
            }
            if summary.imageDataSorted {
                self.reader = reader
            } else {
                let spool = SortedEntrySpool(directory: POSIXFiles.directory(of: tx.documentPath), path: tx.path)
                var key: [UInt8] = []
                var text: [UInt8] = []
                try tx.readingDocument { () throws(ErrorRecord) in
                    while try reader.nextMember(key: &key) {
                        text.removeAll(keepingCapacity: true)
                        try reader.string(into: &text, decode: false)
                        try spool.put(key, text)
                    }
                }
                sorted = try spool.sorted()
            }
        }

        /// The next URL and its data's text; nil after the last.
        mutating func next() throws(ErrorRecord) -> (key: [UInt8], value: [UInt8])? {
            if sorted != nil { return try sorted!.next() }
            guard var current = reader else { return nil }
            do throws(ErrorRecord) {
                guard try current.nextMember(key: &key) else {
                    reader = nil
                    return nil
                }
                var text: [UInt8] = []
                try current.string(into: &text, decode: false)
                reader = current
                return (key, text)
            } catch where error.kind == .invalidData {
                throw JSONFeedDocumentSummary.damaged(path, error.message)
            }
        }
    }
}
