import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A `CachedImageSpool` that holds up to `memoryLimit` bytes of images in
/// memory, then keeps them in an unlinked temporary file in `directory`
/// (nothing is left behind, however the process ends): a merging save into
/// a cached feed of a million images holds a few MiB, not the feed.
///
/// Each image is 12 bytes of lengths (description + 1 and location + 1, 0
/// when absent; url), 8 of its `firstCached` (`Int64.min`: nil), then its
/// id (36 bytes), description, location and url.
/// Reading goes forward from the nearest of the positions kept for every
/// 1,024th image, through a buffer of 1 MiB (more for a larger image).
public final class FileCachedImageSpool: CachedImageSpool {
    private let directory: String
    private let path: String
    private let memoryLimit: Int
    /// Images not yet written to the file.
    private var pending: [UInt8] = []
    private var fd: Int32 = -1
    private var fileSize = 0
    /// Where image 1,024 × k starts, counted from the first image's start.
    private var checkpoints: [Int] = []
    private static let checkpointEvery = 1024
    private static let headerSize = 20
    public private(set) var count = 0

    /// `path` (the store) is named in errors.
    public init(directory: String, path: String, memoryLimit: Int = 1 << 20) {
        self.directory = directory
        self.path = path
        self.memoryLimit = max(memoryLimit, 1)
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Whether the images went to a file (for tests).
    public var isInFile: Bool { fd >= 0 }

    public func append(_ image: CachedImageText) throws(ErrorRecord) {
        guard image.url.count < Int(UInt32.max), (image.description?.count ?? 0) < Int(UInt32.max) - 1,
              (image.location?.count ?? 0) < Int(UInt32.max) - 1 else {
            throw ErrorRecord(.store, "\(path): a cached image's text is too long to merge a page into (4 GiB)")
        }
        if count % Self.checkpointEvery == 0 { checkpoints.append(fileSize + pending.count) }
        SortedEntrySpool.appendLength(image.description.map { $0.count + 1 } ?? 0, to: &pending)
        SortedEntrySpool.appendLength(image.location.map { $0.count + 1 } ?? 0, to: &pending)
        SortedEntrySpool.appendLength(image.url.count, to: &pending)
        let time = UInt64(bitPattern: image.firstCached ?? .min)
        for shift in stride(from: 0, to: 64, by: 8) { pending.append(UInt8(truncatingIfNeeded: time >> UInt64(shift))) }
        pending.append(contentsOf: image.id)
        if let description = image.description { pending.append(contentsOf: description) }
        if let location = image.location { pending.append(contentsOf: location) }
        pending.append(contentsOf: image.url)
        count += 1
        if pending.count >= memoryLimit { try flush() }
    }

    public func index(of id: [UInt8], from start: Int) throws(ErrorRecord) -> Int? {
        guard id.count == 36, start < count else { return nil }
        var found: Int?
        try scan(from: start) { (i, image) in
            if memcmp(image.id.baseAddress!, id, 36) == 0 {
                found = i
                return false
            }
            return true
        }
        return found
    }

    public func forEach(in range: Range<Int>, _ body: (CachedImageText) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        guard !range.isEmpty, range.lowerBound < count else { return }
        try scan(from: range.lowerBound) { (i, image) throws(ErrorRecord) in
            guard i < range.upperBound else { return false }
            try body(image)
            return true
        }
    }

    /// Lends the images from `start` on to `body`, with their index, until
    /// it returns false or the images end.
    private func scan(from start: Int, _ body: (Int, CachedImageText) throws(ErrorRecord) -> Bool) throws(ErrorRecord) {
        if fd >= 0 && !pending.isEmpty { try flush() }
        var i = start / Self.checkpointEvery * Self.checkpointEvery
        var offset = checkpoints[start / Self.checkpointEvery]
        if fd < 0 {
            try pending.withUnsafeBufferPointer { (all) throws(ErrorRecord) in
                while i < count {
                    let size = Self.size(at: all.baseAddress! + offset)
                    if i >= start {
                        guard try body(i, Self.image(at: all.baseAddress! + offset)) else { return }
                    }
                    offset += size
                    i += 1
                }
            }
            return
        }
        var window: [UInt8] = []
        var windowStart = 0
        while i < count {
            // The image's lengths, then the whole image, in the window.
            if offset + Self.headerSize > windowStart + window.count {
                try fill(&window, &windowStart, from: offset, count: Self.headerSize)
            }
            let size = window.withUnsafeBufferPointer { Self.size(at: $0.baseAddress! + (offset - windowStart)) }
            if offset + size > windowStart + window.count {
                try fill(&window, &windowStart, from: offset, count: size)
            }
            if i >= start {
                let more = try window.withUnsafeBufferPointer { (all) throws(ErrorRecord) in
                    try body(i, Self.image(at: all.baseAddress! + (offset - windowStart)))
                }
                guard more else { return }
            }
            offset += size
            i += 1
        }
    }

    /// Reads the file from `offset` into `window`: 1 MiB, or `count` bytes
    /// when more, or what is left of the file.
    private func fill(_ window: inout [UInt8], _ windowStart: inout Int, from offset: Int, count: Int) throws(ErrorRecord) {
        let want = min(max(count, 1 << 20), fileSize - offset)
        guard want >= count else { throw ErrorRecord(.store, "\(path): a temporary file was cut short") }
        window = [UInt8](repeating: 0, count: want)
        if let code = window.withUnsafeMutableBytes({ POSIXFiles.readAll(fd, into: $0, at: offset) }) {
            throw POSIXFiles.failure("read", path, code)
        }
        windowStart = offset
    }

    private func flush() throws(ErrorRecord) {
        if fd < 0 { fd = try POSIXFiles.unlinkedTemporaryFile(in: directory, name: ".feed-cache-merge", path: path) }
        let at = fileSize
        if let code = pending.withUnsafeBytes({ POSIXFiles.writeAll(fd, $0, at: at) }) { throw POSIXFiles.failure("write", path, code) }
        fileSize += pending.count
        pending.removeAll(keepingCapacity: true)
    }

    private static func length(at p: UnsafePointer<UInt8>) -> Int {
        Int(p[0]) | Int(p[1]) << 8 | Int(p[2]) << 16 | Int(p[3]) << 24
    }

    /// The bytes of the image at `p`, its lengths included.
    private static func size(at p: UnsafePointer<UInt8>) -> Int {
        headerSize + 36 + max(length(at: p) - 1, 0) + max(length(at: p + 4) - 1, 0) + length(at: p + 8)
    }

    /// The image at `p`, lent from where it lies.
    private static func image(at p: UnsafePointer<UInt8>) -> CachedImageText {
        let description = length(at: p), location = length(at: p + 4), url = length(at: p + 8)
        let id = UnsafeBufferPointer(start: p + headerSize, count: 36)
        var q = p + headerSize + 36
        let descriptionText = description == 0 ? nil : UnsafeBufferPointer(start: q, count: description - 1)
        q += max(description - 1, 0)
        let locationText = location == 0 ? nil : UnsafeBufferPointer(start: q, count: location - 1)
        q += max(location - 1, 0)
        var time: UInt64 = 0
        for k in 0..<8 { time |= UInt64(p[12 + k]) << UInt64(8 * k) }
        let firstCached = Int64(bitPattern: time)
        return CachedImageText(id: id, description: descriptionText, location: locationText, url: UnsafeBufferPointer(start: q, count: url),
                               firstCached: firstCached == .min ? nil : firstCached)
    }
}
