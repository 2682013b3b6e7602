import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
import EssentialFeed
import EssentialFeedInfra

/// Makes a store of one kind on a file; called from other threads too.
typealias StoreMaker = @Sendable (_ path: String, _ wait: Double) -> any FeedStore

/// A fresh directory under the system's temporary directory, removed with everything in it.
final class StoreTestDirectory {
    let path: String

    init() throws {
        var base = NSTemporaryDirectory()
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        var template = Array((base + "/essential-feed-store-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ErrorRecord(.store, "cannot create a temporary directory") }
        path = String(cString: made)
    }

    /// A path inside the directory (its parents not created).
    func file(_ name: String) -> String { path + "/" + name }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A value shared between test threads.
final class StoreTestBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withValue<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }

    var current: Value { withValue { $0 } }
}

enum StoreTestFiles {
    /// The permission bits of `path`, or nil when it does not exist.
    static func mode(_ path: String) -> Int? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return Int(st.st_mode & 0o7777)
    }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    static func bytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    static func write(_ bytes: [UInt8], to path: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }

    static func names(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// Runs `body` while the process may not write past byte `limit` of any
    /// file (RLIMIT_FSIZE): writes fail with EFBIG, as on a full disk, and
    /// root cannot bypass it. `body` must not report test failures itself.
    static func withFileSizeLimit(_ limit: UInt, _ body: () -> Void) {
        var old = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
        let oldHandler = signal(SIGXFSZ, SIG_IGN)
        var limited = old
        limited.rlim_cur = rlim_t(limit)
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limited)
        body()
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &old)
        signal(SIGXFSZ, oldHandler)
    }

    /// Runs `body(i)` for `i` in `0..<count`, each on a thread of its own, and waits for all.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                body(index)
                group.leave()
            }
            thread.start()
        }
        group.wait()
    }

    /// Seconds on a clock that never goes back.
    static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
