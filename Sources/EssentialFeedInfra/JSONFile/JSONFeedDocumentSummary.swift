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

/// What a JSON-file store's document holds, found by reading it once from
/// end to end with the streaming reader, in the same memory whatever the
/// document's size: whether it is a feed cache, its feed's timestamp and size or
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
    /// How many image data entries there are, and the data's size.
    var imageDataCount = 0
    var imageDataBytes = 0
    /// Whether the URLs are in increasing byte order, each once (as this
    /// store writes them): then they can be merged as they are read.
    var imageDataSorted = true
    /// The feed's validators (`"validators":{"url","etag","last_modified"}`);
    /// anything else there counts as none.
    var validators: FeedValidators?

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
                    case "validators":
                        summary.validators = nil
                        guard try reader.peekKind() == .object else { try reader.skipValue(); break }
                        try reader.beginObject()
                        var url: String?, etag: String?, lastModified: String?
                        var name: [UInt8] = []
                        while try reader.nextMember(key: &name) {
                            guard try reader.peekKind() == .string else { try reader.skipValue(); continue }
                            text.removeAll(keepingCapacity: true)
                            try reader.string(into: &text, decode: true)
                            let value = String(decoding: text, as: UTF8.self)
                            switch String(decoding: name, as: UTF8.self) {
                            case "url": url = value
                            case "etag": etag = value
                            case "last_modified": lastModified = value
                            default: break
                            }
                        }
                        if let url, etag != nil || lastModified != nil {
                            summary.validators = FeedValidators(url: url, etag: etag, lastModified: lastModified)
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
                        summary.imageDataCount = 0
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
                        var lastKey: [UInt8]?
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
                            summary.imageDataCount += 1
                            if let last = lastKey, !SortedEntrySpool.less(last, urlKey) { summary.imageDataSorted = false }
                            if lastKey == nil { lastKey = urlKey } else { lastKey!.removeAll(keepingCapacity: true); lastKey!.append(contentsOf: urlKey) }
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
