import EssentialFeed

/// What a message needs of a URL's text, read without a parser of its own
/// (libcurl parses the URLs it fetches): its scheme and its host.
enum URLText {
    /// The scheme, in lower case, if the text starts with one (`http:`):
    /// read as bytes, since it is asked of every request (as characters, it
    /// took 2.4% of feed-fetch's time for 1,000 small files).
    static func scheme(of url: String) -> String? {
        let utf8 = url.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")), colon > utf8.startIndex else { return nil }
        let bytes = utf8[..<colon]
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        guard isLetter(bytes.first!), bytes.allSatisfy({ byte in
            isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }) else { return nil }
        let scheme = String(Substring(bytes))
        return bytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) ? scheme.lowercased() : scheme
    }

    /// Whether the URL's authority has user information (`user[:password]@`).
    static func hasUserInfo(_ url: String) -> Bool {
        userInfo(of: url) != nil
    }

    /// The URL without the user information of its authority, if any.
    static func withoutUserInfo(_ url: String) -> String {
        guard let range = userInfo(of: url) else { return url }
        var stripped = url
        stripped.removeSubrange(range)
        return stripped
    }

    /// Where `user[:password]@` lies in the URL's authority.
    private static func userInfo(of url: String) -> Range<String.Index>? {
        guard url.contains("://"), let user = URLAuthority(URLAuthority.text(of: url[...])).userInfo else { return nil }
        return user.startIndex..<url.index(after: user.endIndex)
    }

    /// The host of an `scheme://[user@]host[:port]/…` URL, an IPv6 literal without its brackets.
    static func host(of url: String) -> String? {
        guard url.contains("://") else { return nil }
        return String(URLAuthority(URLAuthority.text(of: url[...])).hostName)
    }
}
