import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The body of `feed-map` and `comments-map`: response records in, one
/// record per mapped item out, or one `invalid_data` error per invalid
/// response. Streams: memory stays small whatever the size of a response.
public enum ResponseMapping {
    /// Runs a mapper over standard input. With `raw`, standard input is one
    /// bare payload taken as a status-200 response.
    public static func run(_ tool: Tool, kind: StreamingResponseMapper.Kind, raw: Bool) -> Never {
        tool.refuseTerminalInput()
        var reader = JSONStreamReader(source: StandardInput(output: tool.output))
        let sink = SpillingSink(tool: tool, hintsRaw: !raw)
        var mapper = StreamingResponseMapper(kind: kind)
        do throws(ErrorRecord) {
            if raw {
                try mapper.mapDocument(&reader, into: sink)
            } else {
                try mapper.mapLines(&reader, into: sink)
            }
        } catch {
            sink.discard()
            tool.fail(error)
        }
        tool.finish()
    }
}

/// Standard input as a byte source; flushes standard output before it waits.
public struct StandardInput: ByteSource {
    let output: Output?

    public init(output: Output?) {
        self.output = output
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ErrorRecord) -> Int {
        output?.flush()
        while true {
            let n = Glibc.read(0, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw ErrorRecord(.store, "cannot read standard input: \(Descriptor.describe(errno))")
        }
    }
}

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
        tool.output.line(line)
        tool.record(kind)
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
