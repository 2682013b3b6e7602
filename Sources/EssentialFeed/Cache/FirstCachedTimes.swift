/// When the cached feed's images were first cached, by id, for a save that
/// writes the feed anew (`LocalFeedLoader`): an image of an id the old feed
/// had keeps its time; any other is new. Eight bytes an id: 48 bits of a
/// per-process keyed hash of the id, and 16 of an index into the distinct
/// times (a cache holds a few: one per save that brought new images), in
/// one array sorted once and searched by halves, so no input makes a
/// lookup slower than log n. Two ids of one hash (about one chance in
/// 600 across a million ids) may share a time; nothing else depends on it.
public struct FirstCachedTimes {
    private var entries: [UInt64] = []
    private var times: [Int64] = []
    private var timeIndex: [Int64: UInt64] = [:]
    private var sorted = true

    public init() {}

    /// Room for `capacity` ids, made at once (growing would hold the array twice).
    public init(capacity: Int) {
        entries.reserveCapacity(capacity)
    }

    public var count: Int { entries.count }

    /// Keeps `time` for the canonical id `id` (36 bytes).
    public mutating func add(id: UnsafeBufferPointer<UInt8>, time: Int64) {
        var index = timeIndex[time]
        if index == nil {
            // Past 65,536 distinct times, the last one stands for the rest.
            if times.count < 1 << 16 {
                index = UInt64(times.count)
                times.append(time)
                timeIndex[time] = index
            } else {
                index = UInt64(times.count - 1)
            }
        }
        entries.append(Self.hash(id) << 16 | index!)
        sorted = false
    }

    /// The time kept for the canonical id `id`, if any.
    public mutating func time(of id: UnsafeBufferPointer<UInt8>) -> Int64? {
        if !sorted {
            entries.sort()
            sorted = true
        }
        let key = Self.hash(id)
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle] >> 16 < key { low = middle + 1 } else { high = middle }
        }
        guard low < entries.count, entries[low] >> 16 == key else { return nil }
        return times[Int(entries[low] & 0xFFFF)]
    }

    private static func hash(_ id: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(id))
        return UInt64(bitPattern: Int64(hasher.finalize())) >> 16
    }
}
