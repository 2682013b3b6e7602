import EssentialFeed
import EssentialFeedPresentation
import FeedCLI

/// One of feed-view's formats: shows each record as it comes, then ends.
protocol RecordView: AnyObject {
    /// Writes what `document` shows; false for a record the view does not show.
    func show(_ document: JSONDocument, on output: Output) throws(ErrorRecord) -> Bool
    /// Writes the end of the view.
    func finish(on output: Output) throws(ErrorRecord)
    /// Notes an input line that shows nothing for a reason already said
    /// (not a record, or a record of no kind the view knows).
    func rejected(_ reason: String)
}

extension RecordView {
    func rejected(_ reason: String) {}
}

/// The text on a terminal (the default format).
final class TextView: RecordView {
    private var options: FeedViewRenderer.Options
    /// The terminal's width, when it sets the width: asked when the first
    /// record comes, not at the start (a terminal resized while the input
    /// was awaited got lines of its old width: found by the hunt).
    private var terminalWidth: (() -> Int?)?
    private var made: FeedViewRenderer?

    init(_ options: FeedViewRenderer.Options, terminalWidth: (() -> Int?)?) {
        self.options = options
        self.terminalWidth = terminalWidth
    }

    private var renderer: FeedViewRenderer {
        get {
            if let made { return made }
            if let width = terminalWidth?() { options.width = max(20, width) }
            let renderer = FeedViewRenderer(options: options)
            made = renderer
            return renderer
        }
        set { made = newValue }
    }

    func show(_ document: JSONDocument, on output: Output) -> Bool {
        guard let text = renderer.render(document) else { return false }
        output.raw(Array(text.utf8))
        return true
    }

    func finish(on output: Output) {
        output.raw(Array(renderer.finish().utf8))
    }
}

/// The HTML page, written as the records come.
final class PageView: RecordView {
    private var renderer: FeedPageRenderer

    init(_ renderer: FeedPageRenderer) { self.renderer = renderer }

    func show(_ document: JSONDocument, on output: Output) -> Bool {
        guard let record = ViewRecord(document) else { return false }
        output.raw(Array(renderer.render(record).utf8))
        return true
    }

    func finish(on output: Output) {
        output.raw(Array(renderer.finish().utf8))
    }
}

/// The Atom feed: its entries wait in a spool (memory, then an unlinked
/// temporary file) until the feed's date is known, then follow its head.
/// An input that is only error records, or lines that are no records,
/// gives no document at all (a valid empty feed would tell every reader
/// the feed is empty): `report` says the first error, and the tool exits
/// with its status.
final class AtomView: RecordView {
    private var renderer: FeedAtomRenderer
    private let spool: Spool
    private let report: (String) -> Void
    private var shown = 0
    private var firstError: String?
    /// Whether the spool failed (a full disk): the error was said, and
    /// no document is written (its head and tail were, with no entry
    /// between them, and the error said again: found by the hunt).
    private var spoolFailed = false

    init(_ renderer: FeedAtomRenderer, spool: Spool, report: @escaping (String) -> Void) {
        self.renderer = renderer
        self.spool = spool
        self.report = report
    }

    func show(_ document: JSONDocument, on output: Output) throws(ErrorRecord) -> Bool {
        guard let record = ViewRecord(document) else { return false }
        if case .error = record {
            if firstError == nil {
                firstError = document.member(document.root, "message").flatMap(document.string) ?? "an error record"
            }
        } else {
            shown += 1
        }
        if let entry = renderer.entry(record) {
            do throws(ErrorRecord) {
                try spool.append(line: entry.utf8.dropLast())  // its last newline
            } catch {
                spoolFailed = true
                throw error
            }
        }
        return true
    }

    func rejected(_ reason: String) {
        if firstError == nil { firstError = reason }
    }

    func finish(on output: Output) throws(ErrorRecord) {
        if spoolFailed { return }
        if shown == 0, let firstError {
            report("no feed written: the input held only errors: \(Secrets.redact(firstError))")
            return
        }
        // The spool's last writes, waited for before the head is written: a
        // write that failed (a full disk) fails the feed whole (with one
        // spill, only its reading found the failure, after the head: found
        // in review).
        _ = try spool.bytes()
        output.raw(Array(renderer.head().utf8))
        try spool.write(to: output)
        output.raw(Array(FeedAtomRenderer.tail.utf8))
    }
}
