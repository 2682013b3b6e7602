import EssentialFeed

/// The image responses `save-images` reads, one at a time.
///
/// Error records are written through and invalid responses reported as
/// they are met, and skipped; an invalid or truncated line is reported and
/// makes the input untrusted (nothing may be stored), but reading goes on so
/// that every line is reported.
public final class ImageInput {
    private let tool: Tool
    private var lines: InputLines
    /// False once an invalid or truncated line was met.
    public private(set) var trusted = true
    /// Whether the input has been read to its end.
    public private(set) var ended = false

    public init(tool: Tool) {
        self.tool = tool
        lines = InputLines(fd: tool.input, maxLine: tool.maxLine, flushing: tool.output)
    }

    /// The next valid image response's URL and data; nil at the end of the input.
    public func next() -> (url: String, data: [UInt8])? {
        while !ended {
            let next: (line: ArraySlice<UInt8>, number: Int, truncated: Bool)?
            do throws(ErrorRecord) {
                next = try lines.next()
            } catch {
                tool.fail(error)
                trusted = false
                ended = true
                return nil
            }
            guard let (line, number, truncated) = next else {
                ended = true
                return nil
            }
            guard let document = tool.parseRecord(line, number, truncated) else {
                trusted = false
                continue
            }
            if let kind = RecordKind.errorKind(of: document) {
                tool.passOn(errorRecord: line, kind: kind)
                continue
            }
            do throws(ErrorRecord) {
                let response = try Response(record: document)
                guard let url = response.url else { throw ErrorRecord(.invalidData, "image response has no url") }
                return (url, try ImageDataMapper.map(response))
            } catch {
                tool.fail(error.on(line: number))
            }
        }
        return nil
    }

    /// Reads (and reports) the rest of the input, storing nothing.
    public func drain() {
        while next() != nil {}
    }
}
