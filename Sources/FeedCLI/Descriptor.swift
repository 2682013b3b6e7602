#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Low-level descriptor helpers.
public enum Descriptor {
    /// The soft limit on open files (`ulimit -n`); nil when unlimited or
    /// unknown.
    public static func openFileLimit() -> Int? {
        var files = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: files.rlim_cur)
    }

    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Gives each of descriptors 0, 1 and 2 that the caller closed (`<&-`,
    /// `>&-`) /dev/null, opened the other way round (standard input for
    /// writing, the outputs for reading): reading the input or writing an
    /// output still fails with EBADF, as closed, but no file the tool opens
    /// takes the number. SQLite refused a store that did (every command was
    /// 74), and a write meant for the output could have landed in it.
    /// Returns the descriptors that were closed.
    @discardableResult
    public static func fillClosedStandardStreams() -> Set<Int32> {
        var closed: Set<Int32> = []
        for fd in Int32(0)...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            closed.insert(fd)
            // The lowest number free, `fd`: those below it are open.
            let opened = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY)
            if opened >= 0 && opened != fd {
                dup2(opened, fd)
                close(opened)
            }
        }
        return closed
    }

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

    /// The pipe capacity the tools ask for on a pipe they read or write.
    public static let pipeCapacity: Int32 = 1 << 20

    /// Gives the pipe at `fd`, when it is one, a capacity of `pipeCapacity`
    /// (Linux's default is 64 KiB, and 1 MiB its default limit for users
    /// without privilege): the stages of a pipeline then hand each other
    /// a sixteenth as many pieces and wait on each other far less often
    /// (the 1M-item sandwich measured 3.3 -> 2.8 s). Anything else, a pipe
    /// already as large, or a refusal, leaves it as it is.
    public static func widenPipe(_ fd: Int32) {
        #if os(Linux)
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFIFO else { return }
        let getSize: Int32 = 1032, setSize: Int32 = 1031  // F_GETPIPE_SZ, F_SETPIPE_SZ
        let current = fcntl(fd, getSize)
        guard current >= 0, current < pipeCapacity else { return }
        _ = fcntl(fd, setSize, pipeCapacity)
        #endif
    }

    /// The text of an errno value.
    public static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
