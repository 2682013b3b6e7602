/// A number of bytes as the tools take one: digits with an optional k, M
/// or G (1024-based, case-insensitive), as `--max-body 64M` or
/// `FEED_MAX_LINE=256M`.
public enum ByteCount {
    /// The number of bytes `text` says, or nil when it says none.
    public static func parse(_ text: String) -> Int? {
        var digits = Substring(text)
        var multiplier = 1
        switch digits.last {
        case "k"?, "K"?: multiplier = 1 << 10
        case "m"?, "M"?: multiplier = 1 << 20
        case "g"?, "G"?: multiplier = 1 << 30
        default: break
        }
        if multiplier > 1 { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let n = Int(digits), n <= Int.max / multiplier else { return nil }
        return n * multiplier
    }
}
