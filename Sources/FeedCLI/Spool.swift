import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Records held until their fate is decided: the one spool of the tools.
/// The mappers hold a response's records until the response is known
/// valid; `feed-cache save --tee` and `load` hold lines until their
/// transaction is over. Kept in memory up to `memoryLimit`, then in an
/// unlinked temporary file (in `$TMPDIR`, else `/tmp`) that a second thread
/// writes while the tool goes on (two buffers: one filling, one being
/// written), so memory stays bounded whatever their size.
public final class Spool {
    private let directory: String
    private let name: String
    private let limit: Int
    private var memory: [UInt8] = []
    private var file: Int32 = -1
    private var writer: SpillWriter?
    private var spilled = 0

    /// `name` names the temporary file (`NAME.XXXXXX`).
    public init(name: String, environment: [String: String], memoryLimit: Int) {
        self.name = name
        directory = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        limit = memoryLimit
        memory.reserveCapacity(min(memoryLimit, 64 << 10))
    }

    deinit {
        if file >= 0 { close(file) }
    }

    public var isEmpty: Bool { memory.isEmpty && spilled == 0 }

    /// How many bytes are kept.
    public var count: Int { spilled + memory.count }

    /// The bytes kept, from the first, as a source to read (the file's,
    /// then those in memory); the spool must not change while it is read.
    public func bytes() throws(ErrorRecord) -> SpoolBytes {
        if spilled > 0 { try settle() }
        return SpoolBytes(file: file, fileCount: spilled, memory: memory)
    }

    /// Keeps whole records, each followed by its newline.
    public func append(_ lines: UnsafeRawBufferPointer) throws(ErrorRecord) {
        memory.append(contentsOf: lines)
        if memory.count >= limit { try spill() }
    }

    /// Keeps one record given without its newline.
    public func append<Line: Collection>(line: Line) throws(ErrorRecord) where Line.Element == UInt8 {
        memory.append(contentsOf: line)
        memory.append(0x0A)
        if memory.count >= limit { try spill() }
    }

    private func spill() throws(ErrorRecord) {
        if file < 0 {
            let (made, code) = UnlinkedFile.make(in: directory, name: name)
            guard made >= 0 else {
                // Out of descriptors is the process's shortage, not the disk's.
                throw ErrorRecord(code == EMFILE || code == ENFILE ? .resource : .store,
                                  "cannot create a temporary file in \(directory): \(Descriptor.describe(code))")
            }
            file = made
            writer = SpillWriter(file: file)
        }
        spilled += memory.count
        try check(writer!.write(&memory))
    }

    private func check(_ code: Int32) throws(ErrorRecord) {
        guard code == 0 else { throw ErrorRecord(.store, "cannot write a temporary file: \(Descriptor.describe(code))") }
    }

    /// Writes every record kept to `output`, in order, whole records at a
    /// time (so a signal that ends the tool never leaves half a record),
    /// one at a time when `output` writes per record; then holds nothing.
    public func write(to output: Output) throws(ErrorRecord) {
        try drain { (lines) throws(ErrorRecord) in
            guard output.writesPerRecord else { return output.raw(lines) }
            Self.split(lines, output.line)
        }
    }

    /// Calls `body` with every record kept, in order, each without its
    /// newline; then holds nothing.
    public func forEachLine(_ body: (ArraySlice<UInt8>) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        try drain { (lines) throws(ErrorRecord) in try Self.split(lines, body) }
    }

    private static func split<E: Error>(_ lines: ArraySlice<UInt8>, _ body: (ArraySlice<UInt8>) throws(E) -> Void) throws(E) {
        var start = lines.startIndex
        while start < lines.endIndex, let newline = lines[start...].firstIndex(of: 0x0A) {
            try body(lines[start..<newline])
            start = newline + 1
        }
    }

    /// Hands every record kept to `emit`, whole records at a time, in order;
    /// then holds nothing.
    private func drain(_ emit: (ArraySlice<UInt8>) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        if spilled > 0 {
            try settle()
            lseek(file, 0, SEEK_SET)
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            // The bytes after the last newline of a read wait for the next.
            var pending: [UInt8] = []
            var left = spilled
            while left > 0 {
                let n = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, min($0.count, left)) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw ErrorRecord(.store, "cannot read a temporary file: \(Descriptor.describe(errno))") }
                left -= n
                guard let end = chunk[0..<n].lastIndex(of: 0x0A) else {
                    pending.append(contentsOf: chunk[0..<n])
                    continue
                }
                if pending.isEmpty {
                    try emit(chunk[0...end])
                } else {
                    pending.append(contentsOf: chunk[0...end])
                    try emit(pending[...])
                    pending.removeAll(keepingCapacity: true)
                }
                pending.append(contentsOf: chunk[(end + 1)..<n])
            }
            if !pending.isEmpty { try emit(pending[...]) }
            rewind()
        }
        if !memory.isEmpty {
            try emit(memory[...])
            memory.removeAll(keepingCapacity: true)
        }
    }

    /// Drops every record kept.
    public func discard() throws(ErrorRecord) {
        memory.removeAll(keepingCapacity: true)
        if spilled > 0 {
            try settle()
            rewind()
        }
    }

    /// Waits until everything handed to the writer is in the file.
    private func settle() throws(ErrorRecord) {
        if let writer { try check(writer.wait()) }
    }

    /// Reuses the file from its start. It is not truncated: truncating a
    /// file with unwritten data makes some file systems (ext4) write it all
    /// to disk first; the unlinked file's pages are simply dropped at exit.
    private func rewind() {
        lseek(file, 0, SEEK_SET)
        spilled = 0
    }
}
