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

/// Terminal queries.
public enum Terminal {
    /// The width of the terminal on `fd`, or nil when it is not a terminal.
    public static func columns(_ fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
