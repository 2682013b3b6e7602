#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one gate between a step that must run whole or not at all (making a
/// temporary file and unlinking it, a store's file created or renamed into
/// place) and the end of the process at a signal: the signal's thread
/// shuts it as it marks the process as ending (so that no step starts
/// after that), then waits for a step under way before it chooses the
/// clean-ups to run (one the step registered, of the file it made, among
/// them) and runs them; a step that comes once it is shut never runs, and
/// its thread waits for the end. In a process that never shuts it (no
/// signal handling, a test), steps simply run. Steps do not nest (one
/// plain mutex), and take no lock the signal's thread takes.
public enum InterruptGate {
    private final class State: @unchecked Sendable {
        let steps = Lock()
        let flag = Lock()
        var closed = false
        /// The thread running a step, while one runs (with `flag` locked).
        var stepper: pthread_t?
    }

    private static let state = State()

    /// Whether a signal that ends the process is taken but not yet acted
    /// on (set by the signal handling, once, at start-up): a step does not
    /// start then either. A Ctrl-C ends every tool of a pipe at once, and
    /// the save at its end, finding its input ended whole, committed part
    /// of a feed before its own signal's thread had run (found by the hunt).
    nonisolated(unsafe) public static var isSignalPending: (@Sendable () -> Bool)?

    /// Runs `step`, unless the process is ending: then waits for the end.
    public static func run<T>(_ step: () -> T) -> T {
        state.steps.lock()
        if isClosed || isSignalPending?() == true {
            state.steps.unlock()
            while true { sleep(60) }
        }
        state.flag.withLock { state.stepper = pthread_self() }
        defer {
            state.flag.withLock { state.stepper = nil }
            state.steps.unlock()
        }
        return step()
    }

    /// Whether the calling thread is running a step: a clean-up it
    /// registers now (of a file the step made) is one the signal's thread,
    /// which waits for the step before it chooses them, still runs.
    public static var isInStep: Bool {
        state.flag.withLock { state.stepper.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Shuts the gate for good (the signal's thread, as it marks the
    /// process as ending): no step starts from now on.
    public static func shut() {
        state.flag.withLock { state.closed = true }
    }

    /// Waits up to `seconds` for a step under way, and keeps the gate (the
    /// signal's thread, before its clean-ups): a step that does not end in
    /// time (a file made on a hung file system) does not hold the end up.
    public static func waitForTheStepUnderWay(seconds: Int) {
        _ = state.steps.lock(timeout: seconds)
    }

    static var isClosed: Bool { state.flag.withLock { state.closed } }

    /// Whether the process is ending at a signal, or is about to (one is
    /// pending): for a store that commits outside a step of the gate.
    public static var isEnding: Bool { isSignalPending?() == true || isClosed }
}
