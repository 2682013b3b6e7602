struct JSONTapeParser {
    let p: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var i = 0
    var stack: [Int] = []

    init(p: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.p = p
        self.maxDepth = maxDepth
    }

    typealias Node = JSONDocument.Node

    mutating func run(_ nodes: inout [Node]) throws(JSONSyntaxError) {
        skipWhitespace()
        try value(&nodes)
        while let top = stack.last {
            skipWhitespace()
            let isObject = nodes[top].kind == .object
            let closer = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            guard i < p.count else { throw fail(.unterminated(object: isObject)) }
            let c = p[i]
            if c == closer {
                i += 1
                nodes[top].end = nodes.count
                stack.removeLast()
                continue
            }
            if nodes[top].count > 0 {
                guard c == UInt8(ascii: ",") else {
                    throw fail(.expectedSeparator(object: isObject))
                }
                i += 1
                skipWhitespace()
            }
            nodes[top].count += 1
            if isObject {
                guard i < p.count, p[i] == UInt8(ascii: "\"") else { throw fail(.expectedKey) }
                try string(&nodes)
                skipWhitespace()
                guard i < p.count, p[i] == UInt8(ascii: ":") else { throw fail(.expectedColon) }
                i += 1
                skipWhitespace()
            }
            try value(&nodes)
        }
        skipWhitespace()
        if i < p.count { throw fail(.unexpectedData) }
    }

    func fail(_ fault: JSONFault) -> JSONSyntaxError {
        if i >= p.count { return JSONSyntaxError(offset: i, reason: "unexpected end: \(fault.reason)") }
        return JSONSyntaxError(offset: i, reason: fault.reason)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while i < p.count {
            switch p[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    /// Parses a scalar, or opens a container and leaves its body to `run`.
    mutating func value(_ nodes: inout [Node]) throws(JSONSyntaxError) {
        guard i < p.count else { throw fail(.expectedValue) }
        switch p[i] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard stack.count < maxDepth else { throw fail(.nestingTooDeep(maxDepth)) }
            let kind: JSONDocument.Kind = p[i] == UInt8(ascii: "{") ? .object : .array
            stack.append(nodes.count)
            nodes.append(Node(kind: kind, escaped: false, start: i, end: 0, count: 0))
            i += 1
        case UInt8(ascii: "\""):
            try string(&nodes)
        case UInt8(ascii: "t"):
            try literal("true", .true, &nodes)
        case UInt8(ascii: "f"):
            try literal("false", .false, &nodes)
        case UInt8(ascii: "n"):
            try literal("null", .null, &nodes)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try number(&nodes)
        default:
            throw fail(.unexpected(p[i]))
        }
    }

    mutating func literal(_ word: StaticString, _ kind: JSONDocument.Kind, _ nodes: inout [Node]) throws(JSONSyntaxError) {
        let start = i
        let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for c in w {
            guard i < p.count, p[i] == c else {
                i = start
                throw fail(.invalidLiteral("\(word)"))
            }
            i += 1
        }
        nodes.append(Node(kind: kind, escaped: false, start: start, end: i, count: 0))
    }

    mutating func number(_ nodes: inout [Node]) throws(JSONSyntaxError) {
        let start = i
        let (end, fault) = JSONEscapes.scanNumber(p.baseAddress!, i, p.count)
        i = end
        if let fault { throw fail(fault) }
        nodes.append(Node(kind: .number, escaped: false, start: start, end: i, count: 0))
    }

    /// Parses a string starting at its opening quote.
    mutating func string(_ nodes: inout [Node]) throws(JSONSyntaxError) {
        i += 1
        let start = i
        var escaped = false
        while true {
            // Fast path over plain ASCII.
            while i < p.count {
                let c = p[i]
                if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { break }
                i += 1
            }
            guard i < p.count else { throw fail(.unterminatedString) }
            let c = p[i]
            if c == UInt8(ascii: "\"") {
                nodes.append(Node(kind: .string, escaped: escaped, start: start, end: i, count: 0))
                i += 1
                return
            } else if c == UInt8(ascii: "\\") {
                escaped = true
                try escape()
            } else if c < 0x20 {
                throw fail(.controlCharacter(c))
            } else {
                try multibyte()
            }
        }
    }

    mutating func escape() throws(JSONSyntaxError) {
        i += 1
        guard i < p.count else { throw fail(.unterminatedString) }
        switch p[i] {
        case _ where JSONEscapes.shortEscapeValue(p[i]) != nil:
            i += 1
        case UInt8(ascii: "u"):
            let at = i - 1
            let unit = try hex4()
            if unit >= 0xDC00 && unit < 0xE000 {
                i = at
                throw fail(.loneLowSurrogate(unit))
            }
            if unit >= 0xD800 && unit < 0xDC00 {
                guard i + 1 < p.count, p[i] == UInt8(ascii: "\\"), p[i + 1] == UInt8(ascii: "u") else {
                    i = at
                    throw fail(.loneHighSurrogate(unit))
                }
                i += 1
                let low = try hex4()
                guard low >= 0xDC00 && low < 0xE000 else {
                    i = at
                    throw fail(.highSurrogateWithoutLow)
                }
            }
        default:
            throw fail(.invalidEscape(p[i]))
        }
    }

    /// Reads `uXXXX` at `i` (pointing at `u`) and returns the code unit.
    mutating func hex4() throws(JSONSyntaxError) -> Int {
        i += 1
        var v = 0
        for _ in 0..<4 {
            guard i < p.count else { throw fail(.unterminatedHexEscape) }
            let h = JSONEscapes.hexValue(p[i])
            guard h >= 0 else { throw fail(.invalidHexDigit) }
            v = v << 4 | h
            i += 1
        }
        return v
    }

    /// Validates one UTF-8 sequence of two to four bytes at `i` (RFC 3629).
    mutating func multibyte() throws(JSONSyntaxError) {
        let length = JSONEscapes.utf8SequenceLength(p.baseAddress!, i, p.count)
        if length == 0 { throw fail(.invalidUTF8(p[i])) }
        if length < 0 { throw fail(.invalidUTF8Sequence(p[i])) }
        i += length
    }
}
