import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The keys an `IDSet` holds, 16 bytes each in the order they came, read
/// back by that order: the last 4,096 in memory, the others in an unlinked
/// temporary file beside the store (made only once there are more), which
/// the system's page cache keeps as it can. So the set itself holds 8 bytes
/// an id, and reads a key back only to confirm a repeated one.
final class IDLog {
    typealias Key = (UInt64, UInt64)
    private var pending: [Key] = []
    /// Keys in the file.
    private var written = 0
    private var fd: Int32 = -1
    private let directory: String
    private let path: String
    static let pendingLimit = 4_096

    /// `directory`: where the temporary file goes; `path`: the store, named in errors.
    init(directory: String, path: String) {
        self.directory = directory
        self.path = path
        pending.reserveCapacity(Self.pendingLimit)
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    var count: Int { written + pending.count }

    func append(_ key: Key) throws(ErrorRecord) {
        if pending.count == Self.pendingLimit { try flush() }
        pending.append(key)
    }

    /// The key appended `ordinal`-th (from 0).
    func key(at ordinal: Int) throws(ErrorRecord) -> Key {
        if ordinal >= written { return pending[ordinal - written] }
        var key: Key = (0, 0)
        let size = MemoryLayout<Key>.stride
        let fd = fd
        if let code = withUnsafeMutableBytes(of: &key, { POSIXFiles.readAll(fd, into: $0, at: ordinal * size) }) { throw POSIXFiles.failure("read", path, code) }
        return key
    }

    private func flush() throws(ErrorRecord) {
        if fd < 0 { fd = try POSIXFiles.unlinkedTemporaryFile(in: directory, name: ".feed-cache-ids", path: path) }
        let size = MemoryLayout<Key>.stride
        let fd = fd, at = written * size
        if let code = pending.withUnsafeBytes({ POSIXFiles.writeAll(fd, $0, at: at) }) { throw POSIXFiles.failure("write", path, code) }
        written += pending.count
        pending.removeAll(keepingCapacity: true)
    }
}
