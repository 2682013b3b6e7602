/// Faults that `FeedServer` injects into its responses, so that clients can be
/// tested against a slow, failing or misbehaving server.
///
/// Faults are given globally (``FeedServer/init(fixtures:faults:log:)``, the
/// `feed-serve` fault flags) and per request through a path prefix:
///
///     BASE/_fault/SPEC/v1/feed?limit=2
///
/// where `SPEC` is a comma-separated list of items (see ``init(spec:)``); the
/// rest of the path is then routed as usual, so a client can point its base
/// URL at `BASE/_fault/SPEC`. A fault given in the prefix replaces the same
/// global fault for that request; `reset` and `hang` can only be switched on.
///
/// | item | effect |
/// | --- | --- |
/// | `delay=MS` | wait MS milliseconds (at most a day) before responding |
/// | `status=N` | answer with status N (200–599); the body is the normal one |
/// | `truncate=N` | announce the full `Content-Length`, send only N bytes of the body, then close |
/// | `reset` | after reading the request, close the connection with a TCP reset |
/// | `drip=MS` | send the body one byte every MS milliseconds (at most a day) |
/// | `hang` | send the status line and one header, then nothing until the client closes or the server stops |
/// | `redirect=N` | answer 302 with a `Location` to the same URL with `redirect=N-1` (N = 0 answers normally) |
/// | `big=BYTES` | pad a JSON object body with a `"pad"` member to exactly BYTES bytes (when it is smaller) |
///
/// Only the request that carries the prefix is affected: `{{base}}` in its
/// body still expands to the plain base URL, so image URLs in a faulty feed
/// page point at the well-behaved server.
///
/// The order of application: `reset`, `delay`, `redirect`, the route,
/// `big`, `status`, then `hang`, `truncate` and `drip` while sending.
public struct FeedServerFaults: Sendable, Equatable {
    /// Milliseconds to wait before responding.
    public var delay: Int?
    /// A status code (200–599) that replaces the normal one.
    public var status: Int?
    /// How many body bytes to send before closing the connection.
    public var truncate: Int?
    /// Reset the connection (RST) instead of answering.
    public var reset: Bool
    /// Milliseconds between single body bytes.
    public var drip: Int?
    /// Send a partial head, then nothing more.
    public var hang: Bool
    /// How many 302 redirects to answer before the real response.
    public var redirect: Int?
    /// The size in bytes to pad JSON object bodies to.
    public var big: Int?

    public init(
        delay: Int? = nil, status: Int? = nil, truncate: Int? = nil, reset: Bool = false,
        drip: Int? = nil, hang: Bool = false, redirect: Int? = nil, big: Int? = nil
    ) {
        self.delay = delay
        self.status = status
        self.truncate = truncate
        self.reset = reset
        self.drip = drip
        self.hang = hang
        self.redirect = redirect
        self.big = big
    }

    /// The longest `delay` or `drip`, in milliseconds: a day.
    public static let longestWait = 86_400_000

    /// The names of the fault items, as written in a spec.
    public static let names = ["delay", "status", "truncate", "reset", "drip", "hang", "redirect", "big"]

    /// Parses a comma-separated spec such as `delay=200,status=500` or `reset`.
    /// Empty items are ignored; a repeated item's last value wins.
    public init(spec: String) throws(SpecError) {
        self.init()
        for item in spec.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            try set(String(parts[0]), parts.count > 1 ? String(parts[1]) : nil)
        }
    }

    /// Sets one fault by its spec name; `value` is nil for a bare flag.
    public mutating func set(_ name: String, _ value: String?) throws(SpecError) {
        func number(_ unit: String, range: ClosedRange<Int> = 0...Int.max) throws(SpecError) -> Int {
            guard let value, !value.isEmpty, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let number = Int(value), range.contains(number)
            else {
                let bounds = range.upperBound == Int.max ? "" : " from \(range.lowerBound) to \(range.upperBound)"
                throw SpecError(message: "fault '\(name)' needs \(unit)\(bounds), got '\(value ?? "")'")
            }
            return number
        }
        func flag() throws(SpecError) -> Bool {
            switch value {
            case nil, "1", "true": return true
            default: throw SpecError(message: "fault '\(name)' takes no value, got '\(value ?? "")'")
            }
        }
        switch name {
        // At most a day: a wait past 7.4e12 ms overflowed Foundation's
        // deadline, and the trap ended the server (found by the hunt).
        case "delay": delay = try number("a number of milliseconds", range: 0...Self.longestWait)
        case "status": status = try number("a status code", range: 200...599)
        case "truncate": truncate = try number("a number of bytes")
        case "reset": reset = try flag()
        case "drip": drip = try number("a number of milliseconds", range: 0...Self.longestWait)
        case "hang": hang = try flag()
        case "redirect": redirect = try number("a number of redirects")
        case "big": big = try number("a number of bytes")
        default:
            throw SpecError(message: "unknown fault '\(name)' (known: \(Self.names.joined(separator: ", ")))")
        }
    }

    /// These faults with every fault set in `other` taking precedence.
    public func overridden(by other: FeedServerFaults) -> FeedServerFaults {
        FeedServerFaults(
            delay: other.delay ?? delay, status: other.status ?? status,
            truncate: other.truncate ?? truncate, reset: reset || other.reset,
            drip: other.drip ?? drip, hang: hang || other.hang,
            redirect: other.redirect ?? redirect, big: other.big ?? big
        )
    }

    /// True when no fault is switched on.
    public var isEmpty: Bool { self == FeedServerFaults() }

    /// The faults as a spec that ``init(spec:)`` reads back, e.g. `delay=200,reset`.
    public var spec: String {
        var items: [String] = []
        if let delay { items.append("delay=\(delay)") }
        if let status { items.append("status=\(status)") }
        if let truncate { items.append("truncate=\(truncate)") }
        if reset { items.append("reset") }
        if let drip { items.append("drip=\(drip)") }
        if hang { items.append("hang") }
        if let redirect { items.append("redirect=\(redirect)") }
        if let big { items.append("big=\(big)") }
        return items.joined(separator: ",")
    }

    /// A fault spec that cannot be read.
    public struct SpecError: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
