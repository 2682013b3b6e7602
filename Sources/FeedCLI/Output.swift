import EssentialFeed
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output for records: buffered, flushed only at record boundaries.
///
/// Records are buffered and written when the buffer passes 64 KiB, when
/// `flush()` is called (tools call it before they block waiting for input,
/// so a person watching a slow pipe sees each record as soon as it exists),
/// and after every record when standard output is a terminal.
///
/// A closed downstream (EPIPE) ends the process at once with status 0 and no
/// message. Any other write error prints a message and exits 74.
public final class Output: @unchecked Sendable {
    private let fd: Int32
    private let lock = Lock()
    private var buffer: [UInt8] = []
    private var writer = JSONWriter(capacity: 512)
    private let perRecord: Bool
    private let threshold: Int
    private let diagnostics: Diagnostics
    /// Whether standard output may take a file's bytes by `sendfile`, until
    /// it refuses them once.
    private var sendsFiles = true
    /// Bytes written so far, read without the lock by `seal`: a writer
    /// that holds the lock and still moves is let finish its record.
    private let written = Atomic<Int>(0)
    /// The most bytes one system call is asked to write, so that `written`
    /// moves while a long record goes into a slow pipe: a reader that
    /// takes less than this in 2 seconds counts as one that has stopped.
    static let slice = 64 << 10
    /// Set by `seal`: no record is begun after it (the writer that holds
    /// the lock finishes the one it is writing).
    private let sealing = Atomic<Bool>(false)
    /// Set by `finished`: the tool writes nothing more, and ends with its
    /// own status even if its reader goes now.
    private let done = Atomic<Bool>(false)

    public init(fd: Int32 = 1, diagnostics: Diagnostics, threshold: Int = 65_536) {
        self.fd = fd
        self.diagnostics = diagnostics
        self.threshold = threshold
        perRecord = Descriptor.isTerminal(fd)
        buffer.reserveCapacity(threshold + 4096)
    }

    /// Whether each record is written as soon as it is complete (standard
    /// output is a terminal).
    public var writesPerRecord: Bool { perRecord }

    /// Writes one record built by `build`, followed by a newline.
    public func record(_ build: (inout JSONWriter) -> Void) {
        acquire()
        defer { lock.unlock() }
        writer.reset()
        build(&writer)
        buffer.append(contentsOf: writer.bytes)
        buffer.append(0x0A)
        afterRecord()
    }

