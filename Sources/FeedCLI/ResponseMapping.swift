import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Sandbox

/// The body of `feed-map` and `comments-map`: response records in, one
/// record per mapped item out, or one `invalid_data` error per invalid
/// response. Streams: memory stays small whatever the size of a response.
public enum ResponseMapping {
    /// A mapper tool whole: its help (the usage, `about`, and the options
    /// and exit statuses both mappers share), its command line, and `run`.
    public static func main(name: String, kind: ResponseKind, about: String) -> Never {
        let tool = Tool(
            name: name,
            help: """
            usage: \(name) [--raw]
                   \(name) --help | --version

            \(about)
            options:
              --raw        read standard input as one bare payload (e.g. from curl)
                           taken as a status-200 response
              -h, --help   print this help and exit
              --version    print the version and exit

            exit status: 0 all handled, 64 usage, 65 invalid data, or the status of
            the first error record met (see essential-feed(7)).

            """,
            options: [.flag("--raw")]
        )
        if !tool.arguments.operands.isEmpty { tool.usageError("unexpected operand '\(tool.arguments.operands[0])'") }
        tool.confine(.base(environment: tool.environment))
        run(tool, kind: kind, raw: tool.arguments.flag("--raw"))
    }

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
