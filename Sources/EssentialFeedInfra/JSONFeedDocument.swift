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

/// Bytes of an open file from `offset` to `end`, read with `pread` (so that
/// several readers can walk one descriptor), optionally between a prefix and
/// a suffix (to read a run of array elements as an array).
struct FileRegionSource: ByteSource {
    let fd: Int32
    var offset: Int
    let end: Int
    var prefix: [UInt8]
    var suffix: [UInt8]
    /// The store path, for messages.
    let path: String

    init(fd: Int32, path: String, from offset: Int = 0, to end: Int = Int.max, prefix: [UInt8] = [], suffix: [UInt8] = []) {
        self.fd = fd
        self.path = path
        self.offset = offset
        self.end = end
        self.prefix = prefix
        self.suffix = suffix
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ErrorRecord) -> Int {
        guard buffer.count > 0 else { return 0 }
        if !prefix.isEmpty { return Self.take(&prefix, into: buffer) }
        while offset < end {
            let n = pread(fd, buffer.baseAddress, min(buffer.count, end - offset), off_t(offset))
            if n > 0 {
                offset += n
                return n
            }
            if n == 0 { break }
            if errno == EINTR { continue }
            throw POSIXFiles.failure("read", path)
        }
        offset = end
        if !suffix.isEmpty { return Self.take(&suffix, into: buffer) }
        return 0
    }

    private static func take(_ bytes: inout [UInt8], into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let n = min(bytes.count, buffer.count)
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: n) }
        bytes.removeFirst(n)
        return n
    }
}

/// A file written through a buffer at an offset of its own (`pwrite`), so
/// that a region already written can be moved. The first failure is kept and
/// thrown by every later call.
final class DocumentOutput {
    let fd: Int32
    private let path: String
    private var buffer: [UInt8] = []
    /// Where the buffer goes in the file.
    private var flushed = 0
    private static let bufferSize = 256 << 10

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        buffer.reserveCapacity(Self.bufferSize)
    }

    /// The file's size once flushed: where the next byte goes.
    var offset: Int { flushed + buffer.count }

    func append(_ bytes: [UInt8]) throws(ErrorRecord) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) throws(ErrorRecord) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    func append(_ text: StaticString) throws(ErrorRecord) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
        if buffer.count >= Self.bufferSize { try flush() }
    }

    func flush() throws(ErrorRecord) {
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(flushed + done)) }
            if n > 0 {
                done += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                throw POSIXFiles.failure("write", path, n < 0 ? errno : EIO)
            }
        }
        flushed += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Empties the file, to be written again from its start.
    func truncate() throws(ErrorRecord) {
        buffer.removeAll(keepingCapacity: true)
        flushed = 0
        guard ftruncate(fd, 0) == 0 else { throw POSIXFiles.failure("write", path) }
    }

    /// Replaces the first `oldLength` bytes of the file with `prefix`, moving
    /// what follows them (a file-level `memmove`).
    func replacePrefix(of oldLength: Int, with prefix: [UInt8]) throws(ErrorRecord) {
        try flush()
        let rest = flushed - oldLength
        let shift = prefix.count - oldLength
        if shift != 0 && rest > 0 {
            let chunkSize = 1 << 20
            let chunk = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 16)
            defer { chunk.deallocate() }
            // Moving forward (toward the end): copy from the back; backward: from the front.
            var moved = 0
            while moved < rest {
                let size = min(chunkSize, rest - moved)
                let from = shift > 0 ? oldLength + rest - moved - size : oldLength + moved
                try Self.full(chunk, size, from, path) { pread(fd, $0, $1, $2) }
                try Self.full(chunk, size, from + shift, path) { pwrite(fd, $0, $1, $2) }
                moved += size
            }
        }
        let head = UnsafeMutableRawPointer.allocate(byteCount: max(prefix.count, 1), alignment: 16)
        defer { head.deallocate() }
        prefix.withUnsafeBytes { head.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        try Self.full(head, prefix.count, 0, path) { pwrite(fd, $0, $1, $2) }
        flushed += shift
        guard ftruncate(fd, off_t(flushed)) == 0 else { throw POSIXFiles.failure("write", path) }
    }

    private static func full(_ base: UnsafeMutableRawPointer, _ count: Int, _ at: Int, _ path: String,
                             _ io: (UnsafeMutableRawPointer, Int, off_t) -> Int) throws(ErrorRecord) {
        var done = 0
        while done < count {
            let n = io(base + done, count - done, off_t(at + done))
            if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { throw POSIXFiles.failure("write", path, n < 0 ? errno : EIO) }
        }
    }
}

