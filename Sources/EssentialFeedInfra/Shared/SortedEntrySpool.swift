import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Entries (a key and a value, both bytes) put in any order and read back
/// in increasing byte order of key, each key once, the last put winning: an
/// external merge sort in bounded memory. Entries are held in memory up to
/// `memoryLimit` bytes; then they are sorted and written as a run to an
/// unlinked temporary file beside the store, and reading them back merges
/// the runs, holding one buffer of each.
///
/// A JSON-file store's image data goes through it (a million images held
/// 264 MiB as a dictionary of URLs; the spool holds its limit and 64 KiB
/// per run), and so do the URLs of a new feed that image data is matched to.
final class SortedEntrySpool {
    /// Where an entry held in memory lies in `arena`: its key, then its value.
    fileprivate struct Held {
        var start: Int
        var keyCount: Int
        var valueCount: Int
    }

    /// A sorted run in the file: its entries, each key once, from `start` to `end`.
    fileprivate struct Run {
        var start: Int
        var end: Int
    }

    private var arena: [UInt8] = []
    private var held: [Held] = []
    private var runs: [Run] = []
    private var fd: Int32 = -1
    private var fileSize = 0
    private let directory: String
    private let path: String
    private let memoryLimit: Int
    /// How many runs have been written (for tests).
    var runCount: Int { runs.count }
    /// The memory the entries held take, counted against `memoryLimit`.
    var heldBytes: Int { arena.count + 32 * held.count }

    init(directory: String, path: String, memoryLimit: Int = 4 << 20) {
        self.directory = directory
        self.path = path
        self.memoryLimit = max(memoryLimit, 1)
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    var isEmpty: Bool { held.isEmpty && runs.isEmpty }

    /// Forgets every entry and closes the file.
    func discard() {
        if fd >= 0 { close(fd) }
        fd = -1
        fileSize = 0
        arena = []
        held = []
        runs = []
    }

    func put(_ key: [UInt8], _ value: [UInt8]) throws(ErrorRecord) {
        // A run stores each length in 4 bytes.
        guard key.count <= UInt32.max, value.count <= UInt32.max else {
            throw ErrorRecord(.store, "\(path): image data of 4 GiB or more cannot be stored")
        }
        if key.count + value.count + 32 >= memoryLimit / 2 {
            // A big entry is not copied: the entries held go out as a run,
            // then it alone, as one more (the later one, so it still wins).
            if !held.isEmpty { try writeRun() }
            try writeRun(of: key, value)
            return
        }
        held.append(Held(start: arena.count, keyCount: key.count, valueCount: value.count))
        arena.append(contentsOf: key)
        arena.append(contentsOf: value)
        if heldBytes >= memoryLimit { try writeRun() }
    }

    /// Writes one entry as a run of its own.
    private func writeRun(of key: [UInt8], _ value: [UInt8]) throws(ErrorRecord) {
        if fd < 0 { fd = try POSIXFiles.unlinkedTemporaryFile(in: directory, name: ".feed-cache-sort", path: path) }
        let start = fileSize
        var head: [UInt8] = []
        Self.appendLength(key.count, to: &head)
        Self.appendLength(value.count, to: &head)
        head.append(contentsOf: key)
        try flush(&head)
        try writeOut(value)
        runs.append(Run(start: start, end: fileSize))
    }

    /// The value last put for `key`, or nil (a scan: for the odd lookup).
    func value(for key: [UInt8]) throws(ErrorRecord) -> [UInt8]? {
        for entry in held.reversed() where arena[entry.start..<entry.start + entry.keyCount].elementsEqual(key) {
            return Array(arena[entry.start + entry.keyCount..<entry.start + entry.keyCount + entry.valueCount])
        }
        for run in runs.reversed() {
            var reader = RunReader(fd: fd, run: run, path: path)
            while let (k, v) = try reader.next() {
                if k == key { return try resolve(v) }
                if Self.less(key, k) { break }
            }
        }
        return nil
    }

    /// Every key, each once, in increasing order.
    func forEachKey(_ body: ([UInt8]) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        var merge = try sorted()
        while let (key, _) = try merge.next() { try body(key) }
    }

    /// The entries in increasing order of key, each key once with the value
    /// last put for it (the merge keeps the spool, and its file, alive). Put
    /// nothing more, and discard nothing, while reading them.
    func sorted() throws(ErrorRecord) -> Merge {
        var sources: [Source] = runs.map { .file(RunReader(fd: fd, run: $0, path: path)) }
        if !held.isEmpty { sources.append(.held(sortedHeld()[...])) }
        return try Merge(sources, of: self)
    }

    /// The entries held, sorted by key, each key once (the last put).
    private func sortedHeld() -> [Held] {
        let order = arena.withUnsafeBufferPointer { bytes in
            held.indices.sorted { a, b in
                let x = held[a], y = held[b]
                let c = Self.compare(UnsafeBufferPointer(rebasing: bytes[x.start..<x.start + x.keyCount]),
                                     UnsafeBufferPointer(rebasing: bytes[y.start..<y.start + y.keyCount]))
                return c != 0 ? c < 0 : a < b
            }
        }
        var unique: [Held] = []
        unique.reserveCapacity(order.count)
        for (n, i) in order.enumerated() {
            // Of equal keys the last put comes last: keep only it.
            if n + 1 < order.count {
                let x = held[i], y = held[order[n + 1]]
                if arena[x.start..<x.start + x.keyCount].elementsEqual(arena[y.start..<y.start + y.keyCount]) { continue }
            }
            unique.append(held[i])
        }
        return unique
    }

    /// Writes the entries held as a sorted run, and forgets them.
    private func writeRun() throws(ErrorRecord) {
        if fd < 0 { fd = try POSIXFiles.unlinkedTemporaryFile(in: directory, name: ".feed-cache-sort", path: path) }
        let start = fileSize
        var out: [UInt8] = []
        out.reserveCapacity(min(arena.count + 8 * held.count, 1 << 20))
        for entry in sortedHeld() {
            Self.appendLength(entry.keyCount, to: &out)
            Self.appendLength(entry.valueCount, to: &out)
            out.append(contentsOf: arena[entry.start..<entry.start + entry.keyCount + entry.valueCount])
            if out.count >= 1 << 20 { try flush(&out) }
        }
        try flush(&out)
        runs.append(Run(start: start, end: fileSize))
        arena.removeAll(keepingCapacity: true)
        held.removeAll(keepingCapacity: true)
    }

    private func flush(_ out: inout [UInt8]) throws(ErrorRecord) {
        try writeOut(out)
        out.removeAll(keepingCapacity: true)
    }

    /// Appends `bytes` to the file.
    private func writeOut(_ bytes: [UInt8]) throws(ErrorRecord) {
        if let code = bytes.withUnsafeBytes({ POSIXFiles.writeAll(fd, $0, at: fileSize) }) { throw POSIXFiles.failure("write", path, code) }
        fileSize += bytes.count
    }

    /// Appends `n` as 4 bytes, least significant first (the spools' lengths).
    static func appendLength(_ n: Int, to out: inout [UInt8]) {
        let v = UInt32(n)
        out.append(UInt8(truncatingIfNeeded: v))
        out.append(UInt8(truncatingIfNeeded: v >> 8))
        out.append(UInt8(truncatingIfNeeded: v >> 16))
        out.append(UInt8(truncatingIfNeeded: v >> 24))
    }

    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let n = min(a.count, b.count)
        if n > 0 {
            let c = memcmp(a.baseAddress!, b.baseAddress!, n)
            if c != 0 { return Int(c) }
        }
        return a.count - b.count
    }

