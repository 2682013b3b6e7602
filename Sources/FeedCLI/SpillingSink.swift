import EssentialFeed

/// Holds the records of the response being mapped in a `Spool` (2 MiB in
/// memory, then a temporary file) until it is known valid, so memory does
/// not grow with the size of a response.
final class SpillingSink: MappedRecordSink {
    private let tool: Tool
    private let spool: Spool
    /// Whether a first line that looks like a bare payload gets a hint of `--raw`.
    private var hintsRaw: Bool

    init(tool: Tool, hintsRaw: Bool = false) {
        self.tool = tool
        self.hintsRaw = hintsRaw
        spool = Spool(name: "feed-map", environment: tool.environment, memoryLimit: 2 << 20)
    }

    func items(_ lines: UnsafeRawBufferPointer) {
        settled { () throws(ErrorRecord) in try spool.append(lines) }
    }

    func commit() {
        settled { () throws(ErrorRecord) in try spool.write(to: tool.output) }
    }

    func discard() {
        settled { () throws(ErrorRecord) in try spool.discard() }
    }

    /// A spool that cannot keep records ends the tool (74).
    private func settled(_ body: () throws(ErrorRecord) -> Void) {
        do {
            try body()
        } catch {
            tool.fail(error)
            tool.finish()
        }
    }

    func passThrough(_ line: ArraySlice<UInt8>, kind: ErrorKind) {
        tool.passOn(errorRecord: line, kind: kind)
    }

    func fail(_ error: ErrorRecord) {
        tool.fail(error)
        if hintsRaw, Self.looksLikeABarePayload(error) {
            tool.diagnostics.error("hint: use --raw for a bare payload (e.g. from curl)")
        }
        hintsRaw = false  // once, and only for the first failure
    }

    /// Whether the first failure says line 1 was the start of a document
    /// rather than a response record: `{` alone (a pretty-printed payload,
    /// as `curl` shows one) or an object without `status` (a compact one).
    static func looksLikeABarePayload(_ error: ErrorRecord) -> Bool {
        guard error.line == 1 else { return false }
        let reason = error.message
        return reason == "invalid JSON at byte 2: expected a string key"
            || reason.hasPrefix("invalid JSON at byte 2: unexpected end")
            || reason == "not a response record: no status"
            || reason == "not a JSON object"
    }
}
