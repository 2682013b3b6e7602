#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import EssentialFeed

/// An exclusive `flock` on a side lock file, taken with a bounded wait.
/// Released by `unlock()` or when the process ends, however it ends.
final class FileLock {
    private var fd: Int32

    /// Locks `lockPath` (created 0600 when missing) for the store at `storePath`,
    /// polling for up to `wait` seconds, then failing with `.busy`.
    init(_ lockPath: String, for storePath: String, wait: Double) throws(ErrorRecord) {
        self.lockPath = lockPath
        fd = try POSIXFiles.openCreatingPrivately(lockPath, O_RDWR)
        let deadline = POSIXFiles.monotonicSeconds() + wait
        var pause = 0.001
        var reopened = false
        while true {
            try acquire(storePath, wait: wait, deadline: deadline, pause: &pause)
            // The file locked is the one at the path still: one removed (or
            // replaced) after it was opened locks out nobody, so it is opened
            // and locked again (once, else within the wait).
            if isStillHeld { return }
            unlock()
            guard !reopened || POSIXFiles.monotonicSeconds() < deadline else { throw POSIXFiles.busy(storePath, wait: wait) }
            reopened = true
            fd = try POSIXFiles.openCreatingPrivately(lockPath, O_RDWR)
        }
    }

    private let lockPath: String

    /// Whether the lock file at its path is still the one locked: a lock
    /// file removed while it is held (by hand, a cleaner of old files)
    /// lets another writer in, so a writer looks before it commits.
    var isStillHeld: Bool { fd >= 0 && POSIXFiles.isSameFile(fd, as: lockPath) }

    private func acquire(_ storePath: String, wait: Double, deadline: Double, pause: inout Double) throws(ErrorRecord) {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else {
                unlock()
                throw POSIXFiles.failure("lock", lockPath, code)
            }
            let remaining = deadline - POSIXFiles.monotonicSeconds()
            guard remaining > 0 else {
                unlock()
                throw POSIXFiles.busy(storePath, wait: wait)
            }
            POSIXFiles.sleep(seconds: min(pause, remaining))
            pause = min(pause * 2, 0.05)
        }
    }

    func unlock() {
        guard fd >= 0 else { return }
        close(fd)  // releases the flock
        fd = -1
    }

    deinit { unlock() }
}
