import EssentialFeed

/// Rows of `feed_image` waiting to be inserted: their text copied into one
/// buffer, and for each row four fields (id, description, location, url) as
/// an offset and a length (-1: NULL), and when it was first cached.
final class SQLiteRowBatch {
    /// One stored property, changed once a row (a class's stored property
    /// is checked for exclusive access at each change in debug builds;
    /// release builds of this module leave the checks out: Package.swift).
    private var rows = Rows()
    static let byteLimit = 256 << 10
    static let rowLimit = 2_048

    private struct Rows {
        var bytes: [UInt8] = []
        var fields: [Int] = []

        mutating func append(_ image: CachedImageText, firstCached: Int64) {
            field(image.id)
            field(image.description)
            field(image.location)
            field(image.url)
            fields.append(Int(image.firstCached ?? firstCached))
        }

        @inline(__always)
        private mutating func field(_ text: UnsafeBufferPointer<UInt8>?) {
            guard let text else {
                fields.append(0)
                fields.append(-1)
                return
            }
            fields.append(bytes.count)
            fields.append(text.count)
            bytes.append(contentsOf: text)
        }
    }

    var isEmpty: Bool { rows.fields.isEmpty }
    private static let fieldsPerRow = 9
    var count: Int { rows.fields.count / Self.fieldsPerRow }
    var isFull: Bool { rows.bytes.count >= Self.byteLimit || rows.fields.count >= Self.rowLimit * Self.fieldsPerRow }

    /// `firstCached`: the row's when the image has none.
    func append(_ image: CachedImageText, firstCached: Int64) {
        rows.append(image, firstCached: firstCached)
    }

    func clear() {
        rows.bytes.removeAll(keepingCapacity: true)
        rows.fields.removeAll(keepingCapacity: true)
    }

    /// Lends each row's fields, valid for the call.
    func forEachRow(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>?, UnsafeBufferPointer<UInt8>?, UnsafeBufferPointer<UInt8>, Int64) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        let fields = rows.fields
        try rows.bytes.withUnsafeBufferPointer { (all) throws(ErrorRecord) in
            var index = 0
            while index < fields.count {
                func text(_ at: Int) -> UnsafeBufferPointer<UInt8>? {
                    let length = fields[at + 1]
                    guard length >= 0 else { return nil }
                    return UnsafeBufferPointer(rebasing: all[fields[at]..<fields[at] + length])
                }
                try body(text(index)!, text(index + 2), text(index + 4), text(index + 6)!, Int64(fields[index + 8]))
                index += Self.fieldsPerRow
            }
        }
    }
}
