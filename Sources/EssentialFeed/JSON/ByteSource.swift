

/// Where a `JSONStreamReader` gets its bytes (standard input, or an array in tests).
public protocol ByteSource {
    /// Reads up to `buffer.count` bytes into `buffer`; 0 means the end of the stream.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ErrorRecord) -> Int
}
