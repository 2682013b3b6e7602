import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written through a buffer at an offset of its own (`pwrite`), so
/// that a region already written can be moved. The first failure is kept and
/// thrown by every later call.
final class DocumentOutput {
    let fd: Int32
    private let path: String
    private var buffer: [UInt8] = []
    /// Where the buffer goes in the file.
    private var flushed = 0
    private static let bufferSize = 256 << 10

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        buffer.reserveCapacity(Self.bufferSize)
    }

    /// The file's size once flushed: where the next byte goes.
    var offset: Int { flushed + buffer.count }

    func append(_ bytes: [UInt8]) throws(ErrorRecord) {
        guard bytes.count < Self.bufferSize else {
            // A big piece (an image's data) goes where it belongs, not
            // through the buffer, which would keep its size.
            try flush()
            try write(bytes)
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) throws(ErrorRecord) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    func append(_ text: StaticString) throws(ErrorRecord) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
        if buffer.count >= Self.bufferSize { try flush() }
    }

    func flush() throws(ErrorRecord) {
        try write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes `bytes` where the file ends (the buffer written before them).
    private func write(_ bytes: [UInt8]) throws(ErrorRecord) {
        let at = flushed
        if let code = bytes.withUnsafeBytes({ POSIXFiles.writeAll(fd, $0, at: at) }) { throw POSIXFiles.failure("write", path, code) }
        flushed += bytes.count
    }

    /// Empties the file, to be written again from its start.
    func truncate() throws(ErrorRecord) {
        buffer.removeAll(keepingCapacity: true)
        flushed = 0
        guard ftruncate(fd, 0) == 0 else { throw POSIXFiles.failure("write", path) }
    }

    /// Replaces the first `oldLength` bytes of the file with `prefix`, moving
    /// what follows them (a file-level `memmove`).
    func replacePrefix(of oldLength: Int, with prefix: [UInt8]) throws(ErrorRecord) {
        try flush()
        let rest = flushed - oldLength
        let shift = prefix.count - oldLength
        if shift != 0 && rest > 0 {
            let chunkSize = 1 << 20
            let chunk = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 16)
            defer { chunk.deallocate() }
            // Moving forward (toward the end): copy from the back; backward: from the front.
            var moved = 0
            while moved < rest {
                let size = min(chunkSize, rest - moved)
                let from = shift > 0 ? oldLength + rest - moved - size : oldLength + moved
                if let code = POSIXFiles.readAll(fd, into: UnsafeMutableRawBufferPointer(start: chunk, count: size), at: from) {
                    throw POSIXFiles.failure("read", path, code)
                }
                if let code = POSIXFiles.writeAll(fd, UnsafeRawBufferPointer(start: chunk, count: size), at: from + shift) {
                    throw POSIXFiles.failure("write", path, code)
                }
                moved += size
            }
        }
        if let code = prefix.withUnsafeBytes({ POSIXFiles.writeAll(fd, $0, at: 0) }) { throw POSIXFiles.failure("write", path, code) }
        flushed += shift
        guard ftruncate(fd, off_t(flushed)) == 0 else { throw POSIXFiles.failure("write", path) }
    }
}
