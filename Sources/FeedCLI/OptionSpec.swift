import EssentialFeed

/// One option a tool accepts.
public struct OptionSpec: Sendable {
    /// Every spelling, e.g. `["--parallel", "-j"]`; the first is the canonical name.
    public let names: [String]
    public let takesValue: Bool

    public static func flag(_ names: String...) -> OptionSpec { OptionSpec(names: names, takesValue: false) }
    public static func value(_ names: String...) -> OptionSpec { OptionSpec(names: names, takesValue: true) }

    public var name: String { names[0] }
}
