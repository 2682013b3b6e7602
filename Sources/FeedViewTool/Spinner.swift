import EssentialFeed
import FeedCLI
#if canImport(Glibc)
import Glibc
#endif

/// A loading indicator on standard error (a terminal): a turning line and a
/// text, redrawn ten times a second until `stop()` erases it. Drawn by a
/// thread of its own, not a Dispatch timer on a global queue, which a
/// confined tool may not use (see `Sandbox`).
final class Spinner: @unchecked Sendable {
    private let text: String
    private let condition = Condition()
    private var stopped = false
    private var frame = 0
    private static let frames = ["|", "/", "-", "\\"]

    init(text: String) {
        self.text = text
    }

    func start() {
        startThread { [self] in
            condition.lock()
            defer { condition.unlock() }
            while !stopped {
                write("\r" + Spinner.frames[frame % Spinner.frames.count] + " " + text)
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
        if frame > 0 { write("\r\u{1B}[K") }
    }

    private func write(_ s: String) {
        let bytes = Array(s.utf8)
        _ = bytes.withUnsafeBytes { Descriptor.writeAll(2, $0) }
    }
}
