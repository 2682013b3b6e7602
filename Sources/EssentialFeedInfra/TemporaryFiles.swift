import EssentialFeed

/// Someone who cleans up when the process is interrupted (the tools' signal
/// handling): a store says what to remove or undo while a write transaction
/// runs (a temporary file of its own, a transaction to roll back).
public protocol TemporaryFiles: AnyObject {
    /// Until `done(token)`, an interrupt runs `cleanup` (e.g. rolling a
    /// transaction back) before the process ends; returns the token.
    func onInterrupt(_ cleanup: @escaping @Sendable () -> Void) -> Int
    /// The cleanup of `token` is no longer needed (its file renamed or removed).
    func done(_ token: Int)
    /// Runs `step` (creating a temporary file, or renaming it into place)
    /// under the lock an interrupt's cleanup takes and keeps until the
    /// process ends: once the cleanup has run, no temporary file appears and
    /// none is renamed over the store (the step waits for the end instead).
    func uninterrupted<T>(_ step: () -> T) -> T
    /// True once an interrupt is ending the process: a cleanup registered
    /// from then on may never run, so the caller acts as if it had.
    var isEnding: Bool { get }
}
