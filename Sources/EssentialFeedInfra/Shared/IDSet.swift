import EssentialFeed
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

/// The ids a save has written, to find a repeated one: 8 bytes an id in
/// memory and a constant cost per insert whatever the count (two million
/// ids: 16 MiB), so that saving a feed grows linearly.
///
/// Each id is turned into a key by a bijection (three Feistel rounds over
/// its two halves, keyed with a secret drawn per process: distinct ids stay
/// distinct, ids that share a prefix, as generated ones do, spread evenly,
/// and ids chosen to share a fingerprint cannot be computed). The keys themselves go to an
/// `IDLog`, in order; the set holds for each one an entry of 8 bytes, the
/// key's top 32 bits (its fingerprint) and its place in the log. An id is
/// repeated when an entry has its fingerprint and the log the same key at
/// that place: the log is read only for a repeated id (or, about once in
/// four billion comparisons, a fingerprint shared by two ids).
///
/// The entries live in one table: a sorted run, found through a directory
/// of its buckets (the fingerprints' top bits: a bucket holds about eight
/// entries), then the entries added since the last merge, found through a
/// small hash table of them (one memory access for most inserts). When those are a sixteenth of the run
/// (at least 32,768), they are sorted and merged into it: each entry moves
/// about 17 times in all, so an insert costs the same at any count. The
/// table lies in address space reserved once, committed as it grows, so it
/// never moves and is never copied; where that cannot be reserved, it is
/// allocated with `realloc`.
///
/// Most ids a save meets are new, and finding that the sorted run lacks one
/// took two dependent cache misses (its directory, then its bucket), a
/// sixth of a save's reading thread. A filter of the run's fingerprints (a
/// blocked Bloom filter: one 64-byte block a fingerprint, four bits in it,
/// at most 2 MiB) answers most of them with one miss, taken alongside the
/// recent entries' own: the run is searched only when the filter holds the
/// fingerprint (a repeat, or a false positive: well under 1% at a million
/// ids, about 3% at two million).
/// It is filled at each merge and made anew, larger, when the run outgrows
/// it, from the run's entries.
public struct IDSet: ~Copyable {
    typealias Key = IDLog.Key
    private var table: UnsafeMutablePointer<UInt64>?
    /// Entries in the table: the sorted run, then the recent ones.
    public private(set) var count = 0
    private var sortedCount = 0
    /// Bytes of the table usable: committed pages of the reservation, or the allocation.
    private var usableBytes = 0
    /// Bytes reserved; 0 when the table is allocated with `realloc`.
    private var reservedBytes = 0
    /// For the sorted run: where each bucket starts (one more entry: the end).
    private var directory: [UInt32] = [0, 0]
    private var directoryShift: UInt64 = 63
    /// For the recent entries: the fingerprint and the place in the log plus one (0: empty).
    private var recent: [UInt64]
    /// The filter of the sorted run's fingerprints: `filterBlocks` blocks of eight words.
    private var filter: UnsafeMutablePointer<UInt64>?
    private var filterBlocks = 0
    /// The run's size the filter was made for; past it, it is made anew.
    private var filterCapacity = 0
    private let log: IDLog
    private let minimumMerge: Int
    private let path: String
    private static let reservation = 1 << 36
    private static let commitStep = 1 << 20

    /// `directory`: where the log's temporary file goes; `path`: the store,
    /// named in errors; `minimumMerge`: the fewest recent entries merged
    /// (tests make it small).
    public init(directory: String, path: String, minimumMerge: Int = 1 << 15) {
        self.minimumMerge = minimumMerge
        self.path = path
        log = IDLog(directory: directory, path: path)
        recent = Array(repeating: 0, count: Self.recentCapacity(for: minimumMerge))
    }

    deinit {
        if reservedBytes > 0 { munmap(table, reservedBytes) } else { free(table) }
        free(filter)
    }

