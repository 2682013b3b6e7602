import EssentialFeed
import FeedCLI
#if canImport(Glibc)
import Glibc
#endif

/// A loading indicator on standard error (a terminal): a turning line and a
/// text, redrawn ten times a second until `stop()` erases it. Drawn by a
/// thread of its own, not a Dispatch timer on a global queue, which a
/// confined tool may not use (see `Sandbox`).
///
/// Each frame ends with the cursor back at the line's start, so that what
/// another tool of the pipe writes there covers it (drawn after the text,
/// it was left before that tool's error message). It is drawn only while
/// the process is in the terminal's foreground: a job sent to the
/// background (`&`, Ctrl-Z then `bg`) drew over the user's command line,
/// and its erasing took what they had typed (found by the hunt).
final class Spinner: @unchecked Sendable {
    private let text: String
    private let condition = Condition()
    private var stopped = false
    private var frame = 0
    /// Whether a frame is on the terminal, to erase.
    private var drawn = false
    private static let frames = ["|", "/", "-", "\\"]

    init(text: String) {
        self.text = text
    }

    func start() {
        startThread { [self] in
            condition.lock()
            defer { condition.unlock() }
            while !stopped {
                if Spinner.isInTheForeground {
                    write("\r" + Spinner.frames[frame % Spinner.frames.count] + " " + text + "\r")
                    drawn = true
                }
                frame += 1
                condition.wait(seconds: 0.1)
            }
        }
    }

    /// Erases the indicator; later calls do nothing.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return }
        stopped = true
        condition.signal()
        if drawn && Spinner.isInTheForeground { write("\r\u{1B}[K") }
    }

    /// Whether this process's group is the terminal's foreground one.
    private static var isInTheForeground: Bool {
        let group = tcgetpgrp(2)
        return group >= 0 && group == getpgrp()
    }

    private func write(_ s: String) {
        let bytes = Array(s.utf8)
        _ = bytes.withUnsafeBytes { Descriptor.writeAll(2, $0) }
    }
}
