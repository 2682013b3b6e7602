import EssentialFeed
import FeedCLI
#if canImport(FoundationEssentials)
import FoundationEssentials
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Standard input as NDJSON lines, pulled one at a time (a save reads them
/// inside its store transaction), in 64 KiB reads, holding no more than the
/// current line and one read. Lines are counted as `LineFramer` counts them
/// (blank ones included; a trailing `\r` removed). Standard output is
/// flushed before each read.
struct InputLines {
    private var buffer: [UInt8] = []
    /// Where the next line starts, and how far `buffer` holds bytes read.
    private var start = 0
    private var end = 0
    private var ended = false
    private var number = 0
    private let output: Output
    private static let readSize = 65_536

    init(output: Output) {
        self.output = output
        buffer = [UInt8](repeating: 0, count: 2 * Self.readSize)
    }

    /// The next non-blank line, its number and whether it was cut off (the
    /// last line, without a newline); nil at the end of the input.
    mutating func next() throws(ErrorRecord) -> (line: ArraySlice<UInt8>, number: Int, truncated: Bool)? {
        while true {
            let newline: Int? = buffer.withUnsafeBufferPointer { p in
                guard start < end, let found = memchr(p.baseAddress! + start, 0x0A, end - start) else { return nil }
                return p.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            if let newline {
                number += 1
                var last = newline
                if last > start && buffer[last - 1] == 0x0D { last -= 1 }
                let line = buffer[start..<last]
                start = newline + 1
                if line.isBlank { continue }
                return (line, number, false)
            }
            if ended {
                guard start < end else { return nil }
                number += 1
                let rest = buffer[start..<end]
                start = end
                if rest.isBlank { return nil }
                return (rest, number, true)
            }
            try fill()
        }
    }

    /// Reads more input after the bytes still held (moved to the front).
    private mutating func fill() throws(ErrorRecord) {
        if start > 0 {
            let held = end - start
            if held > 0 {
                buffer.withUnsafeMutableBufferPointer { p in
                    _ = memmove(p.baseAddress!, p.baseAddress! + start, held)
                }
            }
            start = 0
            end = held
        }
        if buffer.count - end < Self.readSize {
            buffer.append(contentsOf: repeatElement(0, count: max(buffer.count, Self.readSize)))
        }
        output.flush()
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { p in read(0, p.baseAddress! + end, p.count - end) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ErrorRecord(.store, "cannot read standard input: \(Descriptor.describe(errno))")
            }
            if n == 0 { ended = true } else { end += n }
            return
        }
    }
}

/// The feed image records a save reads, one at a time.
///
/// Error records are written through at once and their kind noted; an
/// invalid or truncated line is reported. Either makes the input rejected:
/// `next(_:)` then throws `SaveInput.rejection`, so that the save's
/// transaction is rolled back, and `drain()` handles the rest of the input the
/// same way. With `tee`, the line of each image saved is kept (in a `Spool`)
/// to be written on once the save is over.
final class SaveInput {
    /// What `next(_:)` throws once the input is rejected (already reported).
    static let rejection = ErrorRecord(.invalidData, "the input had errors")

    private let tool: Tool
    private var lines: InputLines
    private let spool: Spool?
    /// Records read ahead, before the store was opened.
    private var ahead: [(document: JSONDocument, number: Int)?] = []
    private var aheadIndex = 0
    /// Whether the input has been read to its end.
    private(set) var ended = false
    /// Whether an error record or an invalid line was met: nothing may be saved.
    private(set) var rejected = false

    init(tool: Tool, tee: Bool) {
        self.tool = tool
        lines = InputLines(output: tool.output)
        spool = tee ? Spool(tool: tool) : nil
    }

    /// Reads records ahead until about `limit` bytes of them are held, the
    /// input ends or it is rejected: a small feed is then saved in a
    /// transaction that never waits for its input. Returns how many were read.
    func readAhead(bytes limit: Int) -> Int {
        var held = 0
        while held < limit, let record = read() {
            ahead.append(record)
            held += 2 * record.document.bytes.count + 256
        }
        return ahead.count
    }

    /// Reads the next record (the records read ahead first) and passes its
    /// image to `add`; false at the end of the input. Throws `rejection` when
    /// the input is rejected, and what `add` throws.
    func next(_ add: (CachedImageText) throws(ErrorRecord) -> Bool) throws(ErrorRecord) -> Bool {
        let record: (document: JSONDocument, number: Int)
        if aheadIndex < ahead.count, let held = ahead[aheadIndex] {
            record = held
            ahead[aheadIndex] = nil
            aheadIndex += 1
        } else {
            if !ahead.isEmpty {
                ahead = []
                aheadIndex = 0
            }
            guard let read = read() else {
                if rejected { throw Self.rejection }
                return false
            }
            record = read
        }
        let added: Bool
        if let result = try FeedImageRecordText.lend(record.document, to: add) {
            added = result
        } else {
            let image: FeedImage
            do throws(ErrorRecord) {
                image = try FeedImage(record: record.document)
            } catch {
                tool.fail(error.on(line: record.number))
                rejected = true
                throw Self.rejection
            }
            added = try CachedImageText.lending(image, to: add)
        }
        if added {
            try spool?.append(record.document.bytes)
        } else {
            tool.diagnostics.debug("save: " + InputLocation.prefix(line: record.number) + "id \(Self.id(of: record.document)) is already in the feed; skipped")
        }
        return true
    }

    private static func id(of document: JSONDocument) -> String {
        let text = document.member(document.root, "id").flatMap { document.string($0) } ?? ""
        return Identifiers.uuid(text)?.canonicalString ?? text
    }

    /// The next record line parsed; nil at the end of the input or once it is rejected.
    private func read() -> (document: JSONDocument, number: Int)? {
        guard !rejected, !ended else { return nil }
        let next: (line: ArraySlice<UInt8>, number: Int, truncated: Bool)?
        do throws(ErrorRecord) {
            next = try lines.next()
        } catch {
            tool.fail(error)
            rejected = true
            return nil
        }
        guard let (line, number, truncated) = next else {
            ended = true
            return nil
        }
        guard let document = tool.parseRecord(line, number, truncated) else {
            rejected = true
            return nil
        }
        if let kind = RecordKind.errorKind(of: document) {
            tool.output.line(line)
            tool.record(kind)
            rejected = true
            return nil
        }
        return (document, number)
    }

    /// After a rejection: reads the rest of the input, writing error records
    /// through and reporting every invalid line, and keeps nothing.
    func drain() {
        rejected = true
        ahead = []
        while true {
            let next: (line: ArraySlice<UInt8>, number: Int, truncated: Bool)?
            do throws(ErrorRecord) {
                next = try lines.next()
            } catch {
                tool.fail(error)
                return
            }
            guard let (line, number, truncated) = next else { return }
            guard let document = tool.parseRecord(line, number, truncated) else { continue }
            if let kind = RecordKind.errorKind(of: document) {
                tool.output.line(line)
                tool.record(kind)
                continue
            }
            do throws(ErrorRecord) {
                _ = try FeedImage(record: document)
            } catch {
                tool.fail(error.on(line: number))
            }
        }
    }

    /// With `tee`, after the store failed: reads the rest of the input as a
    /// save would have (keeping the lines of valid records, each id once, or
    /// draining once rejected), so that the records can still be written on.
    /// The ids are collected here: the store cannot say which were saved.
    func readToEndForTee() {
        var ids = Set<UUID>()
        let add = { (image: CachedImageText) throws(ErrorRecord) -> Bool in
            guard let id = Identifiers.uuid(bytes: image.id) else { return false }
            return ids.insert(id).inserted
        }
        do throws(ErrorRecord) {
            while try next(add) {}
        } catch {
            if error == Self.rejection { drain() } else { tool.fail(error); rejected = true }
        }
    }

    /// With `tee`: writes on the lines kept, once the save is over.
    func writeOn() {
        guard let spool else { return }
        do throws(ErrorRecord) {
            try spool.replay(to: tool.output)
        } catch {
            tool.fail(error)
        }
    }
}

/// Lines kept until a transaction is over (`save --tee`, `load`): in memory
/// up to a limit, then in an unlinked temporary file (in `$TMPDIR`, else
/// `/tmp`), so that memory stays bounded whatever their size.
final class Spool {
    private let tool: Tool
    private var memory: [UInt8] = []
    private var file: Int32 = -1
    private var spilled = 0
    private let limit: Int

    init(tool: Tool, memoryLimit: Int = 1 << 20) {
        self.tool = tool
        limit = memoryLimit
        memory.reserveCapacity(min(memoryLimit, 64 << 10))
    }

    deinit {
        if file >= 0 { close(file) }
    }

    func append<Line: Collection>(_ line: Line) throws(ErrorRecord) where Line.Element == UInt8 {
        memory.append(contentsOf: line)
        memory.append(0x0A)
        if memory.count >= limit { try spill() }
    }

    private func spill() throws(ErrorRecord) {
        if file < 0 {
            let directory = tool.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            var template = Array((directory + "/feed-cache.XXXXXX").utf8CString)
            file = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard file >= 0 else {
                throw ErrorRecord(.store, "cannot create a temporary file in \(directory): \(Descriptor.describe(errno))")
            }
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        }
        let code = memory.withUnsafeBytes { Descriptor.writeAll(file, $0) }
        guard code == 0 else { throw ErrorRecord(.store, "cannot write a temporary file: \(Descriptor.describe(code))") }
        spilled += memory.count
        memory.removeAll(keepingCapacity: true)
    }

    /// Writes every line kept, one record each, in order: line by line when
    /// standard output is a terminal (each record flushed), else in blocks of
    /// whole lines.
    func replay(to output: Output) throws(ErrorRecord) {
        let perLine = Descriptor.isTerminal(1)
        // Each line kept ends in a newline and holds none. `pending`: the
        // start of a line cut by the end of a read.
        var pending: [UInt8] = []
        func write(_ bytes: ArraySlice<UInt8>) {
            guard let last = bytes.lastIndex(of: 0x0A) else {
                pending.append(contentsOf: bytes)
                return
            }
            var whole = bytes[bytes.startIndex...last]
            if !pending.isEmpty {
                let first = whole.firstIndex(of: 0x0A)!
                pending.append(contentsOf: whole[...first])
                emit(pending[...])
                pending.removeAll(keepingCapacity: true)
                whole = whole[(first + 1)...]
            }
            emit(whole)
            pending.append(contentsOf: bytes[(last + 1)...])
        }
        /// Whole lines, each with its newline.
        func emit(_ lines: ArraySlice<UInt8>) {
            guard perLine else { return output.raw(lines) }
            var start = lines.startIndex
            while start < lines.endIndex, let newline = lines[start...].firstIndex(of: 0x0A) {
                output.line(lines[start..<newline])
                start = newline + 1
            }
        }
        if spilled > 0 {
            lseek(file, 0, SEEK_SET)
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            var left = spilled
            while left > 0 {
                let n = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, min($0.count, left)) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw ErrorRecord(.store, "cannot read a temporary file: \(Descriptor.describe(errno))") }
                write(chunk[0..<n])
                left -= n
            }
            spilled = 0
        }
        write(memory[...])
        memory = []
    }
}

