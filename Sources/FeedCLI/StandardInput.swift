import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
