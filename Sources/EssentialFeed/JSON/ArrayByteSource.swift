/// An in-memory source, read in chunks of `chunkSize` (for tests).
public struct ArrayByteSource: ByteSource {
    let bytes: [UInt8]
    let chunkSize: Int
    var offset = 0

    public init(_ bytes: [UInt8], chunkSize: Int = 65_536) {
        self.bytes = bytes
        self.chunkSize = max(1, chunkSize)
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ErrorRecord) -> Int {
        let n = min(buffer.count, chunkSize, bytes.count - offset)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { all in
            buffer.baseAddress!.copyMemory(from: all.baseAddress! + offset, byteCount: n)
        }
        offset += n
        return n
    }
}
