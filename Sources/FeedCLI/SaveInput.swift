import EssentialFeed
#if canImport(FoundationEssentials)
import FoundationEssentials
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The feed image records a save reads, one at a time.
///
/// Error records are written through at once and their kind noted; an
/// invalid or truncated line is reported. Either makes the input rejected:
/// `next(_:)` then throws that first failure (`rejection`), so that the save's
/// transaction is rolled back, and `drain()` handles the rest of the input the
/// same way. With `tee`, the line of each image saved is kept (in a `Spool`)
/// to be written on once the save is over; lines that cannot be kept (no
/// room for the spool) fail the tee alone, not the save.
public final class SaveInput {
    private let tool: Tool
    private var lines: InputLines
    private let spool: Spool?
    /// With `tee`, why the lines could not be kept: then none is written on.
    private var teeFailure: ErrorRecord?
    /// Whether reading the input failed (said once: no read follows).
    private var unreadable = false
    /// A record read ahead: an image's, or a page record's line, kept for
    /// the tee when the images before it are (in input order).
    private enum Held {
        case image(JSONDocument, number: Int)
        case page([UInt8])
    }
    /// Records read ahead, before the store was opened.
    private var ahead: [Held?] = []
    private var aheadIndex = 0
    private var quick = FeedImageRecordLine()
    /// Whether the input has been read to its end.
    public private(set) var ended = false
    /// The first error record or invalid line met (already reported): then
    /// nothing may be saved.
    public private(set) var rejection: ErrorRecord?
    public var rejected: Bool { rejection != nil }
    /// The last page record met (feed-map's word on the page: its
    /// validators, or that it was not modified); page records are not images.
    public private(set) var page: PageRecord?

    public init(tool: Tool, tee: Bool) {
        self.tool = tool
        lines = InputLines(fd: tool.input, maxLine: tool.maxLine, flushing: tool.output)
        spool = tee ? Spool(name: "feed-cache", environment: tool.environment, memoryLimit: 1 << 20) : nil
    }

    /// Reads records ahead until about `limit` bytes of them are held, the
    /// input ends or it is rejected: a small feed is then saved in a
    /// transaction that never waits for its input. Returns how many images
    /// were read.
    public func readAhead(bytes limit: Int) -> Int {
        var held = 0, images = 0
        while held < limit, let record = read() {
            ahead.append(record)
            switch record {
            case .image(let document, _):
                held += 2 * document.bytes.count + 256
                images += 1
            case .page(let line):
                held += line.count + 256
            }
        }
        return images
    }

    /// Reads the next record (the records read ahead first) and passes its
    /// image to `add`; false at the end of the input. Throws `rejection` once
    /// the input is rejected, and what `add` throws. A line of a plain feed
    /// image record, as the tools write them, is read in place
    /// (`FeedImageRecordLine`); any other goes through a parsed document.
    public func next(_ add: (CachedImageText) throws(ErrorRecord) -> Bool) throws(ErrorRecord) -> Bool {
        while aheadIndex < ahead.count, let held = ahead[aheadIndex] {
            ahead[aheadIndex] = nil
            aheadIndex += 1
            switch held {
            case .image(let document, let number):
                try image(document, number, quickly: true, add)
                return true
            case .page(let line):
                keep(line[...])
            }
        }
        if !ahead.isEmpty {
            ahead = []
            aheadIndex = 0
        }
        while let (line, number, truncated) = nextLine() {
            if !truncated, let added = try quick.lend(line, to: add) {
                kept(added, line: line, number: number) { Self.id(of: try? RecordLine.parse(line, lineNumber: number)) }
                return true
            }
            guard let document = record(line, number, truncated) else { continue }
            try image(document, number, quickly: false, add)
            return true
        }
        if let rejection { throw rejection }
        return false
    }

    /// Passes the image of a record read as a document to `add`: read in
    /// place first when `quickly` (a record read ahead), else through
    /// `FeedImage(record:)`, which names what is wrong.
    private func image(_ document: JSONDocument, _ number: Int, quickly: Bool, _ add: (CachedImageText) throws(ErrorRecord) -> Bool) throws(ErrorRecord) {
        let added: Bool
        if quickly, let result = try quick.lend(document.bytes[...], to: add) {
            added = result
        } else {
            let image: FeedImage
            do throws(ErrorRecord) {
                image = try FeedImage(record: document)
            } catch {
                let located = error.on(line: number)
                tool.fail(located)
                rejection = located
                throw located
            }
            added = try CachedImageText.lending(image, to: add)
        }
        kept(added, line: document.bytes[...], number: number) { Self.id(of: document) }
    }