    static func less(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in compare(a, b) < 0 } }
    }

    // MARK: Reading back

    /// A run read from the file in 64 KiB pieces.
    fileprivate struct RunReader {
        let fd: Int32
        let path: String
        var offset: Int
        let end: Int
        var buffer: [UInt8] = []
        var position = 0

        init(fd: Int32, run: Run, path: String) {
            self.fd = fd
            self.path = path
            offset = run.start
            end = run.end
        }

        /// Makes `count` bytes from `position` available; false at the run's end.
        private mutating func ensure(_ count: Int) throws(ErrorRecord) -> Bool {
            if buffer.count - position >= count { return true }
            buffer.removeSubrange(0..<position)
            position = 0
            let want = min(max(count - buffer.count, 64 << 10), end - offset)
            guard want >= count - buffer.count, want > 0 else { return false }
            let old = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: want))
            let at = offset
            if let code = buffer.withUnsafeMutableBytes({ POSIXFiles.readAll(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[old...]), at: at) }) {
                throw POSIXFiles.failure("read", path, code)
            }
            offset += want
            return true
        }

        private func length(at i: Int) -> Int {
            Int(buffer[i]) | Int(buffer[i + 1]) << 8 | Int(buffer[i + 2]) << 16 | Int(buffer[i + 3]) << 24
        }

        /// The next entry; a value past a read's 64 KiB is left in the
        /// file, where it lies, to be read if it is used.
        mutating func next() throws(ErrorRecord) -> (key: [UInt8], value: Value)? {
            guard try ensure(8) else { return nil }
            let keyCount = length(at: position), valueCount = length(at: position + 4)
            let big = valueCount > 64 << 10
            guard try ensure(8 + keyCount + (big ? 0 : valueCount)) else {
                throw ErrorRecord(.store, "\(path): a temporary sort file was cut short")
            }
            let key = Array(buffer[position + 8..<position + 8 + keyCount])
            position += 8 + keyCount
            guard big else {
                let value = Array(buffer[position..<position + valueCount])
                position += valueCount
                return (key, .bytes(value))
            }
            // Where the value starts in the file, then past it.
            let start = offset - (buffer.count - position)
            guard start + valueCount <= end else { throw ErrorRecord(.store, "\(path): a temporary sort file was cut short") }
            let buffered = buffer.count - position
            if valueCount <= buffered {
                position += valueCount
            } else {
                buffer.removeAll(keepingCapacity: true)
                position = 0
                offset += valueCount - buffered
            }
            return (key, .file(offset: start, count: valueCount))
        }
    }

    /// A value read from a run: in memory, or where it lies in the file.
    fileprivate enum Value {
        case bytes([UInt8])
        case file(offset: Int, count: Int)
    }

    /// The bytes of `value`.
    fileprivate func resolve(_ value: Value) throws(ErrorRecord) -> [UInt8] {
        switch value {
        case .bytes(let bytes): return bytes
        case let .file(offset, count):
            var data = [UInt8](repeating: 0, count: count)
            if let code = data.withUnsafeMutableBytes({ POSIXFiles.readAll(fd, into: $0, at: offset) }) { throw POSIXFiles.failure("read", path, code) }
            return data
        }
    }

    /// The entry held at `entry`: its key and value.
    private func entry(_ entry: Held) -> (key: [UInt8], value: [UInt8]) {
        let valueStart = entry.start + entry.keyCount
        return (Array(arena[entry.start..<valueStart]), Array(arena[valueStart..<valueStart + entry.valueCount]))
    }

    fileprivate enum Source {
        case file(RunReader)
        /// The entries held, sorted, read from the spool's arena.
        case held(ArraySlice<Held>)

        mutating func next(_ spool: SortedEntrySpool) throws(ErrorRecord) -> (key: [UInt8], value: Value)? {
            switch self {
            case .file(var reader):
                let entry = try reader.next()
                self = .file(reader)
                return entry
            case .held(var entries):
                guard let first = entries.popFirst() else { return nil }
                self = .held(entries)
                let (key, value) = spool.entry(first)
                return (key, .bytes(value))
            }
        }
    }

    /// The runs merged: a heap of their next entries, by key and then by
    /// recency (a later run first), so that of equal keys the last put comes
    /// out first and the others are passed over.
    struct Merge {
        /// The spool whose file the runs are read from, kept open while they are.
        private let spool: SortedEntrySpool
        private var sources: [Source]
        private var heap: [(key: [UInt8], value: Value, source: Int)] = []
        private var last: [UInt8]?

        fileprivate init(_ sources: [Source], of spool: SortedEntrySpool) throws(ErrorRecord) {
            self.spool = spool
            self.sources = sources
            for i in sources.indices {
                if let (key, value) = try self.sources[i].next(spool) { push((key, value, i)) }
            }
        }

        private static func before(_ a: (key: [UInt8], value: Value, source: Int), _ b: (key: [UInt8], value: Value, source: Int)) -> Bool {
            let c = a.key.withUnsafeBufferPointer { x in b.key.withUnsafeBufferPointer { y in SortedEntrySpool.compare(x, y) } }
            return c != 0 ? c < 0 : a.source > b.source
        }

        private mutating func push(_ entry: (key: [UInt8], value: Value, source: Int)) {
            heap.append(entry)
            var i = heap.count - 1
            while i > 0 {
                let parent = (i - 1) / 2
                guard Self.before(heap[i], heap[parent]) else { break }
                heap.swapAt(i, parent)
                i = parent
            }
        }

        private mutating func pop() -> (key: [UInt8], value: Value, source: Int)? {
            guard !heap.isEmpty else { return nil }
            heap.swapAt(0, heap.count - 1)
            let top = heap.removeLast()
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count, Self.before(heap[l], heap[m]) { m = l }
                if r < heap.count, Self.before(heap[r], heap[m]) { m = r }
                if m == i { break }
                heap.swapAt(i, m)
                i = m
            }
            return top
        }

        mutating func next() throws(ErrorRecord) -> (key: [UInt8], value: [UInt8])? {
            while let top = pop() {
                if let (key, value) = try sources[top.source].next(spool) { push((key, value, top.source)) }
                if let last, last == top.key { continue }
                last = top.key
                return (top.key, try spool.resolve(top.value))
            }
            return nil
        }
    }
}
