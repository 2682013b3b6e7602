import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input as NDJSON lines, pulled one at a time: the one line
/// reader of the tools. A caller may pull inside a store transaction (a
/// save does). Reads `readSize` bytes at a time, holding no more than the
/// current line and one read; every line counts toward the numbers, blank
/// ones included, and one trailing `\r` is removed. Standard output is
/// flushed before each read, so records already written reach a slow pipe
/// before the tool waits for more input.
public struct InputLines {
    private let fd: Int32
    private let readSize: Int
    private let output: Output?
    private var buffer: [UInt8]
    /// Where the next line starts, and how far `buffer` holds bytes read.
    private var start = 0
    private var end = 0
    private var ended = false
    private var number = 0

    public init(fd: Int32 = 0, readSize: Int = 65_536, flushing output: Output?) {
        self.fd = fd
        self.readSize = readSize
        self.output = output
        buffer = [UInt8](repeating: 0, count: 2 * readSize)
    }

    /// The next non-blank line, its number and whether it was cut off (the
    /// last line, without a newline); nil at the end of the input. A read
    /// error is a `store` error.
    public mutating func next() throws(ErrorRecord) -> (line: ArraySlice<UInt8>, number: Int, truncated: Bool)? {
        while true {
            let newline: Int? = buffer.withUnsafeBufferPointer { p in
                guard start < end, let found = memchr(p.baseAddress! + start, 0x0A, end - start) else { return nil }
                return p.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            if let newline {
                number += 1
                var last = newline
                if last > start && buffer[last - 1] == 0x0D { last -= 1 }
                let line = buffer[start..<last]
                start = newline + 1
                if Self.isBlank(line) { continue }
                return (line, number, false)
            }
            if ended {
                guard start < end else { return nil }
                number += 1
                let rest = buffer[start..<end]
                start = end
                if Self.isBlank(rest) { return nil }
                return (rest, number, true)
            }
            try fill()
        }
    }

    /// Whether a line holds nothing but JSON whitespace.
    static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    /// Reads more input after the bytes still held (moved to the front).
    private mutating func fill() throws(ErrorRecord) {
        if start > 0 {
            let held = end - start
            if held > 0 {
                buffer.withUnsafeMutableBufferPointer { p in
                    _ = memmove(p.baseAddress!, p.baseAddress! + start, held)
                }
            }
            start = 0
            end = held
        }
        if buffer.count - end < readSize {
            buffer.append(contentsOf: repeatElement(0, count: max(buffer.count, readSize)))
        }
        output?.flush()
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { p in read(fd, p.baseAddress! + end, min(readSize, p.count - end)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ErrorRecord(.store, "cannot read standard input: \(Descriptor.describe(errno))")
            }
            if n == 0 { ended = true } else { end += n }
            return
        }
    }
}
