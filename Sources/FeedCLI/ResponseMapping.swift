import EssentialFeed
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The body of `feed-map` and `comments-map`: response records in, one
/// record per mapped item out, or one `invalid_data` error per invalid
/// response. Streams: memory stays small whatever the size of a response.
public enum ResponseMapping {
    /// Runs a mapper over standard input. With `raw`, standard input is one
    /// bare payload taken as a status-200 response.
    public static func run(_ tool: Tool, kind: StreamingResponseMapper.Kind, raw: Bool) -> Never {
        tool.refuseTerminalInput()
        var reader = JSONStreamReader(source: StandardInput(output: tool.output))
        let sink = SpillingSink(tool: tool, hintsRaw: !raw)
        var mapper = StreamingResponseMapper(kind: kind)
        do throws(ErrorRecord) {
            if raw {
                try mapper.mapDocument(&reader, into: sink)
            } else {
                try mapper.mapLines(&reader, into: sink)
            }
        } catch {
            sink.discard()
            tool.fail(error)
        }
        tool.finish()
    }
}

/// Standard input as a byte source; flushes standard output before it waits.
public struct StandardInput: ByteSource {
    let output: Output?

    public init(output: Output?) {
        self.output = output
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ErrorRecord) -> Int {
        output?.flush()
        while true {
            let n = Glibc.read(0, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw ErrorRecord(.store, "cannot read standard input: \(Descriptor.describe(errno))")
        }
    }
}

/// Holds the records of the response being mapped until it is known valid:
/// in memory up to 2 MiB, then in an unlinked temporary file, so memory does
/// not grow with the size of a response. The file is written by a second
/// thread while the mapping goes on (two buffers: one filling, one being
/// written).
final class SpillingSink: MappedRecordSink {
    private let tool: Tool
    private var memory: [UInt8] = []
    private var file: Int32 = -1
    private var writer: SpillWriter?
    private var spilled = 0
    private let limit = 2 << 20
    /// Whether a first line that looks like a bare payload gets a hint of `--raw`.
    private var hintsRaw: Bool

    init(tool: Tool, hintsRaw: Bool = false) {
        self.tool = tool
        self.hintsRaw = hintsRaw
        memory.reserveCapacity(64 << 10)
    }

    deinit {
        if file >= 0 { close(file) }
    }

    func items(_ lines: UnsafeRawBufferPointer) {
        memory.append(contentsOf: lines)
        if memory.count >= limit { spill() }
    }

    private func spill() {
        if file < 0 {
            let directory = tool.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            var template = Array((directory + "/feed-map.XXXXXX").utf8CString)
            file = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard file >= 0 else {
                tool.fail(ErrorRecord(.store, "cannot create a temporary file in \(directory): \(Descriptor.describe(errno))"))
                tool.finish()
            }
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            writer = SpillWriter(file: file)
        }
        spilled += memory.count
        check(writer!.write(&memory))
    }

    /// Waits until everything handed to the writer is in the file.
    private func settle() {
        if let writer { check(writer.wait()) }
    }

    private func check(_ code: Int32) {
        guard code == 0 else {
            tool.fail(ErrorRecord(.store, "cannot write a temporary file: \(Descriptor.describe(code))"))
            tool.finish()
        }
    }

    func commit() {
        if spilled > 0 {
            settle()
            lseek(file, 0, SEEK_SET)
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            // Output is written whole records at a time: a signal that ends
            // the tool in the middle never leaves half a record behind. The
            // bytes after the last line break of a piece wait for the next.
            var pending: [UInt8] = []
            var left = spilled
            while left > 0 {
                let n = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, min($0.count, left)) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else {
                    tool.fail(ErrorRecord(.store, "cannot read a temporary file: \(Descriptor.describe(errno))"))
                    tool.finish()
                }
                left -= n
                guard let end = chunk[0..<n].lastIndex(of: 0x0A) else {
                    pending.append(contentsOf: chunk[0..<n])
                    continue
                }
                if pending.isEmpty {
                    tool.output.raw(chunk[0...end])
                } else {
                    pending.append(contentsOf: chunk[0...end])
                    tool.output.raw(pending)
                    pending.removeAll(keepingCapacity: true)
                }
                pending.append(contentsOf: chunk[(end + 1)..<n])
            }
            if !pending.isEmpty { tool.output.raw(pending) }
            resetFile()
        }
        if !memory.isEmpty {
            tool.output.raw(memory)
            memory.removeAll(keepingCapacity: true)
        }
    }

    func discard() {
        memory.removeAll(keepingCapacity: true)
        if spilled > 0 {
            settle()
            resetFile()
        }
    }

    /// Reuses the file from its start. It is not truncated: truncating a
    /// file with unwritten data makes some file systems (ext4) write it all
    /// to disk first; the unlinked file's pages are simply dropped at exit.
    private func resetFile() {
        lseek(file, 0, SEEK_SET)
        spilled = 0
    }

    func passThrough(_ line: ArraySlice<UInt8>, kind: ErrorKind) {
        tool.output.line(line)
        tool.record(kind)
    }

    func fail(_ error: ErrorRecord) {
        tool.fail(error)
        if hintsRaw, Self.looksLikeABarePayload(error) {
            tool.diagnostics.error("hint: use --raw for a bare payload (e.g. from curl)")
        }
        hintsRaw = false  // once, and only for the first failure
    }

    /// Whether the first failure says line 1 was the start of a document
    /// rather than a response record: `{` alone (a pretty-printed payload,
    /// as `curl` shows one) or an object without `status` (a compact one).
    static func looksLikeABarePayload(_ error: ErrorRecord) -> Bool {
        guard error.line == 1 else { return false }
        let reason = error.message
        return reason == "invalid JSON at byte 2: expected a string key"
            || reason.hasPrefix("invalid JSON at byte 2: unexpected end")
            || reason == "not a response record: no status"
            || reason == "not a JSON object"
    }
}

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
