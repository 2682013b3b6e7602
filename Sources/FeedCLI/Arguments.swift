import EssentialFeed

/// Parsed command-line arguments.
///
/// Accepts `--name value`, `--name=value`, `-x value`, flags, `--` to end
/// options, and `-` as an operand. A repeated option keeps its last value.
public struct Arguments: Sendable {
    public private(set) var operands: [String] = []
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    public init(_ arguments: [String], options: [OptionSpec]) throws(ErrorRecord) {
        var byName: [String: OptionSpec] = [:]
        for spec in options { for n in spec.names { byName[n] = spec } }
        var i = 0
        var onlyOperands = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if onlyOperands || arg == "-" || !arg.hasPrefix("-") {
                operands.append(arg)
                continue
            }
            if arg == "--" { onlyOperands = true; continue }
            var name = arg
            var inline: String?
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let spec = byName[name] else {
                throw ErrorRecord(.usage, "unknown option '\(name)'")
            }
            if spec.takesValue {
                if let inline {
                    values[spec.name] = inline
                } else {
                    guard i < arguments.count else { throw ErrorRecord(.usage, "option '\(name)' needs a value") }
                    values[spec.name] = arguments[i]
                    i += 1
                }
            } else {
                guard inline == nil else { throw ErrorRecord(.usage, "option '\(name)' takes no value") }
                flags.insert(spec.name)
            }
        }
    }

    public func value(_ name: String) -> String? { values[name] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// A whole number within `range`, or nil when the option is absent:
    /// decimal digits alone, as the scripts take it (`+5` was taken here and
    /// refused there: found by the hunt).
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(ErrorRecord) -> Int? {
        guard let text = values[name] else { return nil }
        guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(text), range.contains(n) else {
            throw ErrorRecord(.usage, "\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return n
    }

    /// The most seconds an option takes (about 11.6 days): a deadline
    /// that far in nanoseconds still fits in 64 bits, with room to spare.
    public static let maximumSeconds = 1_000_000

    /// A positive number of seconds, written in decimal as the scripts
    /// take it (`30`, `0.5`; no sign, exponent or hexadecimal), up to
    /// `maximumSeconds` (zero too when `allowZero`), or nil when absent.
    public func seconds(_ name: String, allowZero: Bool = false) throws(ErrorRecord) -> Double? {
        guard let text = values[name] else { return nil }
        guard Self.isDecimal(text), let n = Double(text), n <= Double(Self.maximumSeconds), n > 0 || (allowZero && n == 0) else {
            let what = allowZero ? "a number of seconds" : "a positive number of seconds"
            throw ErrorRecord(.usage, "\(name) takes \(what) up to \(Self.maximumSeconds), not '\(text)'")
        }
        return n
    }

    /// Digits, then a point and digits or not.
    private static func isDecimal(_ text: String) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return (1...2).contains(parts.count) && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
    }
}
