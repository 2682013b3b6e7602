/// A strict, validating RFC 8259 parser that builds a `JSONDocument` tape.
///
/// - Strings must be valid UTF-8 (no overlong forms, no encoded surrogates,
///   nothing past U+10FFFF) and contain no raw control characters.
/// - `\u` escapes must pair surrogates correctly; a lone surrogate is an error.
/// - Numbers follow the JSON grammar; their text is kept, so `1e999` or a
///   25-digit integer passes through unrounded.
/// - Nesting deeper than `maxDepth` is an error, never a stack overflow (the
///   parser is iterative).
/// - Only whitespace may follow the value.
public enum JSONParser {
    public static let defaultMaxDepth = 512

    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(JSONSyntaxError) -> JSONDocument {
        var nodes: [JSONDocument.Node] = []
        nodes.reserveCapacity(min(max(8, bytes.count / 12), 1 << 16))
        try bytes.withUnsafeBufferPointer { (p) throws(JSONSyntaxError) in
            var parser = JSONTapeParser(p: p, maxDepth: maxDepth)
            try parser.run(&nodes)
        }
        return JSONDocument(bytes: bytes, nodes: nodes)
    }

    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONSyntaxError) -> JSONDocument {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }
}
