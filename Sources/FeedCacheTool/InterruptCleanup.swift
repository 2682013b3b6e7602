import EssentialFeed
import EssentialFeedInfra
import FeedCLI
#if canImport(Glibc)
import Glibc
#endif

/// Removes a store's temporary file when SIGINT or SIGTERM ends the process
/// while the file may exist.
///
/// A store's creation or rename of the file is a step of `InterruptGate`,
/// which the signal's thread closes before it runs the removal: without
/// it, the removal could run first (nothing to remove yet) and the store
/// create the file (or even commit) before the process ended, leaving
/// `PATH.tmp` behind (seen under ThreadSanitizer with a SIGTERM 0.05 s into
/// a save). A step that comes once the gate is closed never runs: its
/// thread waits for the end.
final class InterruptCleanup: TemporaryFiles, @unchecked Sendable {
    static let shared = InterruptCleanup()

    /// Runs `step` unless the process is ending: then it waits for the end.
    func uninterrupted<T>(_ step: () -> T) -> T {
        Signals.uninterrupted(step)
    }

    func onInterrupt(_ cleanup: @escaping @Sendable () -> Void) -> Int {
        Signals.onInterrupt(cleanup)
    }

    var isEnding: Bool { Signals.isEnding }

    func done(_ token: Int) {
        Signals.remove(token)
    }
}