    /// Inserts `id`; false when it was there already. Fails only when the
    /// log cannot write or read its file.
    public mutating func insert(_ id: UUID) throws(ErrorRecord) -> Bool {
        let key = Self.key(id)
        let fingerprint = key.0 >> 32
        let mask = recent.count - 1
        var slot = Int(truncatingIfNeeded: key.1) & mask
        // Loaded first, so that its cache miss overlaps the sorted run's.
        var entry = recent[slot]
        if mayHoldSorted(fingerprint), try containsSorted(key, fingerprint) { return false }
        guard count < Int(UInt32.max) else { throw ErrorRecord(.store, "\(path): more than \(UInt32.max) ids in one feed") }
        while true {
            if entry == 0 { break }
            probes &+= 1
            if entry >> 32 == fingerprint, try log.key(at: Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1) == key { return false }
            slot = (slot + 1) & mask
            entry = recent[slot]
        }
        try log.append(key)
        recent[slot] = fingerprint << 32 | UInt64(count + 1)
        reserve(count + 1)
        table![count] = fingerprint << 32 | UInt64(count)
        count += 1
        if count - sortedCount >= mergeSize { merge() }
        return true
    }

    /// Recent entries are merged once there are this many.
    private var mergeSize: Int { max(minimumMerge, sortedCount / 16) }

    /// A hash table's size for `entries` recent entries: a power of two, at most half full.
    private static func recentCapacity(for entries: Int) -> Int {
        var capacity = 16
        while capacity < entries * 2 { capacity *= 2 }
        return capacity
    }

    /// The id's key: three Feistel rounds keyed with `secret`, a bijection.
    @inline(__always)
    static func key(_ id: UUID) -> Key { key(id, secret: secret) }

    @inline(__always)
    static func key(_ id: UUID, secret: (UInt64, UInt64, UInt64)) -> Key {
        var (a, b) = withUnsafeBytes(of: id.uuid) { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
        a ^= mix(b ^ secret.0)
        b ^= mix(a ^ secret.1)
        a ^= mix(b ^ secret.2)
        return (a, b)
    }

    /// The secret that keys the scramble: drawn once per process from the
    /// kernel (the standard library's system generator: `getrandom`), so
    /// that ids cannot be chosen, by a server that wants to stall the cron
    /// job, to share one fingerprint and one slot (with the scramble fixed,
    /// 10,000 such ids took 10.9 s to save, each compared with every
    /// earlier one).
    static let secret: (UInt64, UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next(), generator.next())
    }()

    /// The former fixed scramble's round keys (for tests: ids crafted
    /// against it must not collide now).
    static let formerSecret: (UInt64, UInt64, UInt64) = (0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344, 0xA409_3822_299F_31D0)

