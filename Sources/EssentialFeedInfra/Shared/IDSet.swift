import CSQLite
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

/// A set of ids, 16 bytes each in one table (open addressing, linear
/// probing, at most 3/4 full): leaner and faster than `Set<UUID>`.
struct IDSet {
    private var slots: [(UInt64, UInt64)] = []
    private(set) var count = 0
    /// Whether the all-zero id is in the set (the table's empty mark).
    private var hasZero = false

    init(minimumCapacity: Int = 0) {
        var capacity = minimumCapacity > 0 ? 16 : 0
        while capacity * 3 / 4 < minimumCapacity { capacity *= 2 }
        slots = Array(repeating: (0, 0), count: capacity)
    }

    /// Inserts `id`; false when it was there already.
    mutating func insert(_ id: UUID) -> Bool {
        let (a, b) = withUnsafeBytes(of: id.uuid) { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
        if a == 0 && b == 0 {
            defer { hasZero = true }
            if hasZero { return false }
            count += 1
            return true
        }
        if (count + 1) * 4 > slots.count * 3 { grow() }
        return slots.withUnsafeMutableBufferPointer { table in
            let mask = table.count - 1
            var index = Self.slot(a, b, mask)
            while true {
                let slot = table[index]
                if slot.0 == 0 && slot.1 == 0 {
                    table[index] = (a, b)
                    count += 1
                    return true
                }
                if slot.0 == a && slot.1 == b { return false }
                index = (index + 1) & mask
            }
        }
    }

    @inline(__always)
    private static func slot(_ a: UInt64, _ b: UInt64, _ mask: Int) -> Int {
        let mixed = (a ^ (b &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> 32) & mask
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: (0, 0), count: max(old.count * 2, 16))
        let mask = slots.count - 1
        slots.withUnsafeMutableBufferPointer { table in
            for (a, b) in old where a != 0 || b != 0 {
                var index = Self.slot(a, b, mask)
                while table[index].0 != 0 || table[index].1 != 0 { index = (index + 1) & mask }
                table[index] = (a, b)
            }
        }
    }
}
