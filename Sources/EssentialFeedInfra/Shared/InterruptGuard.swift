import CSQLite
import EssentialFeed
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex that can also be waited for a bounded time.
final class InterruptGuard: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    /// Recursive: a body lent rows under the guard may call the transaction again.
    init() {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always) func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) func unlock() { pthread_mutex_unlock(mutex) }

    func lock(timeout seconds: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + Int(seconds.truncatingRemainder(dividingBy: 1) * 1e9)
        deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        return pthread_mutex_timedlock(mutex, &deadline) == 0
    }
}

/// A flag one thread raises and another reads (an atomic: no lock).
final class InterruptFlag: Sendable {
    private let value = Atomic<Bool>(false)

    func raise() { value.store(true, ordering: .sequentiallyConsistent) }
    var isRaised: Bool { value.load(ordering: .sequentiallyConsistent) }
}
