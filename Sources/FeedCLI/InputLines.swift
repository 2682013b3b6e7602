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
///
/// A line longer than `maxLine` bytes (`FEED_MAX_LINE`, default 128 MiB:
/// a response of the largest body feed-fetch accepts by default, 64 MiB,
/// as base64) is an `invalid_data` error, thrown once that many bytes are
/// held: reading stops there. A line of 1 MiB or more is handed over in
/// the buffer it was read into (a new one takes the bytes after it), so a
/// record parsed from it is not copied; the buffer grows without touching
/// the room it has not filled yet.
public struct InputLines {
    /// The longest line read when `FEED_MAX_LINE` does not say.
    public static let defaultMaxLine = 128 << 20
    private let maxLine: Int
    private let fd: Int32
    private let readSize: Int
    private let output: Output?
    private var buffer: [UInt8]
    /// Where the next line starts, and how far `buffer` holds bytes read.
    private var start = 0
    private var end = 0
    private var ended = false
    private var number = 0

    public init(fd: Int32 = 0, readSize: Int = 65_536, maxLine: Int = defaultMaxLine, flushing output: Output?) {
        self.fd = fd
        // Below Int.max: a line is measured against maxLine + 1.
        self.maxLine = min(max(1, maxLine), Int.max - 1)
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
                if last - start > maxLine {
                    throw ErrorRecord(.invalidData, "line longer than \(maxLine) bytes (FEED_MAX_LINE)", line: number)
                }
                if last - start >= Self.handOverBytes {
                    let line = handOver(from: start, to: last, next: newline + 1)
                    if Self.isBlank(line) { continue }
                    return (line, number, false)
                }
                let line = buffer[start..<last]
                start = newline + 1
                if Self.isBlank(line) { continue }
                return (line, number, false)
            }
            // (A carriage return that may end the line is not counted yet.)
            if end - start > maxLine + 1 || (end - start == maxLine + 1 && buffer[end - 1] != 0x0D) {
                throw ErrorRecord(.invalidData, "line longer than \(maxLine) bytes (FEED_MAX_LINE)", line: number + 1)
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
            buffer = Self.grown(buffer, holding: end, to: buffer.count + max(buffer.count, readSize))
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

    /// Lines from this long on are handed over in their buffer.
    static let handOverBytes = 1 << 20

    /// The line `start..<last`, as the whole of the array it was read into;
    /// the bytes from `next` on go to a new buffer.
    private mutating func handOver(from start: Int, to last: Int, next: Int) -> ArraySlice<UInt8> {
        let rest = end - next
        var line = buffer
        buffer = Self.grown([], holding: 0, to: max(2 * readSize, rest + readSize))
        if rest > 0 {
            line.withUnsafeBufferPointer { from in
                buffer.withUnsafeMutableBufferPointer { to in _ = memcpy(to.baseAddress!, from.baseAddress! + next, rest) }
            }
        }
        self.start = 0
        end = rest
        // In place: the array is this line's alone now.
        line.removeSubrange(last...)
        if start > 0 { line.removeSubrange(..<start) }
        return line[...]
    }

    /// A buffer of `count` bytes whose first `held` are those of `buffer`;
    /// the rest is left as the allocator gives it (pages not yet touched
    /// take no memory until read into).
    private static func grown(_ buffer: [UInt8], holding held: Int, to count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { (room, initialized) in
            if held > 0 {
                buffer.withUnsafeBufferPointer { _ = memcpy(room.baseAddress!, $0.baseAddress!, held) }
            }
            initialized = count
        }
    }
}
