import EssentialFeed

/// The body of `feed-map` and `comments-map`: response records in, one
/// record per mapped item out, or one `invalid_data` error per invalid response.
public enum ResponseMapping {
    /// Runs a mapper over standard input. With `raw`, standard input is one
    /// bare payload taken as a status-200 response.
    public static func run<Item>(
        _ tool: Tool,
        raw: Bool,
        map: (Response) throws(ErrorRecord) -> [Item],
        write: (Item, inout JSONWriter) -> Void
    ) -> Never {
        tool.refuseTerminalInput()
        if raw {
            do throws(ErrorRecord) {
                let bytes = try LineInput().readAll()
                let response = Response(url: nil, status: 200, body: .bytes(bytes))
                emit(tool, try map(response), write)
            } catch {
                tool.fail(ErrorRecord(error.kind, "stdin: \(error.message)", context: error.context))
            }
            tool.finish()
        }
        tool.forEachRecord { document, number in
            do throws(ErrorRecord) {
                let response = try Response(record: document)
                emit(tool, try map(response), write)
            } catch {
                tool.fail(ErrorRecord(error.kind, "stdin:\(number): \(error.message)", context: error.context))
            }
        }
        tool.finish()
    }

    private static func emit<Item>(_ tool: Tool, _ items: [Item], _ write: (Item, inout JSONWriter) -> Void) {
        for item in items { tool.output.record { write(item, &$0) } }
    }
}
