/// The validators of a conditional request (RFC 9110, 8.8 and 13.1), checked
/// against their grammar wherever they cross a boundary: read from a
/// response, kept by the cache, put on a request. Anything else (a CR, LF,
/// NUL or other control, a value that is not an entity tag or an HTTP date)
/// is refused, so that no byte a server or a record chose can reach another
/// request's header block (header injection, request smuggling).
public enum HTTPValidators {
    /// `text` when it is one entity tag, `[ "W/" ] DQUOTE *etagc DQUOTE`
    /// (etagc: `!`, `#`-`~`, or a byte of 0x80 or more), at most 1 KiB, blanks
    /// around it dropped; else nil.
    public static func entityTag(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { entityTag(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// The same over the bytes of a header field's value, as a response
    /// gives them (one string made, of the tag kept).
    public static func entityTag(bytes: UnsafeRawBufferPointer) -> String? {
        let bytes = trimmed(bytes)
        guard bytes.count <= 1024 else { return nil }
        var i = bytes.startIndex
        if bytes.count >= 2, bytes[i] == UInt8(ascii: "W"), bytes[i + 1] == UInt8(ascii: "/") { i += 2 }
        guard bytes.endIndex - i >= 2, bytes[i] == 0x22, bytes[bytes.endIndex - 1] == 0x22 else { return nil }
        for c in bytes[(i + 1)..<(bytes.endIndex - 1)] {
            guard c == 0x21 || (0x23...0x7E).contains(c) || c >= 0x80 else { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether two entity tags name one representation by the weak
    /// comparison (RFC 9110, 8.8.3.2): their opaque tags alike, either weak.
    public static func weaklyMatch(_ a: String, _ b: String) -> Bool {
        func opaque(_ tag: String) -> Substring { tag.hasPrefix("W/") ? tag.dropFirst(2) : tag[...] }
        return opaque(a) == opaque(b)
    }

    /// The date `text` holds, as IMF-fixdate (the form a sender must write,
    /// RFC 9110 5.6.7), when it is an HTTP date in one of its three forms
    /// (see `HTTPDate.parse`), printable ASCII only; else nil. Kept as
    /// written, a date read leniently went back to the server as it came
    /// (found in review).
    public static func httpDate(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { httpDate(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// The same over the bytes of a header field's value.
    public static func httpDate(bytes: UnsafeRawBufferPointer) -> String? {
        let bytes = trimmed(bytes)
        guard bytes.count <= 64, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let seconds = HTTPDate.parse(text) else { return nil }
        // What servers send is already that form: kept, not written anew
        // for each response (3% more CPU for 1,000 small files from nginx).
        return HTTPDate.isIMFFixdate(text, of: seconds) ? text : HTTPDate.format(seconds)
    }

    /// `bytes` without spaces and tabs at either end.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> Slice<UnsafeRawBufferPointer> {
        var bytes = bytes[...]
        while let c = bytes.first, c == 0x20 || c == 0x09 { bytes = bytes.dropFirst() }
        while let c = bytes.last, c == 0x20 || c == 0x09 { bytes = bytes.dropLast() }
        return bytes
    }
}
