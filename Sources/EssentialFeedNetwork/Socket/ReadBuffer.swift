import EssentialFeed
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The bytes received and not yet consumed, in memory of its own; used by
/// one request's thread only.
final class ReadBuffer {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var start = 0
    private var end = 0
    /// Bytes received since the last reset.
    var received = 0

    init(capacity: Int = 16 << 10) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deallocate()
    }

    var available: Int { end - start }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base + start, count: end - start) }

    func reset() {
        start = 0
        end = 0
        received = 0
    }

    func consume(_ count: Int) {
        start += count
        if start == end {
            start = 0
            end = 0
        }
    }

    /// Receives more bytes after those buffered, growing up to `atMost`
    /// bytes held; false at the end of the stream. With `waitFirst`, polls
    /// before reading (a response just asked for is rarely there yet).
    func fill(_ fd: Int32, until deadline: Deadline, waitFirst: Bool = false, atMost: Int = 64 << 10) throws(HTTPFailure) -> Bool {
        if end == capacity, start > 0 {
            memmove(base, base + start, end - start)
            end -= start
            start = 0
        }
        if end == capacity, capacity < atMost {
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: min(capacity * 2, atMost))
            grown.update(from: base, count: end)
            base.deallocate()
            base = grown
            capacity = min(capacity * 2, atMost)
        }
        guard end < capacity else { throw HTTPResponseHead.tooLarge(SocketHTTPClient.headLimit) }
        if waitFirst { try SocketIO.wait(fd, for: Int32(POLLIN), until: deadline) }
        let count = try SocketIO.receive(fd, into: base + end, count: capacity - end, until: deadline)
        end += count
        received += count
        return count > 0
    }
}
