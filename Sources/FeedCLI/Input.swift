import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads standard input as NDJSON lines, in 64 KiB reads, never holding more
/// than the current line and one read.
public struct LineInput {
    public let fd: Int32
    public let chunkSize: Int

    public init(fd: Int32 = 0, chunkSize: Int = 65_536) {
        self.fd = fd
        self.chunkSize = chunkSize
    }

    /// Calls `body` with each non-blank line, its number and whether it was
    /// cut off (the last line, without a newline). `beforeBlocking` runs before
    /// each read. Read errors are thrown as `store` errors.
    public func forEachLine(
        beforeBlocking: () -> Void = {},
        _ body: (_ line: ArraySlice<UInt8>, _ number: Int, _ truncated: Bool) throws -> Void
    ) throws {
        var framer = LineFramer()
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            beforeBlocking()
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, chunkSize) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ErrorRecord(.store, "cannot read standard input: \(Descriptor.describe(errno))")
            }
            if n == 0 { break }
            framer.append(chunk[0..<n])
            while let line = framer.nextLine() {
                if line.isBlank { continue }
                try body(line, framer.lineNumber, false)
            }
        }
        if let rest = framer.finish(), !rest.isBlank {
            try body(rest, framer.lineNumber, true)
        }
    }

    /// Reads everything (for `--raw` payloads).
    public func readAll() throws(ErrorRecord) -> [UInt8] {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, chunkSize) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ErrorRecord(.store, "cannot read standard input: \(Descriptor.describe(errno))")
            }
            if n == 0 { return all }
            all.append(contentsOf: chunk[0..<n])
        }
    }
}