    /// Keeps the line of an image saved (with `tee`), or says that its id was skipped.
    private func kept(_ added: Bool, line: ArraySlice<UInt8>, number: Int, id: () -> String) {
        if added {
            keep(line)
        } else {
            tool.diagnostics.debug("save: " + InputLocation.prefix(line: number) + "id \(id()) is already in the feed; skipped")
        }
    }

    /// Keeps `line` to write on (with `tee`), until a line cannot be kept.
    private func keep(_ line: ArraySlice<UInt8>) {
        guard let spool, teeFailure == nil else { return }
        do throws(ErrorRecord) {
            try spool.append(line: line)
        } catch {
            teeFailure = error
        }
    }

    private static func id(of document: JSONDocument?) -> String {
        guard let document else { return "" }
        let text = document.member(document.root, "id").flatMap { document.string($0) } ?? ""
        return Identifiers.uuid(text)?.canonicalString ?? text
    }

    /// The next record read ahead; nil at the end of the input or once it is rejected.
    private func read() -> Held? {
        while let (line, number, truncated) = nextLine() {
            if let document = record(line, number, truncated, keepingPages: false) { return .image(document, number: number) }
            // Not an image, not rejected: a page record.
            if !rejected { return .page(Array(line)) }
        }
        return nil
    }

    /// The next line; nil at the end of the input or once it is rejected.
    private func nextLine() -> (line: ArraySlice<UInt8>, number: Int, truncated: Bool)? {
        guard !rejected, !ended else { return nil }
        do throws(ErrorRecord) {
            guard let next = try lines.next() else {
                ended = true
                return nil
            }
            return next
        } catch {
            tool.fail(error)
            rejection = error
            unreadable = true
            return nil
        }
    }

    /// The line parsed when it is a feed image record (or not one, for
    /// `FeedImage(record:)` to report); nil for a page record, kept (when
    /// `keepingPages`), and for an invalid line or an error record, which
    /// reject the input.
    private func record(_ line: ArraySlice<UInt8>, _ number: Int, _ truncated: Bool, keepingPages: Bool = true) -> JSONDocument? {
        guard let document = tool.parseRecord(line, number, truncated) else {
            rejection = ErrorRecord(.invalidData, "an invalid line", line: number)
            return nil
        }
        if let kind = RecordKind.errorKind(of: document) {
            tool.passOn(errorRecord: line, kind: kind)
            rejection = ErrorRecord(kind, "an error record on input", line: number)
            return nil
        }
        if RecordKind.isPage(document) {
            page = PageRecord(document)
            if keepingPages { keep(line) }
            return nil
        }
        return document
    }

    /// After a rejection: reads the rest of the input, writing error records
    /// through and reporting every invalid line, and keeps nothing.
    public func drain() {
        if rejection == nil { rejection = ErrorRecord(.invalidData, "the input was set aside") }
        ahead = []
        while !unreadable {
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
                tool.passOn(errorRecord: line, kind: kind)
                continue
            }
            if RecordKind.isPage(document) { continue }
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
    public func readToEndForTee() {
        var ids = Set<UUID>()
        let add = { (image: CachedImageText) throws(ErrorRecord) -> Bool in
            guard let id = Identifiers.uuid(bytes: image.id) else { return false }
            return ids.insert(id).inserted
        }
        do throws(ErrorRecord) {
            while try next(add) {}
        } catch {
            if rejected {
                drain()
            } else {
                tool.fail(error)
                rejection = error
            }
        }
    }

    /// With `tee`: writes on the lines kept, once the save is over, or the
    /// failure that kept them from being kept.
    public func writeOn() {
        guard let spool else { return }
        // The page records read ahead after the last image (all of them, for a page not modified).
        for case .page(let line)? in ahead[aheadIndex...] { keep(line[...]) }
        ahead = []
        aheadIndex = 0
        if let teeFailure { return tool.fail(teeFailure) }
        do throws(ErrorRecord) {
            try spool.write(to: tool.output)
        } catch {
            tool.fail(error)
        }
    }
}
