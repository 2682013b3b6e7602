import CLibpq
import EssentialFeed
import EssentialFeedInfra
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends the images of the feed a transaction writes as rows of a
/// `COPY … FROM STDIN` in text format, 256 KiB at a time: the server inserts
/// one batch while the next records are read. Each row takes the next
/// position; an id already written (`ids`) is skipped.
final class PostgreSQLFeedWriter: FeedImageWriter {
    private let connection: PostgreSQLConnection
    private var ids: IDSet
    private var next: Int64
    private var buffer: [UInt8] = []
    /// Whether a `COPY` is in progress on the connection.
    private var copying = false
    private var active = true
    private let canonical = UnsafeMutablePointer<UInt8>.allocate(capacity: 36)
    static let batchBytes = 256 << 10
    private static let copy = "COPY \(PostgreSQLFeedStore.schema).feed_image (position, id, description, location, url, data_key, first_cached_seconds) FROM STDIN"

    /// When the images added were first cached, when they do not say (the feed's timestamp).
    private let firstCached: Int64

    init(_ connection: PostgreSQLConnection, ids: consuming IDSet, next: Int64, firstCached: Int64) {
        self.connection = connection
        self.firstCached = firstCached
        self.ids = ids
        self.next = next
        buffer.reserveCapacity(Self.batchBytes + 4096)
    }

    deinit { canonical.deallocate() }

    /// Sends every row added so far and ends the copy, so that the
    /// connection can run other statements; throws the copy's failure.
    func settle() throws(ErrorRecord) {
        guard active, copying || !buffer.isEmpty else { return }
        try send()
        copying = false
        try connection.endCopyIn("write")
    }

    /// Ends the writer: rows not yet sent are dropped (after `settle`: none).
    func end() {
        active = false
        buffer = []
    }

    private func send() throws(ErrorRecord) {
        if !copying {
            _ = try connection.query(Self.copy, expecting: PGRES_COPY_IN, "write")
            copying = true
        }
        var failure: ErrorRecord?
        buffer.withUnsafeBytes { bytes in
            do throws(ErrorRecord) { try connection.copyIn(bytes, "write") } catch { failure = error }
        }
        if let failure { throw failure }
        buffer.removeAll(keepingCapacity: true)
    }

    func add(_ image: FeedImage) throws(ErrorRecord) -> Bool {
        try CachedImageText.lending(image) { (text) throws(ErrorRecord) in try add(text, id: image.id) }
    }

    func add(_ image: CachedImageText) throws(ErrorRecord) -> Bool {
        guard let id = Identifiers.uuid(bytes: image.id) else {
            throw ErrorRecord(.internal, "\(connection.name): a feed image lent with an invalid id")
        }
        return try add(image, id: id)
    }

    private func add(_ image: CachedImageText, id: UUID) throws(ErrorRecord) -> Bool {
        guard active else { throw ErrorRecord(.internal, "\(connection.name): a feed writer was used after its feed or transaction ended") }
        guard try ids.insert(id) else { return false }
        appendDecimal(next)
        next += 1
        buffer.append(9)
        if Identifiers.isCanonicalUUID(bytes: image.id) {
            buffer.append(contentsOf: image.id)
        } else {
            UUID.writeCanonical(id.uuid, to: canonical)
            buffer.append(contentsOf: UnsafeBufferPointer(start: canonical, count: 36))
        }
        buffer.append(9)
        PostgreSQLText.appendCopyField(image.description, to: &buffer)
        buffer.append(9)
        PostgreSQLText.appendCopyField(image.location, to: &buffer)
        buffer.append(9)
        PostgreSQLText.appendCopyField(image.url, to: &buffer)
        buffer.append(9)
        // The key of the image's data, when it is not the URL itself: a URL with a password (see LocalFeedImageDataLoader.key).
        if image.url.contains(UInt8(ascii: "@")), case let url = String(decoding: image.url, as: UTF8.self),
           case let key = LocalFeedImageDataLoader.key(url), key != url {
            var key = key
            key.withUTF8 { PostgreSQLText.appendCopyField($0, to: &buffer) }
        } else {
            PostgreSQLText.appendCopyField(nil, to: &buffer)
        }
        buffer.append(9)
        appendDecimal(image.firstCached ?? firstCached)
        buffer.append(10)
        if buffer.count >= Self.batchBytes { try send() }
        return true
    }

    private func appendDecimal(_ value: Int64) {
        if value < 0 {
            buffer.append(contentsOf: String(value).utf8)
            return
        }
        if value < 10 {
            buffer.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { out in
            while rest > 0 {
                out[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            buffer.append(contentsOf: out[(20 - count)...])
        }
    }
}
