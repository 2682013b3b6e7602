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
    public static func uuid(bytes p: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard p.count == 36, p[8] == UInt8(ascii: "-"), p[13] == UInt8(ascii: "-"),
              p[18] == UInt8(ascii: "-"), p[23] == UInt8(ascii: "-") else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let valid = withUnsafeMutableBytes(of: &value) { out -> Bool in
            var i = 0
            for byte in 0..<16 {
                if i == 8 || i == 13 || i == 18 || i == 23 { i += 1 }
                let high = JSONEscapes.hexValue(p[i])
                let low = JSONEscapes.hexValue(p[i + 1])
                guard high >= 0, low >= 0 else { return false }
                out[byte] = UInt8(high << 4 | low)
                i += 2
            }
            return true
        }
        return valid ? UUID(uuid: value) : nil
    }

    /// Whether `text` is an absolute URL: an RFC 3986 scheme, a colon, then
    /// at least one character, with no spaces or control characters anywhere.
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
        while index + 8 <= text.count {
            let x = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let delete = x ^ (ones &* 0x7F)
            // A byte below 0x21, or a zero byte of `delete` (a 0x7F).
            if ((x &- ones &* 0x21) & ~x & highs) | ((delete &- ones) & ~delete & highs) != 0 { return false }
            index += 8
        }
        while index < text.count {
            let c = text[index]
            if c <= 0x20 || c == 0x7F { return false }
            index += 1
        }
        return true
    }

    /// Whether `text` is an absolute http or https URL with a host.
    public static func isHTTPURL(_ text: String) -> Bool {
        guard isAbsoluteURL(text) else { return false }
        let lower = text.lowercased()
        for scheme in ["http://", "https://"] where lower.hasPrefix(scheme) {
            let rest = lower.dropFirst(scheme.count)
            guard let first = rest.first else { return false }
            return first != "/" && first != "?" && first != "#"
        }
        return false
    }

    /// The canonical upper-case form of `id` (8-4-4-4-12), without the
    /// formatted printing Foundation uses for `uuidString`.
    public static func canonical(_ id: UUID) -> String {
        let hex: StaticString = "0123456789ABCDEF"
        return withUnsafeBytes(of: id.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                var o = 0
                hex.withUTF8Buffer { digits in
                    for (i, byte) in bytes.enumerated() {
                        if i == 4 || i == 6 || i == 8 || i == 10 {
                            out[o] = UInt8(ascii: "-")
                            o += 1
                        }
                        out[o] = digits[Int(byte >> 4)]
                        out[o + 1] = digits[Int(byte & 0x0F)]
                        o += 2
                    }
                }
                return o
            }
        }
    }
}

extension UUID {
    /// The canonical upper-case form, as `uuidString` gives it, but faster.
    public var canonicalString: String { Identifiers.canonical(self) }
}
