import EssentialFeed
#if canImport(CSignalFD)
import CSignalFD
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT, SIGTERM and SIGHUP (a closed terminal, a supervisor's hang-up),
/// and the other signals that end a process by default (SIGUSR1, SIGALRM…):
/// stop, commit nothing, clean up, exit 128 + the signal. A signal ignored
/// when the tool starts (SIGHUP under `nohup`) stays ignored.
///
/// The signals are blocked in every thread and taken by one thread that
/// waits for them, so the cleanup runs as ordinary code (not in a signal
/// handler): it first takes the output lock, so no record is left half
/// written, then runs the registered cleanups (removing temporary files),
/// then ends the process. SIGPIPE is ignored: a closed pipe shows as EPIPE.
public enum Signals {
    private final class Registry: @unchecked Sendable {
        let lock = Lock()
        var cleanups: [Int: @Sendable () -> Void] = [:]
        var nextToken = 0
        var output: Output?
        var terminating = false
        /// The process is about to run another program in its place
        /// (`handOver`): a signal is left pending for that program.
        var handingOver = false
        /// A job for the signals' thread (`runOnSignalThread`), and its result.
        var job: (@Sendable () -> Int32)?
        var jobResult: Int32?
        let jobDone = Condition()
    }

    /// The signals taken: set once by `install`, before any other thread
    /// runs, and only read after (read without a lock: the gate asks while
    /// it holds its own, which promises to take none the signal's thread takes).
    nonisolated(unsafe) private static var taken = sigset_t()
    /// The signals' thread, once started (set by `install`, read after).
    nonisolated(unsafe) private static var thread: pthread_t?

    private static let registry = Registry()

    /// Call first thing in `main`, before any thread is started.
    public static func install(output: Output) {
        signal(SIGPIPE, SIG_IGN)
        // Past a file-size limit (`ulimit -f`) a write fails with EFBIG, a store error, not a signal.
        signal(SIGXFSZ, SIG_IGN)
        var set = signals()
        registry.lock.withLock { registry.output = output }
        taken = set
        InterruptGate.isSignalPending = { Signals.isSignalPending }
        // And the thread's own: a job asked of it (`runOnSignalThread`).
        if jobSignal > 0 { sigaddset(&set, jobSignal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        // The thread waits on a signalfd until a signal is pending, marks
        // the process as ending, and only then takes the signal: a save that
        // asks `isEnding` between the two sees one or the other. With
        // sigwait, which takes the signal as it returns, a check made before
        // the mark saw neither, and a Ctrl-C on a pipe ending in a save
        // still committed part of a feed in 3 runs of 60 under load.
        #if canImport(CSignalFD)
        var descriptor = signalfd(-1, &set, Int32(SFD_CLOEXEC))
        #else
        var descriptor: Int32 = -1
        #endif
        #if DEBUG
        // Tests take the way without one (sigwait), as when it cannot be made.
        if getenv("FEED_TEST_NO_SIGNALFD") != nil, descriptor >= 0 { close(descriptor); descriptor = -1 }
        #endif
        let created = pthread_create(&thread, nil, { argument in
            Signals.takeTheSignals(descriptor: Int32(Int(bitPattern: argument) - 1))
        }, UnsafeMutableRawPointer(bitPattern: Int(descriptor) + 1))
        // Without the thread, nothing would ever take them: they stay as
        // they were, not blocked and pending for good (found in review).
        if created != 0 {
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            sigemptyset(&taken)
            InterruptGate.isSignalPending = nil
            if descriptor >= 0 { close(descriptor) }
        } else {
            Signals.thread = thread
        }
    }

    #if os(Linux)
    private static let jobSignal = feed_signal_job()
    #else
    private static let jobSignal: Int32 = 0  // no job signal: no signal is 0
    #endif

    /// Runs `job` on the signals' thread and waits for what it returns;
    /// nil when there is no such thread; ETIMEDOUT when it did not answer
    /// within 5 s (it is ending the process). One job at a time: callers
    /// wait their turn. For the confinement: Landlock restricts
    /// the thread that asks and those it starts after, and this thread,
    /// started first, kept every file (found by the hunt). It is woken by
    /// a signal of its own, sent to it alone (SIGRTMAX-1, blocked in every
    /// thread; one sent to the process from outside is taken and ignored).
    public static func runOnSignalThread(_ job: @escaping @Sendable () -> Int32) -> Int32? {
        #if os(Linux)
        guard let thread else { return nil }
        jobTurn.lock()
        defer { jobTurn.unlock() }
        let done = registry.jobDone
        done.lock()
        defer { done.unlock() }
        registry.job = job
        registry.jobResult = nil
        let sent = pthread_kill(thread, jobSignal)
        guard sent == 0 else { registry.job = nil; return sent }
        var waited = 0
        while registry.jobResult == nil, waited < 50 {
            _ = done.wait(seconds: 0.1)
            waited += 1
        }
        registry.job = nil
        return registry.jobResult ?? ETIMEDOUT
        #else
        return nil
        #endif
    }

    /// Taken by a caller of `runOnSignalThread` for its whole turn.
    private static let jobTurn = Lock()

    /// On the signals' thread: runs the job asked of it, if any.
    private static func runJob() {
        let done = registry.jobDone
        done.lock()
        let job = registry.job
        registry.job = nil
        done.unlock()
        guard let job else { return }
        let result = job()
        done.lock()
        registry.jobResult = result
        done.broadcast()
        done.unlock()
    }

    /// The signals taken: SIGINT, SIGTERM, and SIGHUP unless it was
    /// ignored when the process started; and SIGUSR1, SIGUSR2, SIGALRM,
    /// SIGVTALRM, SIGIO, SIGPWR, SIGSTKFLT and SIGXCPU, which end a process
    /// by default, where they still have that action: one of them ended a
    /// tool inside a write, and left a cut record in the pipe (SIGXCPU is
    /// the kernel's at a CPU time limit's soft bound, `ulimit -t` or
    /// systemd's LimitCPU=, sent so that a process may end cleanly before
    /// the hard one kills it: found by the hunt). A signal
    /// ignored or handled at the start (`nohup`, a profiler loaded first) is
    /// left as it was. Left too: SIGQUIT, which asks for a core to debug;
    /// SIGPROF, with which the Swift runtime's crash handler stops the other
    /// threads to show their stacks (USR1 and USR2, its first choices, are
    /// taken); the real-time signals, which no one sends a tool by chance.
    private static func signals() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        if disposition(SIGHUP) != 1 { sigaddset(&set, SIGHUP) }
        for signal in endingByDefault where disposition(signal) == 0 { sigaddset(&set, signal) }
        return set
    }

    /// SIGHUP and the signals `signals` takes only while they have their
    /// default action, which ends the process.
    private static let endingByDefault: [Int32] = {
        #if canImport(Glibc)
        [SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU]
        #else
        [SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGXCPU]
        #endif
    }()

    /// A signal's action as the process has it: 0 the default, 1 ignored,
    /// else a handler's address.
    private static func disposition(_ signal: Int32) -> Int {
        var action = sigaction()
        sigaction(signal, nil, &action)
        #if canImport(Glibc)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        #else
        return unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
        #endif
    }

    /// Registers work to do if the process is interrupted; returns a token
    /// for `remove`. Once a signal is ending the process (`isTerminating`),
    /// only a step of the gate under way registers one that still runs
    /// (`uninterrupted`); any other is too late and is not kept.
    @discardableResult
    public static func onInterrupt(_ cleanup: @escaping @Sendable () -> Void) -> Int {
        registry.lock.withLock {
            registry.nextToken += 1
            if !registry.terminating || InterruptGate.isInStep { registry.cleanups[registry.nextToken] = cleanup }
            return registry.nextToken
        }
    }

    public static func remove(_ token: Int) {
        registry.lock.withLock { _ = registry.cleanups.removeValue(forKey: token) }
    }

    /// True once a signal is ending the process: set as the gate is shut,
    /// so that a save that registers its clean-up later, outside a step of
    /// the gate (too late to be run), acts as if it had run.
    public static var isTerminating: Bool { registry.lock.withLock { registry.terminating } }

    /// Whether a signal taken is pending: sent, not yet taken by the
    /// signal's thread, which ends the process once it runs.
    public static var isSignalPending: Bool {
        var pending = sigset_t()
        sigemptyset(&pending)
        guard sigpending(&pending) == 0 else { return false }
        var taken = Signals.taken
        for signal in [SIGINT, SIGTERM, SIGHUP] + endingByDefault where sigismember(&taken, signal) == 1 && sigismember(&pending, signal) == 1 { return true }
        return false
    }

    /// Whether the process is ending at a signal, or is about to (one is
    /// pending): nothing is to be committed, nor a status other than the
    /// signal's given.
    public static var isEnding: Bool { isSignalPending || isTerminating }

    /// Runs `step` whole or not at all (`InterruptGate`): the signal's
    /// thread waits for a step under way (up to 2 s) before it runs the
    /// clean-ups, and once a signal is ending the process (`isTerminating`),
    /// the step is not run and the caller waits for the end.
    /// For making a temporary file and unlinking it: a signal between the
    /// two left the file's name behind (feed-map's spool, 1 run in 70 of
    /// a SIGTERM 8-11 ms after it started).
    public static func uninterrupted<T>(_ step: () -> T) -> T {
        InterruptGate.run(step)
    }

    /// Before the process runs another program in its place (`execve`, which
    /// keeps the signal mask and the pending signals): false when a signal
    /// is ending the process (the caller then waits for the end); else a
    /// signal that comes from now on stays pending for that program, until
    /// `handOverFailed`.
    public static func handOver() -> Bool {
        registry.lock.withLock {
            guard !registry.terminating && !isSignalPending else { return false }
            registry.handingOver = true
            return true
        }
    }

    /// The exec failed: this process takes its signals again (one that came
    /// meanwhile ends it now).
    public static func handOverFailed() {
        registry.lock.withLock { registry.handingOver = false }
    }

    /// For a thread that must do nothing more once the process is ending:
    /// waits for the signal's thread to end the process.
    public static func waitForTheEnd() -> Never {
        while true { sleep(60) }
    }

    /// The signals' thread: waits for one, marks the process as ending,
    /// takes the signal, and ends the process.
    private static func takeTheSignals(descriptor: Int32) -> Never {
        var set = signals()
        var signal: Int32 = 0
        var jobs = sigset_t()
        sigemptyset(&jobs)
        sigaddset(&jobs, jobSignal)
        #if DEBUG
        // A signal sent now stays pending until this thread goes on.
        TestPause.at("FEED_TEST_PAUSE_SIGNAL_THREAD")
        #endif
        guard descriptor >= 0 else {
            var waited = set
            sigaddset(&waited, jobSignal)
            while true {
                while sigwait(&waited, &signal) != 0 {}
                guard signal == jobSignal else { break }
                runJob()
            }
            #if DEBUG
            TestPause.at("FEED_TEST_PAUSE_SIGNAL_TAKEN")
            #endif
            let output = mark()
            if registry.lock.withLock({ registry.handingOver }) {
                // Sent again, for the program that follows (blocked in every
                // thread, it stays pending through the exec); taken back if
                // the exec fails. (A narrower window than a signalfd's: an
                // exec between sigwait and this still loses it.)
                kill(getpid(), signal)
                while registry.lock.withLock({ registry.handingOver }) { usleep(1_000) }
                while sigwait(&set, &signal) != 0 {}
            }
            terminate(signal, marked: output)
        }
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var now = timespec()
        while true {
            while poll(&ready, 1, -1) != 1 {}
            // A job asked of this thread is taken alone (a signal to end
            // the process stays pending, for the mark first).
            // Only a job, or nothing (EAGAIN), ends the wait: EINTR (a
            // handler that ran) is asked again.
            var taken: Int32 = -1
            #if os(Linux)
            repeat { taken = sigtimedwait(&jobs, nil, &now) } while taken < 0 && errno == EINTR
            #endif
            guard taken == jobSignal else { break }
            runJob()
        }
        #if DEBUG
        // Woken by a signal that is still pending.
        TestPause.at("FEED_TEST_PAUSE_SIGNAL_WOKEN")
        #endif
        let output = mark()
        // During a hand-over, the signal stays pending for the program
        // that follows (its own thread takes it at once); taken here, it
        // was gone if the exec got past this thread before its exit.
        while registry.lock.withLock({ registry.handingOver }) { usleep(1_000) }
        signal = take(from: descriptor, orWaitIn: &set)
        #if DEBUG
        // The signal taken, the process not yet ended.
        TestPause.at("FEED_TEST_PAUSE_SIGNAL_TAKEN")
        #endif
        terminate(signal, marked: output)
    }

    /// Reads the signal the descriptor reported (a signal sent to this
    /// thread alone is taken by sigwait instead).
    private static func take(from descriptor: Int32, orWaitIn set: inout sigset_t) -> Int32 {
        #if canImport(CSignalFD)
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while true {
            let count = read(descriptor, &info, size)
            if count == size { return Int32(bitPattern: info.ssi_signo) }
            if count < 0 && errno == EINTR { continue }
            break
        }
        #endif
        var signal: Int32 = 0
        while sigwait(&set, &signal) != 0 {}
        return signal
    }

    /// The process is ending: no step of the gate starts after this, and
    /// `isTerminating` is true.
    private static func mark() -> Output? {
        registry.lock.withLock { () -> Output? in
            registry.terminating = true
            // With the mark: a step that starts after the clean-ups are
            // chosen would make a file none of them removes.
            InterruptGate.shut()
            return registry.output
        }
    }

    private static func terminate(_ signal: Int32, marked output: Output?) -> Never {
        #if DEBUG
        TestPause.at("FEED_TEST_PAUSE_AFTER_MARK")
        #endif
        _ = output?.seal()
        InterruptGate.waitForTheStepUnderWay(seconds: 2)
        // Chosen once the step under way is done: a clean-up it registered
        // (of the temporary file it made) runs too; chosen at the mark, the
        // file of `image --output` made in between was left behind. Any
        // other registered after the mark is not kept (`onInterrupt`).
        let cleanups = registry.lock.withLock { Array(registry.cleanups.values) }
        for cleanup in cleanups { cleanup() }
        #if DEBUG
        TestPause.at("FEED_TEST_PAUSE_AFTER_CLEANUP")
        #endif
        _exit(128 + signal)
    }
}

extension Signals {
    /// How many cleanups are registered (for tests).
    static var registeredCleanups: Int { registry.lock.withLock { registry.cleanups.count } }
}