/// The image responses `save-images` reads, one at a time.
///
/// Error records are written through and invalid responses reported as
/// they are met, and skipped; an invalid or truncated line is reported and
/// makes the input untrusted (nothing may be stored), but reading goes on so
/// that every line is reported.
final class ImageInput {
    /// What a transaction's body throws once the input is untrusted (already reported).
    static let rejection = ErrorRecord(.invalidData, "the input had invalid lines")

    private let tool: Tool
    private var lines: InputLines
    /// False once an invalid or truncated line was met.
    private(set) var trusted = true
    /// Whether the input has been read to its end.
    private(set) var ended = false

    init(tool: Tool) {
        self.tool = tool
        lines = InputLines(output: tool.output)
    }

    /// The next valid image response's URL and data; nil at the end of the input.
    func next() -> (url: String, data: [UInt8])? {
        while !ended {
            let next: (line: ArraySlice<UInt8>, number: Int, truncated: Bool)?
            do throws(ErrorRecord) {
                next = try lines.next()
            } catch {
                tool.fail(error)
                trusted = false
                ended = true
                return nil
            }
            guard let (line, number, truncated) = next else {
                ended = true
                return nil
            }
            guard let document = tool.parseRecord(line, number, truncated) else {
                trusted = false
                continue
            }
            if let kind = RecordKind.errorKind(of: document) {
                tool.output.line(line)
                tool.record(kind)
                continue
            }
            do throws(ErrorRecord) {
                let response = try Response(record: document)
                guard let url = response.url else { throw ErrorRecord(.invalidData, "image response has no url") }
                return (url, try ImageDataMapper.map(response))
            } catch {
                tool.fail(error.on(line: number))
            }
        }
        return nil
    }

    /// Reads (and reports) the rest of the input, storing nothing.
    func drain() {
        while next() != nil {}
    }
}
