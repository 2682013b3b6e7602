#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Low-level descriptor helpers.
public enum Descriptor {
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Writes all of `bytes` to `fd`, retrying on EINTR and short writes.
    /// Returns 0 on success, else the errno.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return 0
    }

    /// The text of an errno value.
    public static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
