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
