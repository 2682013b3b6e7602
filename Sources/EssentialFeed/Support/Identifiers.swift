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
        guard text.utf8.count == 36 else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let valid = withUnsafeMutableBytes(of: &value) { out -> Bool in
            var index = 0
            var byte = 0
            var high: UInt8?
            for c in text.utf8 {
                defer { index += 1 }
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard c == UInt8(ascii: "-") else { return false }
                    continue
                }
                let digit: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
                default: return false
                }
                if let h = high {
                    out[byte] = h << 4 | digit
                    byte += 1
                    high = nil
                } else {
                    high = digit
                }
            }
            return byte == 16
        }
        return valid ? UUID(uuid: value) : nil
    }

    /// Whether `text` is an absolute URL: an RFC 3986 scheme, a colon, then
    /// at least one character, with no spaces or control characters anywhere.
    public static func isAbsoluteURL(_ text: String) -> Bool {
        var sawColon = false
        var index = 0
        var afterColon = 0
        for c in text.utf8 {
            if c <= 0x20 || c == 0x7F { return false }
            if !sawColon {
                let isAlpha = (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z")
                if index == 0 {
                    guard isAlpha else { return false }
                } else if c == UInt8(ascii: ":") {
                    sawColon = true
                } else {
                    let isDigit = c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")
                    guard isAlpha || isDigit || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") else { return false }
                }
            } else {
                afterColon += 1
            }
            index += 1
        }
        return sawColon && afterColon > 0
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
}
