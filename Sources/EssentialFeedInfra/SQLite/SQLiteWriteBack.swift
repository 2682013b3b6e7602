import CSQLite
import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Descriptors of database files for write-back (`sync_file_range`), one
/// per file (device and inode) for the whole process, shared by the
/// connections to it and closed when the last of them has closed: closing
/// any descriptor of a file drops every POSIX lock the process holds on it,
/// so one may never be closed while SQLite may hold a lock through another.
enum SQLiteWriteBack {
    private struct File: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private static let lock = Lock()
    nonisolated(unsafe) private static var descriptors: [File: (descriptor: Int32, users: Int)] = [:]

    /// A descriptor of the file at `path`, whose identity is `identity`
    /// (as `stat` gave it before SQLite opened it); -1 when it cannot be had.
    /// Each one given must be handed back with `release`.
    static func acquire(_ path: String, identity: (dev_t, ino_t)) -> Int32 {
        let file = File(device: UInt64(identity.0), inode: UInt64(identity.1))
        return lock.withLock {
            if let held = descriptors[file] {
                descriptors[file] = (held.descriptor, held.users + 1)
                return held.descriptor
            }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return -1 }
            var status = stat()
            // Another file by now (renamed over): not this one's.
            guard fstat(descriptor, &status) == 0, UInt64(status.st_dev) == file.device, UInt64(status.st_ino) == file.inode else {
                close(descriptor)
                return -1
            }
            descriptors[file] = (descriptor, 1)
            return descriptor
        }
    }

    /// Hands back a descriptor `acquire` gave for `identity`, once the
    /// connection that used it has closed.
    static func release(identity: (dev_t, ino_t)) {
        let file = File(device: UInt64(identity.0), inode: UInt64(identity.1))
        lock.withLock {
            guard let held = descriptors[file] else { return }
            if held.users > 1 {
                descriptors[file] = (held.descriptor, held.users - 1)
            } else {
                descriptors[file] = nil
                close(held.descriptor)
            }
        }
    }

    /// Waits for the pages of `descriptor`'s file whose write-back the last
    /// call started, then starts writing back the pages written since.
    static func writeBack(_ descriptor: Int32) {
        guard descriptor >= 0 else { return }
        _ = feed_sync_file_range(descriptor, 0, 0, waitForWriteBack)
        _ = feed_sync_file_range(descriptor, 0, 0, startWriteBack)
    }

    /// `sync_file_range`'s flags: wait for write-back under way; start it.
    private static let waitForWriteBack: UInt32 = 1, startWriteBack: UInt32 = 2
}
