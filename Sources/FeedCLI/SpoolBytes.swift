import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A spool's bytes as a `ByteSource`: its file's part, read with `pread`
/// (the file's offset is left alone), then the part still in memory.
public struct SpoolBytes: ByteSource {
    private let file: Int32
    private let fileCount: Int
    private let memory: [UInt8]
    private var offset = 0

    init(file: Int32, fileCount: Int, memory: [UInt8]) {
        self.file = file
        self.fileCount = fileCount
        self.memory = memory
    }

    public var count: Int { fileCount + memory.count }

    /// The file that holds the first `count` bytes, if any are in one.
    public var filePart: (file: Int32, count: Int)? { fileCount > 0 ? (file, fileCount) : nil }

    /// Goes on reading at byte `offset`.
    public mutating func skip(to offset: Int) {
        self.offset = min(max(offset, 0), count)
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ErrorRecord) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        if offset < fileCount {
            while true {
                let n = pread(file, base, min(buffer.count, fileCount - offset), off_t(offset))
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw ErrorRecord(.store, "cannot read a temporary file: \(Descriptor.describe(n < 0 ? errno : EIO))") }
                offset += n
                return n
            }
        }
        let start = offset - fileCount
        let n = min(buffer.count, memory.count - start)
        guard n > 0 else { return 0 }
        memory.withUnsafeBytes { base.copyMemory(from: $0.baseAddress! + start, byteCount: n) }
        offset += n
        return n
    }
}
