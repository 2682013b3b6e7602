/// What is wrong with a JSON text: the grammar's one set of reasons, for
/// the tape parser and the stream reader alike (a byte offset goes with
/// each, in `JSONSyntaxError`). The fast path reports none: it leaves any
/// fault to the stream reader.
enum JSONFault {
    case expectedValue, expectedKey, expectedColon, expectedString, expectedObject, expectedArray
    case expectedLiteral, invalidLiteral(String)
    case unexpected(UInt8), unexpectedData
    case nestingTooDeep(Int), unterminated(object: Bool), expectedSeparator(object: Bool)
    case expectedDigit, leadingZero, expectedFractionDigit, expectedExponentDigit
    case unterminatedString, controlCharacter(UInt8)
    case invalidEscape(UInt8), unterminatedHexEscape, invalidHexDigit
    case loneLowSurrogate(Int), loneHighSurrogate(Int), highSurrogateWithoutLow
    case invalidUTF8(UInt8), invalidUTF8Sequence(UInt8)

    var reason: String {
        switch self {
        case .expectedValue: "expected a value"
        case .expectedKey: "expected a string key"
        case .expectedColon: "expected ':' after key"
        case .expectedString: "expected a string"
        case .expectedObject: "expected an object"
        case .expectedArray: "expected an array"
        case .expectedLiteral: "expected true, false or null"
        case let .invalidLiteral(word): "invalid literal (expected \(word))"
        case let .unexpected(c): "unexpected \(Self.describe(c))"
        case .unexpectedData: "unexpected data after the value"
        case let .nestingTooDeep(depth): "nesting deeper than \(depth) levels"
        case let .unterminated(object): object ? "unterminated object" : "unterminated array"
        case let .expectedSeparator(object): object ? "expected ',' or '}' in object" : "expected ',' or ']' in array"
        case .expectedDigit: "expected a digit"
        case .leadingZero: "leading zero in number"
        case .expectedFractionDigit: "expected a digit after '.'"
        case .expectedExponentDigit: "expected a digit in exponent"
        case .unterminatedString: "unterminated string"
        case let .controlCharacter(c): "control character \(Self.describe(c)) in string (must be escaped)"
        case let .invalidEscape(c):
            // An unprintable byte is named by value, so the message stays on one line.
            c >= 0x21 && c < 0x7F ? "invalid escape \\\(Character(Unicode.Scalar(c)))" : "invalid escape: backslash before \(Self.describe(c))"
        case .unterminatedHexEscape: "unterminated \\u escape"
        case .invalidHexDigit: "invalid hex digit in \\u escape"
        case let .loneLowSurrogate(unit): "lone low surrogate \\u\(String(unit, radix: 16, uppercase: true)) in string"
        case let .loneHighSurrogate(unit): "lone high surrogate \\u\(String(unit, radix: 16, uppercase: true)) in string"
        case .highSurrogateWithoutLow: "high surrogate not followed by a low surrogate in string"
        case let .invalidUTF8(c): "invalid UTF-8 \(Self.describe(c)) in string"
        case let .invalidUTF8Sequence(c): "invalid UTF-8 sequence starting with \(Self.describe(c)) in string"
        }
    }

    /// A byte as messages name it: a printable character in quotes, else its value.
    static func describe(_ c: UInt8) -> String {
        if c >= 0x21 && c < 0x7F { return "character '\(Character(Unicode.Scalar(c)))'" }
        let hex = String(c, radix: 16, uppercase: true)
        return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
    }
}
