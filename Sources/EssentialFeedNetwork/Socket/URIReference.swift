/// A URI reference split into its five parts (RFC 3986, appendix B).
struct URIReference: Equatable {
    var scheme: String?
    var authority: [UInt8]?
    var path: ArraySlice<UInt8>
    var query: ArraySlice<UInt8>?
    var fragment: ArraySlice<UInt8>?

    init(_ text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        // scheme ":" — letters first, then letters, digits, "+", "-", "."
        var scan = 0
        while scan < bytes.count, !":/?#".utf8.contains(bytes[scan]) { scan += 1 }
        if scan > 0, scan < bytes.count, bytes[scan] == UInt8(ascii: ":"), Self.isAlpha(bytes[0]),
           bytes[..<scan].allSatisfy({ Self.isAlpha($0) || ($0 >= 0x30 && $0 <= 0x39) || "+-.".utf8.contains($0) }) {
            scheme = String(decoding: bytes[..<scan], as: UTF8.self)
            index = scan + 1
        }
        if bytes.count - index >= 2, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "/") {
            var end = index + 2
            while end < bytes.count, !"/?#".utf8.contains(bytes[end]) { end += 1 }
            authority = Array(bytes[(index + 2)..<end])
            index = end
        }
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") { end += 1 }
        path = bytes[index..<end]
        index = end
        if index < bytes.count, bytes[index] == UInt8(ascii: "?") {
            end = index + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "#") { end += 1 }
            query = bytes[(index + 1)..<end]
            index = end
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "#") {
            fragment = bytes[(index + 1)...]
        }
    }

    private init(scheme: String?, authority: [UInt8]?, path: ArraySlice<UInt8>, query: ArraySlice<UInt8>?, fragment: ArraySlice<UInt8>?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    private static func isAlpha(_ byte: UInt8) -> Bool { byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A }

    /// The reference recomposed (RFC 3986, 5.3).
    var text: String {
        var out: [UInt8] = []
        if let scheme { out += Array(scheme.utf8) + [UInt8(ascii: ":")] }
        if let authority { out += [UInt8(ascii: "/"), UInt8(ascii: "/")] + authority }
        out += path
        if let query { out += [UInt8(ascii: "?")] + query }
        if let fragment { out += [UInt8(ascii: "#")] + fragment }
        return String(decoding: out, as: UTF8.self)
    }

    /// `reference` resolved against this (absolute) URL, strictly (RFC 3986, 5.2.2).
    func resolving(_ reference: URIReference) -> URIReference? {
        guard let scheme else { return nil }
        if reference.scheme != nil {
            return URIReference(scheme: reference.scheme, authority: reference.authority,
                                path: Self.removingDotSegments(reference.path), query: reference.query, fragment: reference.fragment)
        }
        if reference.authority != nil {
            return URIReference(scheme: scheme, authority: reference.authority,
                                path: Self.removingDotSegments(reference.path), query: reference.query, fragment: reference.fragment)
        }
        if reference.path.isEmpty {
            return URIReference(scheme: scheme, authority: authority, path: path,
                                query: reference.query ?? query, fragment: reference.fragment)
        }
        if reference.path.first == UInt8(ascii: "/") {
            return URIReference(scheme: scheme, authority: authority, path: Self.removingDotSegments(reference.path),
                                query: reference.query, fragment: reference.fragment)
        }
        // Merge (5.2.3): the base path up to its last "/", then the reference's path.
        var merged: [UInt8]
        if authority != nil, path.isEmpty {
            merged = [UInt8(ascii: "/")]
        } else if let slash = path.lastIndex(of: UInt8(ascii: "/")) {
            merged = Array(path[...slash])
        } else {
            merged = []
        }
        merged += reference.path
        return URIReference(scheme: scheme, authority: authority, path: Self.removingDotSegments(merged[...]),
                            query: reference.query, fragment: reference.fragment)
    }

    /// RFC 3986, 5.2.4.
    static func removingDotSegments(_ path: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        var input = Array(path)[...]
        var output: [UInt8] = []
        func starts(_ prefix: String) -> Bool { input.starts(with: prefix.utf8) }
        func dropLastSegment() {
            if let last = output.lastIndex(of: slash) { output.removeSubrange(last...) } else { output.removeAll() }
        }
        while !input.isEmpty {
            if starts("../") {
                input = input.dropFirst(3)
            } else if starts("./") {
                input = input.dropFirst(2)
            } else if starts("/./") {
                input = input.dropFirst(2)
            } else if input.elementsEqual([slash, dot]) {
                input = [slash][...]
            } else if starts("/../") {
                input = input.dropFirst(3)
                dropLastSegment()
            } else if input.elementsEqual([slash, dot, dot]) {
                input = [slash][...]
                dropLastSegment()
            } else if input.elementsEqual([dot]) || input.elementsEqual([dot, dot]) {
                input = []
            } else {
                var end = input.startIndex
                if input[end] == slash { end += 1 }
                while end < input.endIndex, input[end] != slash { end += 1 }
                output += input[..<end]
                input = input[end...]
            }
        }
        return output[...]
    }
}
