import EssentialFeed

/// How the tools name the place in their input a failure is about: the one
/// place the command line's `stdin:N:` form is written.
public enum InputLocation {
    /// `stdin:N: ` for line N, `stdin: ` for input read as one document.
    public static func prefix(line: Int) -> String {
        line == 0 ? "stdin: " : "stdin:\(line): "
    }
}

extension ErrorRecord {
    /// The record as the tools report it: a failure about a line of standard
    /// input names it first (`stdin:3: not a JSON object`).
    public var reported: ErrorRecord {
        guard let line else { return self }
        var located = self
        located.message = InputLocation.prefix(line: line) + message
        located.line = nil
        return located
    }
}
