import EssentialFeed

/// Someone who cleans up when the process is interrupted (the tools' signal
/// handling): a store says when a temporary file of its own may exist, and
/// when it no longer does, or what to undo while a write transaction runs.
public protocol TemporaryFiles: AnyObject {
    /// `path` may be created from now on; returns a token for `done`.
    func mayCreate(_ path: String) -> Int
    /// Until `done(token)`, an interrupt runs `cleanup` (e.g. rolling a
    /// transaction back) before the process ends; returns the token.
    func onInterrupt(_ cleanup: @escaping @Sendable () -> Void) -> Int
    /// The file of `token` is gone (renamed or removed), or its cleanup is no longer needed.
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