/// A set of ids that costs 16 bytes per id, plus about 1.5 MiB: a sorted
/// table and a small hash set of the ids added since the last merge into
/// it. The table lies in address space reserved once (pages are committed
/// as it grows, so it never moves nor is copied); where that cannot be
/// reserved, in memory from `realloc`. A million ids take 16 MiB.
struct CompactIDSet: ~Copyable {
    private typealias Key = (UInt64, UInt64)
    private var table: UnsafeMutablePointer<Key>?
    private var tableCount = 0
    /// Bytes of the table usable: committed pages of the reservation, or the allocation.
    private var usableBytes = 0
    /// Bytes reserved; 0 when the table is allocated with `realloc`.
    private var reservedBytes = 0
    private var recent = IDSet()
    private var recentList: [Key] = []
    private static let mergeEvery = 1 << 15
    private static let reservation = 1 << 36
    private static let commitStep = 1 << 20

    init() {}

    deinit {
        if reservedBytes > 0 { munmap(table, reservedBytes) } else { free(table) }
    }

    var count: Int { tableCount + recentList.count }

    /// Inserts `id`; false when it was there already.
    mutating func insert(_ id: UUID) -> Bool {
        let key = withUnsafeBytes(of: id.uuid) { ($0.loadUnaligned(as: UInt64.self).bigEndian, $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian) }
        if contains(sorted: key) { return false }
        guard recent.insert(id) else { return false }
        recentList.append(key)
        if recentList.count >= Self.mergeEvery { merge() }
        return true
    }

    private func contains(sorted key: Key) -> Bool {
        guard let table else { return false }
        var low = 0, high = tableCount
        while low < high {
            let mid = (low + high) / 2
            let value = table[mid]
            if value == key { return true }
            if value < key { low = mid + 1 } else { high = mid }
        }
        return false
    }

    /// Makes room for `count` keys.
    private mutating func reserve(_ count: Int) {
        let bytes = count * MemoryLayout<Key>.stride
        guard bytes > usableBytes else { return }
        if table == nil {
            let base = mmap(nil, Self.reservation, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
            if let base, base != MAP_FAILED {
                table = base.bindMemory(to: Key.self, capacity: Self.reservation / MemoryLayout<Key>.stride)
                reservedBytes = Self.reservation
            }
        }
        if reservedBytes > 0, bytes <= reservedBytes {
            let commit = min((bytes + Self.commitStep - 1) / Self.commitStep * Self.commitStep, reservedBytes)
            if mprotect(UnsafeMutableRawPointer(table!), commit, PROT_READ | PROT_WRITE) == 0 {
                usableBytes = commit
                return
            }
        }
        if reservedBytes > 0 {
            // Cannot commit more of the reservation: move to an allocation.
            guard let moved = malloc(bytes) else { fatalError("out of memory") }
            if tableCount > 0 { moved.copyMemory(from: UnsafeRawPointer(table!), byteCount: tableCount * MemoryLayout<Key>.stride) }
            munmap(table, reservedBytes)
            reservedBytes = 0
            table = moved.bindMemory(to: Key.self, capacity: count)
        } else {
            guard let grown = realloc(table, bytes) else { fatalError("out of memory") }
            table = grown.bindMemory(to: Key.self, capacity: count)
        }
        usableBytes = bytes
    }

    private mutating func merge() {
        recentList.sort { $0 < $1 }
        let total = tableCount + recentList.count
        reserve(total)
        let table = self.table!
        var i = tableCount - 1, j = recentList.count - 1, w = total - 1
        while j >= 0 {
            if i >= 0 && table[i] > recentList[j] {
                table[w] = table[i]
                i -= 1
            } else {
                table[w] = recentList[j]
                j -= 1
            }
            w -= 1
        }
        tableCount = total
        recentList.removeAll(keepingCapacity: true)
        recent = IDSet()
    }
}

/// The fields of one feed item of a JSON-file store, read from its document.
struct FeedItemFields {
    enum State { case absent, string, notString }
    var id: [UInt8] = [], description: [UInt8] = [], location: [UInt8] = [], url: [UInt8] = []
    var idState = State.absent, descriptionState = State.absent, locationState = State.absent, urlState = State.absent
    var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    var key: [UInt8] = []

