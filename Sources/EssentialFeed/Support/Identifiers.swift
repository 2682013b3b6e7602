#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading and writing the identifiers and URLs records carry.
public enum Identifiers {
    /// A UUID in the canonical 8-4-4-4-12 form, any letter case.
    public static func uuid(_ text: String) -> UUID? {
        guard text.utf8.count == 36 else { return nil }
        return UUID(uuidString: text)
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
