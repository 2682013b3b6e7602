#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one gate between a step that must run whole or not at all (making a
/// temporary file and unlinking it) and the end of the process at a
/// signal: the signal's thread closes it before it ends the process,
/// waiting for a step that runs; a step that comes once it is closed never
/// runs, and its thread waits for the end. In a process that never closes
/// it (no signal handling, a test), steps simply run.
public enum InterruptGate {
    private final class State: @unchecked Sendable {
        let steps = Lock()
        let flag = Lock()
        var closed = false
    }

    private static let state = State()

    /// Runs `step`, unless the process is ending: then waits for the end.
    public static func run<T>(_ step: () -> T) -> T {
        state.steps.lock()
        if isClosed {
            state.steps.unlock()
            while true { sleep(60) }
        }
        defer { state.steps.unlock() }
        return step()
    }

    /// Closes the gate for good (the signal's thread, as the process ends),
    /// waiting up to `seconds` for a step that runs: one that does not end
    /// in time (a file made on a hung file system) does not hold the end up.
    public static func close(waiting seconds: Int) {
        state.flag.withLock { state.closed = true }
        _ = state.steps.lock(timeout: seconds)
    }

    static var isClosed: Bool { state.flag.withLock { state.closed } }
}
