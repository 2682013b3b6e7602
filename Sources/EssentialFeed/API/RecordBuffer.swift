/// A growable byte buffer written through a pointer: the records a mapper
/// builds for its sink, each followed by a newline, without the per-append
/// checks of an array.
final class RecordBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    var count = 0

    init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Makes room for `extra` more bytes; returns where they go.
    @inline(__always)
    func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if count + extra > capacity { grow(count + extra) }
        return base + count
    }

    @inline(never)
    private func grow(_ needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = newCapacity
    }

    @inline(__always)
    func append(_ p: UnsafePointer<UInt8>, count n: Int) {
        let to = reserve(n)
        to.update(from: p, count: n)
        count += n
    }

    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { p in
            if let start = p.baseAddress { append(start, count: p.count) }
        }
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        reserve(1).pointee = byte
        count += 1
    }

    func removeAll() {
        count = 0
    }
}
