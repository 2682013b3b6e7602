import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes buffers to a file on a thread of its own, one at a time, at the
/// file's current offset: `write` hands over a full buffer and gives back
/// an empty one (waiting while the previous buffer is still being written).
final class SpillWriter: @unchecked Sendable {
    private let file: Int32
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    /// The buffer being written, while `busy`; else an empty one to give back.
    private var pending: [UInt8] = []
    private var busy = false
    /// The first write error (an errno), kept.
    private var error: Int32 = 0

    init(file: Int32) {
        self.file = file
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        changed = .allocate(capacity: 1)
        changed.initialize(to: pthread_cond_t())
        pthread_cond_init(changed, nil)
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        // The thread holds the writer for the life of the process.
        let context = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<SpillWriter>.fromOpaque(context!).takeUnretainedValue().run()
            return nil
        }, context)
        if started != 0 {
            Unmanaged<SpillWriter>.fromOpaque(context).release()
            error = started
        }
    }

    /// Hands `buffer` over to be written and gives back an empty buffer;
    /// returns the first write error so far (0: none).
    func write(_ buffer: inout [UInt8]) -> Int32 {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while busy { pthread_cond_wait(changed, mutex) }
        guard error == 0 else { return error }
        swap(&pending, &buffer)
        busy = true
        pthread_cond_broadcast(changed)
        return 0
    }

    /// Waits until nothing is being written; returns the first write error (0: none).
    func wait() -> Int32 {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while busy { pthread_cond_wait(changed, mutex) }
        return error
    }

    /// Writes each buffer handed over, for the life of the process.
    private func run() {
        while true {
            pthread_mutex_lock(mutex)
            while !busy { pthread_cond_wait(changed, mutex) }
            pthread_mutex_unlock(mutex)
            // Only this thread touches `pending` while `busy`.
            let code = pending.withUnsafeBytes { Descriptor.writeAll(file, $0) }
            pending.removeAll(keepingCapacity: true)
            pthread_mutex_lock(mutex)
            if code != 0, error == 0 { error = code }
            busy = false
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
        }
    }
}
