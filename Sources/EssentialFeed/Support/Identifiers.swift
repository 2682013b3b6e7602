#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading and writing the identifiers and URLs records carry.
public enum Identifiers {
    /// A UUID in the canonical 8-4-4-4-12 form, any letter case.
    ///
    /// Parsed here rather than by `UUID(uuidString:)`, which on Linux reads
    /// each byte like `strtoul` and so accepts text such as
    /// `-3A7F70C-…` or ` 73A7F70C-…` as some other UUID.
    public static func uuid(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { uuid(bytes: $0) }
    }

    /// A UUID from the UTF-8 bytes of its canonical 8-4-4-4-12 form, any letter case.
    @inline(__always)
    public static func uuid(bytes p: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard isUUID(bytes: p), let base = p.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        // The 32 digits as four words of eight: 0-7, 9-12 and 14-17, 19-22 and 24-27, 28-35.
        @inline(__always) func digits(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        @inline(__always) func digits(_ first: Int, _ second: Int) -> UInt64 {
            UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: first, as: UInt32.self)))
                | UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: second, as: UInt32.self))) << 32
        }
        let a = hexWord(digits(0)), b = hexWord(digits(9, 14)), c = hexWord(digits(19, 24)), d = hexWord(digits(28))
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { out in
            out.storeBytes(of: a.bigEndian, toByteOffset: 0, as: UInt32.self)
            out.storeBytes(of: b.bigEndian, toByteOffset: 4, as: UInt32.self)
            out.storeBytes(of: c.bigEndian, toByteOffset: 8, as: UInt32.self)
            out.storeBytes(of: d.bigEndian, toByteOffset: 12, as: UInt32.self)
        }
        return UUID(uuid: value)
    }

    /// The value of eight hex digits (checked: digits or letters of either
    /// case), the first in the lowest byte of `x`, the first digit highest.
    @inline(__always)
    private static func hexWord(_ x: UInt64) -> UInt32 {
        // A letter has bit 6 set: its low nibble plus 9 is its value.
        let letters = (x >> 6) & 0x0101_0101_0101_0101
        var v = (x & 0x0F0F_0F0F_0F0F_0F0F) &+ letters &* 9
        // Each byte a nibble, the first digit in the lowest byte: pair them up.
        v = ((v & 0x000F_000F_000F_000F) << 4) | ((v >> 8) & 0x000F_000F_000F_000F)
        v = ((v & 0x0000_00FF_0000_00FF) << 8) | ((v >> 16) & 0x0000_00FF_0000_00FF)
        v = ((v & 0x0000_0000_0000_FFFF) << 16) | ((v >> 32) & 0x0000_0000_0000_FFFF)
        return UInt32(truncatingIfNeeded: v)
    }

    /// Whether `text` is a UUID in the 8-4-4-4-12 form, any letter case: the
    /// one UUID check, for every mapper and store.
    @inline(__always)
    public static func isUUID(bytes text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard text.count == 36, let p = text.baseAddress else { return false }
        return isUUID36(p, letters: ones &* 0x20)
    }

    /// Whether `text` is a UUID in the canonical upper-case form stores
    /// write (then it can be copied as it is).
    @inline(__always)
    public static func isCanonicalUUID(bytes text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard text.count == 36, let p = text.baseAddress else { return false }
        return isUUID36(p, letters: 0)
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101

    /// Whether the 36 bytes at `p` are hex digits with dashes at 8, 13, 18
    /// and 23; letters in either case when `letters` is 0x20 in every byte,
    /// upper case only when it is 0. Eight bytes at a time: a byte is in
    /// `lo...hi` when adding `0x80 - lo` sets its high bit and adding
    /// `0x7F - hi` does not (no carries: every byte is ASCII).
    @inline(__always)
    private static func isUUID36(_ p: UnsafePointer<UInt8>, letters: UInt64) -> Bool {
        guard p[8] == UInt8(ascii: "-"), p[13] == UInt8(ascii: "-"), p[18] == UInt8(ascii: "-"), p[23] == UInt8(ascii: "-") else { return false }
        let raw = UnsafeRawPointer(p)
        let highs = ones &* 0x80
        @inline(__always) func hexBytes(_ offset: Int) -> UInt64 {
            let x = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let folded = x | letters
            let digit = (x &+ ones &* (0x80 - 0x30)) & ~(x &+ ones &* (0x7F - 0x39))
            let letter = (folded &+ ones &* (0x80 - 0x41)) & ~(folded &+ ones &* (0x7F - 0x46))
            let lower = (folded &+ ones &* (0x80 - 0x61)) & ~(folded &+ ones &* (0x7F - 0x66))
            return (digit | (letters == 0 ? letter : lower)) & highs
        }
        // Which bytes of the words at 8 and 16 must be hex (the others are the dashes checked above).
        let mask8: UInt64 = 0x8080_0080_8080_8000    // bytes 9-12, 14-15
        let mask16: UInt64 = 0x0080_8080_8000_8080   // bytes 16-17, 19-22
        let ascii = (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            | raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
            | raw.loadUnaligned(fromByteOffset: 28, as: UInt64.self)) & highs == 0
        return ascii && hexBytes(0) == highs && hexBytes(8) & mask8 == mask8 && hexBytes(16) & mask16 == mask16
            && hexBytes(24) == highs && hexBytes(28) == highs
    }

    /// Whether `text` is an absolute URL: an RFC 3986 scheme, a colon, then
    /// at least one character, with no spaces or control characters anywhere
    /// (C0, DEL, and C1 as UTF-8: U+0080 to U+009F).
    public static func isAbsoluteURL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isAbsoluteURL(bytes: $0) }
    }

    /// The same over UTF-8 bytes; past the scheme, eight bytes at a time.
    public static func isAbsoluteURL(bytes text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress, let first = text.first,
              (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z") else { return false }
        var index = 1
        while true {
            guard index < text.count else { return false }  // no colon
            let c = text[index]
            if c == UInt8(ascii: ":") { break }
            let lower = c | 0x20
            guard (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") else { return false }
            index += 1
        }
        index += 1
        guard index < text.count else { return false }  // nothing after the colon
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let rest = index
        var any: UInt64 = 0
        while index + 8 <= text.count {
            let x = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let delete = x ^ (ones &* 0x7F)
            // A byte below 0x21, or a zero byte of `delete` (a 0x7F).
            if ((x &- ones &* 0x21) & ~x & highs) | ((delete &- ones) & ~delete & highs) != 0 { return false }
            any |= x
            index += 8
        }
        while index < text.count {
            let c = text[index]
            if c <= 0x20 || c == 0x7F { return false }
            any |= UInt64(c)
            index += 1
        }
        // Past ASCII: no C1 control (0xC2 then 0x80-0x9F).
        if any & highs != 0 {
            for k in rest..<(text.count - 1) where text[k] == 0xC2 && text[k + 1] < 0xA0 { return false }
        }
        return true
    }

    /// Whether `text` is an absolute http or https URL with a host.
    public static func isHTTPURL(_ text: String) -> Bool {
        guard isAbsoluteURL(text) else { return false }
        // The scheme in any case, compared as bytes (a lower-cased copy of
        // every URL read was a string made for nothing).
        let bytes = text.utf8
        func starts(with prefix: String) -> Bool {
            bytes.count >= prefix.utf8.count && zip(bytes, prefix.utf8).allSatisfy { a, b in (b == UInt8(ascii: ":") || b == UInt8(ascii: "/") ? a : a | 0x20) == b }
        }
        guard starts(with: "http://") || starts(with: "https://") else { return false }
        return URLAuthority(URLAuthority.text(of: Substring(text))).isUsable
    }

    /// The canonical upper-case form of `id` (8-4-4-4-12), without the
    /// formatted printing Foundation uses for `uuidString`.
    public static func canonical(_ id: UUID) -> String {
        String(unsafeUninitializedCapacity: 36) { out in
            UUID.writeCanonical(id.uuid, to: out.baseAddress!)
            return 36
        }
    }
}

extension UUID {
    /// The canonical upper-case form, as `uuidString` gives it, but faster.
    public var canonicalString: String { Identifiers.canonical(self) }
}
