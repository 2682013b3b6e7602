import EssentialFeed
import Dispatch
import FeedCLI
#if canImport(Glibc)
import Glibc
#endif

/// A loading indicator on standard error (a terminal): a turning line and a
/// text, redrawn ten times a second until `stop()` erases it.
final class Spinner: @unchecked Sendable {
    private let text: String
    private let lock = Lock()
    private var stopped = false
    private var frame = 0
    private let timer = DispatchSource.makeTimerSource(queue: .global())
    private static let frames = ["|", "/", "-", "\\"]

    init(text: String) {
        self.text = text
    }

    func start() {
        timer.schedule(deadline: .now(), repeating: .milliseconds(100))
        timer.setEventHandler { [self] in
            lock.withLock {
                guard !stopped else { return }
                write("\r" + Spinner.frames[frame % Spinner.frames.count] + " " + text)
                frame += 1
            }
        }
        timer.resume()
    }

    /// Erases the indicator; later calls do nothing.
    func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            timer.cancel()
            if frame > 0 { write("\r\u{1B}[K") }
        }
    }

    private func write(_ s: String) {
        let bytes = Array(s.utf8)
        _ = bytes.withUnsafeBytes { Descriptor.writeAll(2, $0) }
    }
}
