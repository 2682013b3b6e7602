import EssentialFeed
import EssentialFeedInfra
import FeedCLI
#if canImport(Glibc)
import Glibc
#endif

/// Removes a store's temporary file when SIGINT or SIGTERM ends the process
/// while the file may exist.
final class InterruptCleanup: TemporaryFiles, @unchecked Sendable {
    static let shared = InterruptCleanup()

    func mayCreate(_ path: String) -> Int {
        Signals.onInterrupt { _ = unlink(path) }
    }

    func onInterrupt(_ cleanup: @escaping @Sendable () -> Void) -> Int {
        Signals.onInterrupt(cleanup)
    }

    func done(_ token: Int) {
        Signals.remove(token)
    }
}
