#if DEBUG
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// For tests, in debug builds only (release builds have none of it): a
/// named moment at which a tool waits, so that a test can make an order of
/// events happen that timing alone makes rare. With the variable NAME set
/// to a path, the tool creates PATH.ready, then waits (up to 10 s) for
/// PATH.go.
public enum TestPause {
    public static func at(_ name: String) {
        guard let path = getenv(name).map({ String(cString: $0) }) else { return }
        close(open(path + ".ready", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600))
        for _ in 0..<1000 where access(path + ".go", F_OK) != 0 { usleep(10_000) }
    }
}
#endif