    /// The id whose key under `secret` is `key` (the rounds undone).
    static func id(ofKey key: Key, secret: (UInt64, UInt64, UInt64)) -> UUID {
        var (a, b) = key
        a ^= mix(b ^ secret.2)
        b ^= mix(a ^ secret.1)
        a ^= mix(b ^ secret.0)
        var bytes = uuid_t(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { $0.storeBytes(of: a, as: UInt64.self); $0.storeBytes(of: b, toByteOffset: 8, as: UInt64.self) }
        return UUID(uuid: bytes)
    }

    /// splitmix64's finalizer.
    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The filter's block for `fingerprint` and the four bits in it (a
    /// word's index and a bit, each nine bits of a product of the fingerprint).
    @inline(__always)
    private static func filterBits(_ fingerprint: UInt64, blocks: Int) -> (block: Int, bits: (UInt64, UInt64, UInt64, UInt64)) {
        let h = fingerprint &* 0x9E37_79B9_7F4A_7C15
        let block = Int(truncatingIfNeeded: ((h >> 32) &* UInt64(blocks)) >> 32)
        return (block, (h & 511, (h >> 9) & 511, (h >> 18) & 511, (h >> 27) & 511))
    }

    /// False when the sorted run surely lacks `fingerprint`.
    @inline(__always)
    private func mayHoldSorted(_ fingerprint: UInt64) -> Bool {
        guard let filter else { return sortedCount > 0 }
        let (block, bits) = Self.filterBits(fingerprint, blocks: filterBlocks)
        let words = filter + block * 8
        @inline(__always) func has(_ bit: UInt64) -> Bool { words[Int(bit >> 6)] & (1 &<< (bit & 63)) != 0 }
        return has(bits.0) && has(bits.1) && has(bits.2) && has(bits.3)
    }

    private static func addToFilter(_ entries: UnsafeBufferPointer<UInt64>, _ filter: UnsafeMutablePointer<UInt64>, blocks: Int) {
        for entry in entries {
            let (block, bits) = filterBits(entry >> 32, blocks: blocks)
            let words = filter + block * 8
            words[Int(bits.0 >> 6)] |= 1 &<< (bits.0 & 63)
            words[Int(bits.1 >> 6)] |= 1 &<< (bits.1 & 63)
            words[Int(bits.2 >> 6)] |= 1 &<< (bits.2 & 63)
            words[Int(bits.3 >> 6)] |= 1 &<< (bits.3 & 63)
        }
    }

    /// The most bytes the filter takes, and the fewest entries it is made for.
    static let filterBytesLimit = 2 << 20
    private static let filterMinimumCapacity = 1 << 12

    /// Puts the entries just merged (`added`) into the filter, or makes it
    /// anew for a run that outgrew it: for twice the run, eight bits an
    /// entry, up to `filterBytesLimit`.
    /// A filter already at `filterBytesLimit` is kept as it is (made anew,
    /// it would be the same size).
    private mutating func fill(filterWith added: UnsafeBufferPointer<UInt64>) {
        var capacity = Self.filterMinimumCapacity
        while capacity < sortedCount { capacity *= 2 }
        capacity *= 2
        let blocks = max(1, min(capacity / 64, Self.filterBytesLimit / 64))
        if let filter, sortedCount <= filterCapacity || blocks == filterBlocks {
            Self.addToFilter(added, filter, blocks: filterBlocks)
            if sortedCount > filterCapacity { filterCapacity = capacity }
            return
        }
        free(filter)
        filter = nil
        guard let memory = calloc(blocks * 8, MemoryLayout<UInt64>.stride) else { return }
        let made = memory.bindMemory(to: UInt64.self, capacity: blocks * 8)
        Self.addToFilter(UnsafeBufferPointer(start: table, count: sortedCount), made, blocks: blocks)
        filter = made
        filterBlocks = blocks
        filterCapacity = capacity
    }

    /// How many times the sorted run was searched (for tests).
    private(set) var sortedSearches = 0
    /// Entries of the recent ones and of the run compared with an id's,
    /// in all (for tests: about one an insert, whatever ids are chosen).
    private(set) var probes = 0

    /// Whether the sorted run holds `key`: the entries of its fingerprint, each confirmed by the log.
    private mutating func containsSorted(_ key: Key, _ fingerprint: UInt64) throws(ErrorRecord) -> Bool {
        guard let table, sortedCount > 0 else { return false }
        sortedSearches &+= 1
        let first = fingerprint << 32
        let bucket = Int(truncatingIfNeeded: first >> directoryShift)
        var low = Int(directory[bucket]), high = Int(directory[bucket + 1])
        while low < high {
            let middle = (low + high) / 2
            if table[middle] < first { low = middle + 1 } else { high = middle }
        }
        while low < sortedCount, table[low] >> 32 == fingerprint {
            probes &+= 1
            if try log.key(at: Int(truncatingIfNeeded: table[low] & 0xFFFF_FFFF)) == key { return true }
            low += 1
        }
        return false
    }

    /// Makes room for `entries` entries.
    private mutating func reserve(_ entries: Int) {
        let bytes = entries * MemoryLayout<UInt64>.stride
        guard bytes > usableBytes else { return }
        if table == nil {
            let base = mmap(nil, Self.reservation, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
            if let base, base != MAP_FAILED {
                table = base.bindMemory(to: UInt64.self, capacity: Self.reservation / MemoryLayout<UInt64>.stride)
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
        // More than reserved, or no reservation: an allocation, grown by half.
        let grownBytes = max(bytes, usableBytes + usableBytes / 2)
        if reservedBytes > 0 {
            guard let moved = malloc(grownBytes) else { fatalError("out of memory") }
            if count > 0 { moved.copyMemory(from: UnsafeRawPointer(table!), byteCount: count * MemoryLayout<UInt64>.stride) }
            munmap(table, reservedBytes)
            reservedBytes = 0
            table = moved.bindMemory(to: UInt64.self, capacity: grownBytes / MemoryLayout<UInt64>.stride)
        } else {
            guard let grown = realloc(table, grownBytes) else { fatalError("out of memory") }
            table = grown.bindMemory(to: UInt64.self, capacity: grownBytes / MemoryLayout<UInt64>.stride)
        }
        usableBytes = grownBytes
    }

    /// Sorts the recent entries and merges them into the run, from its end.
    /// The sorted entries wait meanwhile in the recent entries' hash table,
    /// which holds at least twice as many slots and is cleared afterwards
    /// anyway: no buffer of their own (a megabyte at two million ids, where
    /// memory peaks).
    private mutating func merge() {
        guard let table else { return }
        let added = UnsafeMutableBufferPointer(start: table + sortedCount, count: count - sortedCount)
        // Taken out of `self` while the merge changes it (not copied: the one reference).
        var scratch = recent
        recent = []
        if scratch.count < added.count { scratch = Array(repeating: 0, count: added.count) }
        func merge(into scratch: UnsafeMutableBufferPointer<UInt64>) {
            let waiting = UnsafeMutableBufferPointer(rebasing: scratch[0..<added.count])
            Self.sortByFingerprint(added, into: waiting)
            var i = sortedCount - 1, j = waiting.count - 1, w = count - 1
            while j >= 0 {
                if i >= 0 && table[i] > waiting[j] {
                    table[w] = table[i]
                    i -= 1
                } else {
                    table[w] = waiting[j]
                    j -= 1
                }
                w -= 1
            }
            sortedCount = count
            fill(filterWith: UnsafeBufferPointer(waiting))
        }
        scratch.withUnsafeMutableBufferPointer { merge(into: $0) }
        buildDirectory()
        let capacity = Self.recentCapacity(for: mergeSize)
        if capacity == scratch.count {
            scratch.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            recent = scratch
        } else {
            scratch = []
            recent = Array(repeating: 0, count: capacity)
        }
    }

    /// Sorts `entries`, whose places (the low 32 bits) rise in their
    /// order, as recent entries are appended, into `sorted`: a stable
    /// sort by fingerprint (the top 32 bits) is then a whole sort. Three
    /// passes of a radix sort (11, 11 and 10 bits, counted in one pass),
    /// from `entries` to `sorted` and back, `entries` left in between: at
    /// a merge of 62,500 entries, about a third of the time of the
    /// standard library's comparison sort, which was a sixth of a save's
    /// reading thread.
    static func sortByFingerprint(_ entries: UnsafeMutableBufferPointer<UInt64>, into sorted: UnsafeMutableBufferPointer<UInt64>) {
        precondition(sorted.count >= entries.count)
        let n = entries.count
        guard n > 0 else { return }
        let shifts: [UInt64] = [32, 43, 54]
        let radix = 1 << 11
        var counts = [Int](repeating: 0, count: 3 * radix)
        counts.withUnsafeMutableBufferPointer { counts in
            for entry in entries {
                counts[Int(truncatingIfNeeded: (entry >> 32) & 0x7FF)] += 1
                counts[radix + Int(truncatingIfNeeded: (entry >> 43) & 0x7FF)] += 1
                counts[2 * radix + Int(truncatingIfNeeded: entry >> 54)] += 1
            }
            for pass in 0..<3 {
                // Each digit's first place, then its entries in their order.
                var total = 0
                for digit in 0..<radix {
                    let c = counts[pass * radix + digit]
                    counts[pass * radix + digit] = total
                    total += c
                }
                let (from, to) = pass == 1 ? (sorted.baseAddress!, entries.baseAddress!) : (entries.baseAddress!, sorted.baseAddress!)
                let shift = shifts[pass]
                for i in 0..<n {
                    let entry = from[i]
                    let slot = pass * radix + Int(truncatingIfNeeded: (entry >> shift) & 0x7FF)
                    to[counts[slot]] = entry
                    counts[slot] += 1
                }
            }
        }
    }

    /// About eight entries a bucket.
    private mutating func buildDirectory() {
        var bits = 1
        while (1 << bits) * 8 < sortedCount, bits < 30 { bits += 1 }
        directoryShift = UInt64(64 - bits)
        let buckets = 1 << bits
        if directory.count != buckets + 1 { directory = Array(repeating: 0, count: buckets + 1) }
        let table = self.table!
        let shift = directoryShift
        let sortedCount = self.sortedCount
        directory.withUnsafeMutableBufferPointer { starts in
            var position = 0
            for bucket in 0...buckets {
                while position < sortedCount, Int(truncatingIfNeeded: table[position] >> shift) < bucket { position += 1 }
                starts[bucket] = UInt32(position)
            }
        }
    }
}
