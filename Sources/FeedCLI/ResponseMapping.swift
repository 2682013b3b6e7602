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
        let sink = SpillingSink(tool: tool)
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

/// Holds the records of the response being mapped until it is known valid:
/// in memory up to 4 MiB, then in an unlinked temporary file, so memory does
/// not grow with the size of a response.
final class SpillingSink: MappedRecordSink {
    private let tool: Tool
    private var memory: [UInt8] = []
    private var file: Int32 = -1
    private var spilled = 0
    private let limit = 4 << 20

    init(tool: Tool) {
        self.tool = tool
        memory.reserveCapacity(64 << 10)
    }

    deinit {
        if file >= 0 { close(file) }
    }

    func item(_ record: [UInt8]) {
        memory.append(contentsOf: record)
        memory.append(0x0A)
        if memory.count >= limit { spill() }
    }

    private func spill() {
        if file < 0 {
            let directory = tool.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            var template = Array((directory + "/feed-map.XXXXXX").utf8CString)
            file = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard file >= 0 else {
                tool.fail(ErrorRecord(.store, "cannot create a temporary file in \(directory): \(Descriptor.describe(errno))"))
                tool.finish()
            }
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        }
        let code = memory.withUnsafeBytes { Descriptor.writeAll(file, $0) }
        guard code == 0 else {
            tool.fail(ErrorRecord(.store, "cannot write a temporary file: \(Descriptor.describe(code))"))
            tool.finish()
        }
        spilled += memory.count
        memory.removeAll(keepingCapacity: true)
    }

    func commit() {
        if spilled > 0 {
            lseek(file, 0, SEEK_SET)
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            var left = spilled
            while left > 0 {
                let n = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, min($0.count, left)) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else {
                    tool.fail(ErrorRecord(.store, "cannot read a temporary file: \(Descriptor.describe(errno))"))
                    tool.finish()
                }
                tool.output.raw(chunk[0..<n])
                left -= n
            }
            resetFile()
        }
        if !memory.isEmpty {
            tool.output.raw(memory)
            memory.removeAll(keepingCapacity: true)
        }
    }

    func discard() {
        memory.removeAll(keepingCapacity: true)
        if spilled > 0 { resetFile() }
    }

    /// Reuses the file from its start. It is not truncated: truncating a
    /// file with unwritten data makes some file systems (ext4) write it all
    /// to disk first; the unlinked file's pages are simply dropped at exit.
    private func resetFile() {
        lseek(file, 0, SEEK_SET)
        spilled = 0
    }

    func passThrough(_ line: ArraySlice<UInt8>, kind: ErrorKind) {
        tool.output.line(line)
        tool.record(kind)
    }

    func fail(_ error: ErrorRecord) {
        tool.fail(error)
    }
}
