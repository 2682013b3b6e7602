import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes of an open file from `offset` to `end`, read with `pread` (so that
/// several readers can walk one descriptor), optionally between a prefix and
/// a suffix (to read a run of array elements as an array).
struct FileRegionSource: ByteSource {
    let fd: Int32
    var offset: Int
    let end: Int
    var prefix: [UInt8]
    var suffix: [UInt8]
    /// The store path, for messages.
    let path: String

    init(fd: Int32, path: String, from offset: Int = 0, to end: Int = Int.max, prefix: [UInt8] = [], suffix: [UInt8] = []) {
        self.fd = fd
        self.path = path
        self.offset = offset
        self.end = end
        self.prefix = prefix
        self.suffix = suffix
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ErrorRecord) -> Int {
        guard buffer.count > 0 else { return 0 }
        if !prefix.isEmpty { return Self.take(&prefix, into: buffer) }
        while offset < end {
            let n = pread(fd, buffer.baseAddress, min(buffer.count, end - offset), off_t(offset))
            if n > 0 {
                offset += n
                return n
            }
            if n == 0 { break }
            if errno == EINTR { continue }
            throw POSIXFiles.failure("read", path)
        }
        offset = end
        if !suffix.isEmpty { return Self.take(&suffix, into: buffer) }
        return 0
    }

    private static func take(_ bytes: inout [UInt8], into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let n = min(bytes.count, buffer.count)
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: n) }
        bytes.removeFirst(n)
        return n
    }
}