    init() {
        url.reserveCapacity(256)
        description.reserveCapacity(256)
    }

    /// Reads the feed item that comes next (the `index`th, 1-based). Returns
    /// why it is damaged, in the words the store has always used, or nil when
    /// it is a valid image (then held in the fields).
    mutating func read(_ reader: inout JSONStreamReader, index: Int) throws(ErrorRecord) -> String? {
        guard try reader.peekKind() == .object else {
            try reader.skipValue()
            return "feed item \(index) is not an object"
        }
        idState = .absent; descriptionState = .absent; locationState = .absent; urlState = .absent
        try reader.beginObject()
        while try reader.nextMember(key: &key) {
            switch key.count {
            case 2 where key == Self.idKey: try Self.field(&reader, &id, &idState)
            case 3 where key == Self.urlKey: try Self.field(&reader, &url, &urlState)
            case 8 where key == Self.locationKey: try Self.field(&reader, &location, &locationState)
            case 11 where key == Self.descriptionKey: try Self.field(&reader, &description, &descriptionState)
            default: try reader.skipValue()
            }
        }
        if idState == .notString { return "feed item \(index): \"id\" is not a string" }
        guard idState == .string, let uuid = id.withUnsafeBufferPointer({ Identifiers.uuid(bytes: $0) }) else {
            return "feed item \(index) has no valid id"
        }
        self.uuid = uuid
        if urlState == .notString { return "feed item \(index): \"url\" is not a string" }
        guard urlState == .string else { return "feed item \(index) has no url" }
        if descriptionState == .notString { return "feed item \(index): \"description\" is not a string" }
        if locationState == .notString { return "feed item \(index): \"location\" is not a string" }
        return nil
    }

    private static let idKey = Array("id".utf8), urlKey = Array("url".utf8)
    private static let locationKey = Array("location".utf8), descriptionKey = Array("description".utf8)

    private static func field(_ reader: inout JSONStreamReader, _ out: inout [UInt8], _ state: inout State) throws(ErrorRecord) {
        guard try reader.peekKind() == .string else {
            try reader.skipValue()
            state = .notString
            return
        }
        out.removeAll(keepingCapacity: true)
        try reader.string(into: &out, decode: true)
        state = .string
    }

    /// Lends the image read to `body` as text.
    func lend(to body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        var outcome: ErrorRecord?
        uuid.withCanonicalText { id in
            description.withUnsafeBufferPointer { description in
                location.withUnsafeBufferPointer { location in
                    url.withUnsafeBufferPointer { url in
                        do throws(ErrorRecord) {
                            try body(CachedImageText(id: id, description: descriptionState == .string ? description : nil,
                                                     location: locationState == .string ? location : nil, url: url))
                        } catch {
                            outcome = error
                        }
                    }
                }
            }
        }
        if let outcome { throw outcome }
    }
}

/// What a JSON-file store's document holds, found by reading it once from
/// end to end with the streaming reader (nothing but the image data URLs is
/// kept): whether it is a feed cache, its feed's timestamp and size or
/// damage, and where to find the feed and the image data again.
struct JSONFeedDocumentSummary {
    enum Feed {
        case absent
        case valid(CachedFeedHeader)
        case damaged(ErrorRecord)
    }