    /// Writes a line that is already one compact record (without its
    /// newline). A line as long as the buffer's bound (an image's record)
    /// goes out as it lies, after what is buffered, not copied first.
    public func line<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        acquire()
        defer { lock.unlock() }
        if bytes.count >= threshold, bytes.withContiguousStorageIfAvailable({ (line) -> Void in
            drain()
            write(UnsafeRawBufferPointer(line))
        }) != nil {
            buffer.append(0x0A)
            drain()
            return
        }
        buffer.append(contentsOf: bytes)
        buffer.append(0x0A)
        afterRecord()
    }

    /// Writes one record too large to hold, handed over in pieces by
    /// `produce` (the record's bytes, without its newline, through the
    /// stream it is given), then its newline. Nothing else (another record,
    /// a seal at a signal) comes between its pieces. A failure of `produce`
    /// while its pieces are all still buffered drops them; `produce` should
    /// not fail after that: a failure then leaves part of the record written.
    ///
    /// Once part of the record has been written, its tail and newline are
    /// written too before the lock is let go: a signal's seal, which takes
    /// the lock and ends the process with what is buffered unwritten, then
    /// never leaves the record cut.
    public func streamedRecord(_ produce: (RecordStream) throws(ErrorRecord) -> Void) throws(ErrorRecord) {
        acquire()
        defer { lock.unlock() }
        let stream = RecordStream(output: self)
        let mark = buffer.count
        do throws(ErrorRecord) {
            try produce(stream)
        } catch {
            if !stream.started { buffer.removeSubrange(mark...) }
            throw error
        }
        buffer.append(0x0A)
        if stream.started { drain() } else { afterRecord() }
    }

    /// The pieces of one record that `streamedRecord` writes, in order.
    public final class RecordStream {
        private let output: Output
        fileprivate var started = false

        fileprivate init(output: Output) {
            self.output = output
        }

        /// Writes the record's next bytes.
        public func write(_ piece: UnsafeRawBufferPointer) {
            if piece.count >= output.threshold {
                // A large piece goes out as it is, after what is buffered.
                output.drain()
                output.write(piece)
                started = true
                return
            }
            output.buffer.append(contentsOf: piece)
            if output.buffer.count >= output.threshold {
                output.drain()
                started = true
            }
        }

        /// Writes the record's next `count` bytes from `file` at `offset`
        /// without reading them here, when standard output takes them so
        /// (Linux's sendfile: into a file, a pipe, a terminal or /dev/null
        /// the kernel moves them, and one copy through this process is
        /// saved); false, with none of the file's bytes written (what was
        /// buffered before them is), when it does not (a file opened to
        /// append): then read them and `write` them.
        public func send(file: Int32, offset: Int, count: Int) -> Bool {
            #if os(Linux)
            guard output.sendsFiles else { return false }
            output.drain()
            var position = off_t(offset)
            let end = offset + count
            var sentAny = false
            while Int(position) < end {
                let sent = sendfile(output.fd, file, &position, min(Output.slice, end - Int(position)))
                if sent > 0 {
                    sentAny = true
                    started = true
                    output.written.add(sent, ordering: .relaxed)
                    continue
                }
                let code = sent == 0 ? EIO : errno
                if code == EINTR { continue }
                // Refused before its first byte (a file opened to append):
                // the file's bytes go the other way, from here on.
                if !sentAny, code == EINVAL || code == ENOSYS {
                    output.sendsFiles = false
                    return false
                }
                output.failed(code)
            }
            started = true
            return true
            #else
            return false
            #endif
        }
    }

    /// Writes raw bytes (for commands whose output is not records).
    public func raw<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        acquire()
        defer { lock.unlock() }
        buffer.append(contentsOf: bytes)
        if buffer.count >= threshold { drain() }
    }

    public func error(_ error: ErrorRecord) {
        record { error.reported.write(to: &$0) }
    }

    private func afterRecord() {
        if perRecord || buffer.count >= threshold { drain() }
    }

    public func flush() {
        acquire()
        defer { lock.unlock() }
        drain()
    }

    /// Ends the process at once and quietly (status 0) when standard
    /// output is a pipe and its reader goes, even while nothing is being
    /// written: a tool that may wait long between records (feed-fetch on a
    /// slow server) would otherwise learn it only at its next record,
    /// after the wait (`| head -1` ends it at once, as the contract says),
    /// which is when a write would have told it (EPIPE): not once the tool
    /// has written everything (`finished`: its status stands), nor while a
    /// signal ends it (128 + N stands). A thread of its own waits for it
    /// (`poll`); anything else (a file, a terminal, a socket, whose peer's
    /// close poll does not tell) is not watched.
    public func endWhenReaderLeaves() {
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFIFO else { return }
        let fd = fd
        _ = startThread { [self] in
            // No events asked: only the end of the reader (POLLERR) or a
            // closed descriptor (POLLNVAL) wakes it.
            var entry = pollfd(fd: fd, events: 0, revents: 0)
            while true {
                let ready = poll(&entry, 1, -1)
                if ready < 0, errno == EINTR { continue }
                guard ready > 0, entry.revents & Int16(POLLNVAL) == 0 else { return }
                guard entry.revents & Int16(POLLERR | POLLHUP) != 0 else { continue }
                // A signal pending too (a Ctrl-C ends the reader as well): its status.
                if done.load(ordering: .acquiring) || Signals.isEnding { return }
                _exit(0)
            }
        }
    }

    /// Says the tool writes nothing more (it is about to end with its
    /// status): a reader that goes now no longer ends it with 0.
    public func finished() {
        done.store(true, ordering: .releasing)
    }

    /// Holds the output lock for good, so no record is half written when the
    /// process ends from another thread. Returns false when the lock could not
    /// be had because the writer holding it wrote nothing for `seconds` (it
    /// is blocked on a downstream that stopped reading); a writer that
    /// moves, however slowly, finishes its record first.
    public func seal(timeout seconds: Int = 2) -> Bool {
        sealing.store(true, ordering: .releasing)
        var seen = written.load(ordering: .relaxed)
        while !lock.lock(timeout: seconds) {
            let now = written.load(ordering: .relaxed)
            if now == seen { return false }
            seen = now
        }
        return true
    }

    /// Takes the lock to write; once a seal has begun, never returns (the
    /// process is ending: no record is begun after the one being written).
    private func acquire() {
        lock.lock()
        guard sealing.load(ordering: .acquiring) else { return }
        lock.unlock()
        Signals.waitForTheEnd()
    }

    private func drain() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { write($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes `bytes` to the descriptor; ends the process on a closed
    /// downstream (0) or another write error (74).
    private func write(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let count = min(Self.slice, bytes.count - offset)
            let code = Descriptor.writeAll(fd, UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
            if code != 0 { failed(code) }
            offset += count
            written.add(count, ordering: .relaxed)
        }
    }

    /// Ends the process after a write error `code`: quietly (0) on a
    /// closed downstream, else with a message (74).
    private func failed(_ code: Int32) -> Never {
        // With a signal pending too (a Ctrl-C ends the reader as well), the
        // signal's status, not 0 (found in review).
        if code == EPIPE, Signals.isEnding { Signals.waitForTheEnd() }
        if code == EPIPE { _exit(0) }
        diagnostics.error("cannot write to standard output: \(Descriptor.describe(code))")
        _exit(ErrorKind.store.exitStatus)
    }
}
