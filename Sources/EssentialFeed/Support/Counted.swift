/// A count and its noun for messages, singular for one: `1 item`, `2 items`.
public func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}

/// Seconds for messages, in decimal as they are written on a command line
/// (`30`, `0.5`, `0.000000001`), never with an exponent; to the nanosecond.
public func secondsText(_ seconds: Double) -> String {
    guard seconds.isFinite, abs(seconds) < 1e9 else {
        return seconds.isFinite && abs(seconds) < 9e18 ? String(Int64(seconds.rounded())) : String(seconds)
    }
    let nanoseconds = Int64((abs(seconds) * 1e9).rounded())
    let whole = nanoseconds / 1_000_000_000, part = nanoseconds % 1_000_000_000
    var text = (seconds < 0 && nanoseconds > 0 ? "-" : "") + String(whole)
    if part > 0 {
        var digits = String(part)
        digits = String(repeating: "0", count: 9 - digits.count) + digits
        while digits.last == "0" { digits.removeLast() }
        text += "." + digits
    }
    return text
}
