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
        fd = try POSIXFiles.openCreatingPrivately(lockPath, O_RDWR)
        let deadline = POSIXFiles.monotonicSeconds() + wait
        var pause = 0.001
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else {
                close(fd)
                throw POSIXFiles.failure("lock", lockPath, code)
            }
            let remaining = deadline - POSIXFiles.monotonicSeconds()
            guard remaining > 0 else {
                close(fd)
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
