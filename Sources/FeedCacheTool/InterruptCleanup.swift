import EssentialFeed
import EssentialFeedInfra
import FeedCLI
#if canImport(Glibc)
import Glibc
#endif

/// Removes a store's temporary file when SIGINT or SIGTERM ends the process
/// while the file may exist.
///
/// The removal and a store's creation or rename of the file take one lock,
/// which the removal keeps: without it, the removal could run first (nothing
/// to remove yet) and the store create the file (or even commit) before the
/// process ended, leaving `PATH.tmp` behind (seen under ThreadSanitizer with a
/// SIGTERM 0.05 s into a save). A save whose file was registered after the
/// signal has no clean-up to wait for: the step sees the process ending and
/// waits for the end instead.
final class InterruptCleanup: TemporaryFiles, @unchecked Sendable {
    static let shared = InterruptCleanup()

    private let lock = Lock()

    func mayCreate(_ path: String) -> Int {
        Signals.onInterrupt { [lock] in
            // Kept: the process ends next. A step that does not end in time
            // (a rename on a hung file system) does not hold the end up.
            _ = lock.lock(timeout: 2)
            _ = unlink(path)
        }
    }

    /// Runs `step` unless the process is ending: then it waits for the end.
    /// The flag covers a save that registered its file after the signal's
    /// clean-ups were chosen (its own clean-up never runs); the lock, one
    /// that registered before (its clean-up waits for the step, then removes
    /// the file, and keeps the lock).
    func uninterrupted<T>(_ step: () -> T) -> T {
        lock.lock()
        if Signals.isTerminating {
            lock.unlock()
            Signals.waitForTheEnd()
        }
        defer { lock.unlock() }
        return step()
    }

    func onInterrupt(_ cleanup: @escaping @Sendable () -> Void) -> Int {
        Signals.onInterrupt(cleanup)
    }

    var isEnding: Bool { Signals.isTerminating }

    func done(_ token: Int) {
        Signals.remove(token)
    }
}