    var feed = Feed.absent
    /// The root members (by position) of the feed, the timestamp and the image data read (the last of each name).
    var feedMember: Int?
    var timestampMember: Int?
    var imageDataMember: Int?
    /// The URLs with image data, in document order, and the data's size.
    var imageDataURLs: [String] = []
    var imageDataBytes = 0
    /// Whether the URLs are in increasing order, each once (as this store writes them).
    var imageDataSorted = true

    enum Outcome {
        case readable(JSONFeedDocumentSummary)
        /// Not JSON, or image data damaged: the store can only be reset.
        case unreadable(ErrorRecord)
    }

    static func notAFeedCache(_ path: String, _ reason: String) -> ErrorRecord {
        ErrorRecord(.store, "\(path): not a feed cache (\(reason))")
    }

    static func damaged(_ path: String, _ reason: String) -> ErrorRecord {
        ErrorRecord(.store, "\(path): damaged feed cache: \(reason)")
    }

    /// A reader over the whole document in `fd`.
    static func reader(_ fd: Int32, path: String) -> JSONStreamReader {
        var reader = JSONStreamReader(source: FileRegionSource(fd: fd, path: path))
        reader.multiline = true
        return reader
    }

    /// Reads the document in `fd` (not empty). Throws for a document that
    /// must not be touched (JSON that is not a feed cache, a newer version)
    /// and when the file cannot be read.
    static func read(_ fd: Int32, path: String) throws(ErrorRecord) -> Outcome {
        var summary = JSONFeedDocumentSummary()
        var reader = reader(fd, path: path)
        var formatOK = false
        var version: Int?
        var timestampPresent = false, timestamp: Timestamp?
        var feedPresent = false, feedIsArray = false, feedCount = 0, feedDamage: String?
        var imageDataDamage: String?
        var isObject = false
        do throws(ErrorRecord) {
            guard try reader.peek() != nil else { throw notAFeedCache(path, "invalid JSON at byte 1: unexpected end: expected a value") }
            if try reader.peekKind() == .object {
                isObject = true
                try reader.beginObject()
                var key: [UInt8] = []
                var text: [UInt8] = []
                var fields = FeedItemFields()
                var member = 0
                while try reader.nextMember(key: &key) {
                    defer { member += 1 }
                    switch String(decoding: key, as: UTF8.self) {
                    case "format":
                        formatOK = false
                        if try reader.peekKind() == .string {
                            text.removeAll(keepingCapacity: true)
                            try reader.string(into: &text, decode: true)
                            formatOK = text.elementsEqual(JSONFileFeedStore.format.utf8)
                        } else {
                            try reader.skipValue()
                        }
                    case "version":
                        version = nil
                        if try reader.peekKind() == .number {
                            text.removeAll(keepingCapacity: true)
                            try reader.number(into: &text)
                            version = Int(String(decoding: text, as: UTF8.self))
                        } else {
                            try reader.skipValue()
                        }
                    case "timestamp":
                        timestampPresent = true
                        summary.timestampMember = member
                        timestamp = nil
                        if try reader.peekKind() == .string {
                            text.removeAll(keepingCapacity: true)
                            try reader.string(into: &text, decode: true)
                            timestamp = Timestamp(iso8601: String(decoding: text, as: UTF8.self))
                        } else {
                            try reader.skipValue()
                        }
                    case "feed":
                        feedPresent = true
                        summary.feedMember = member
                        feedCount = 0
                        feedDamage = nil
                        feedIsArray = try reader.peekKind() == .array
                        guard feedIsArray else { try reader.skipValue(); break }
                        try reader.beginArray()
                        while try reader.nextElement() {
                            feedCount += 1
                            if feedDamage == nil {
                                feedDamage = try fields.read(&reader, index: feedCount)
                            } else {
                                try reader.skipValue()
                            }
                        }
                    case "image_data":
                        summary.imageDataMember = member
                        summary.imageDataURLs = []
                        summary.imageDataBytes = 0
                        summary.imageDataSorted = true
                        imageDataDamage = nil
                        guard try reader.peekKind() == .object else {
                            try reader.skipValue()
                            imageDataDamage = "\"image_data\" is not an object"
                            break
                        }
                        try reader.beginObject()
                        var urlKey: [UInt8] = []
                        while try reader.nextMember(key: &urlKey) {
                            let url = String(decoding: urlKey, as: UTF8.self)
                            guard imageDataDamage == nil else { try reader.skipValue(); continue }
                            guard try reader.peekKind() == .string else {
                                try reader.skipValue()
                                imageDataDamage = "image data \(url) is not base64"
                                continue
                            }
                            text.removeAll(keepingCapacity: true)
                            try reader.string(into: &text, decode: true)
                            guard let data = Data(base64Encoded: String(decoding: text, as: UTF8.self)) else {
                                imageDataDamage = "image data \(url) is not base64"
                                continue
                            }
                            summary.imageDataBytes += data.count
                            if let last = summary.imageDataURLs.last, !(last < url) { summary.imageDataSorted = false }
                            summary.imageDataURLs.append(url)
                        }
                        if text.capacity > 1 << 20 { text = [] }
                    default:
                        try reader.skipValue()
                    }
                }
            } else {
                try reader.skipValue()
            }
            try reader.finishDocument()
        } catch where error.kind == .invalidData {
            // Ours, damaged (cut short, say) only when our format was read
            // before the fault: anything else is the user's, never reset.
            guard isObject, formatOK else { throw notAFeedCache(path, error.message) }
            return .unreadable(damaged(path, error.message))
        }
        guard isObject, formatOK else {
            throw notAFeedCache(path, "no \"format\":\"\(JSONFileFeedStore.format)\"")
        }
        guard let version, version >= 1 else { throw notAFeedCache(path, "no valid \"version\"") }
        guard version <= JSONFileFeedStore.schemaVersion else {
            throw ErrorRecord(.store, "\(path): feed cache schema version \(version) is newer than this release supports (\(JSONFileFeedStore.schemaVersion))")
        }
        if timestampPresent || feedPresent {
            if let timestamp {
                if !feedIsArray {
                    summary.feed = .damaged(damaged(path, "no \"feed\" array"))
                } else if let feedDamage {
                    summary.feed = .damaged(damaged(path, feedDamage))
                } else {
                    summary.feed = .valid(CachedFeedHeader(timestamp: timestamp, count: feedCount))
                }
            } else {
                summary.feed = .damaged(damaged(path, "no valid \"timestamp\""))
            }
        }
        if let imageDataDamage { return .unreadable(damaged(path, imageDataDamage)) }
        return .readable(summary)
    }

    /// Moves `reader` (at the start of the document) into the value of the
    /// root member at position `index`.
    static func seek(_ reader: inout JSONStreamReader, member index: Int) throws(ErrorRecord) {
        try reader.beginObject()
        var key: [UInt8] = []
        var member = 0
        while try reader.nextMember(key: &key) {
            if member == index { return }
            try reader.skipValue()
            member += 1
        }
        throw ErrorRecord(.store, "the document changed while it was read")
    }

    /// Calls `body` with each item of the open feed array in `reader`,
    /// stopping with a `.store` error at a damaged one.
    static func visitItems(_ reader: inout JSONStreamReader, path: String,
                           _ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        var fields = FeedItemFields()
        var index = 0
        while try reader.nextElement() {
            index += 1
            if let damage = try fields.read(&reader, index: index) { throw damaged(path, damage) }
            try fields.lend(to: body)
        }
    }
}

/// Image data as this store writes it: base64 text.
enum ImageDataText {
    static func encode(_ data: [UInt8]) -> [UInt8] {
        Array(Data(data).base64EncodedString().utf8)
    }
}
