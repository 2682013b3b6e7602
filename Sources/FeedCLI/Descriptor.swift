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

    /// Why a copy from a file stopped: an errno of reading the file or of writing the output.
    public enum CopyFailure: Error, Equatable {
        case reading(Int32)
        case writing(Int32)
    }

    /// Copies `count` bytes of the regular file `source`, from `offset`,
    /// to `fd`, retrying on EINTR and short writes; the file's own offset
    /// is left alone. The bytes do not pass through the process where the
    /// system can send them itself (Linux's `sendfile`: the file's pages
    /// are handed to a pipe as they are, copied once into a file); where it
    /// cannot (an output opened to append, another system), the rest goes
    /// through a buffer with `pread` and `write`. Returns how many bytes went
    /// by `sendfile`; throws the first failure (a file shorter than asked:
    /// EIO).
    @discardableResult
    public static func copy(from source: Int32, offset: Int, count: Int, to fd: Int32) throws(CopyFailure) -> Int {
        var done = 0
        #if os(Linux)
        var position = off_t(offset)
        while done < count {
            let n = sendfile(fd, source, &position, min(count - done, 1 << 30))
            if n > 0 {
                done += n
                continue
            }
            if n == 0 { throw .reading(EIO) }
            if errno == EINTR { continue }
            // Not a pair sendfile takes (EINVAL: an output opened to append; ENOSYS): the rest through a buffer.
            if errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP { break }
            throw .writing(errno)
        }
        #endif
        let sent = done
        guard done < count else { return sent }
        var chunk = [UInt8](repeating: 0, count: min(count - done, 1 << 20))
        while done < count {
            let n = chunk.withUnsafeMutableBytes { pread(source, $0.baseAddress, min($0.count, count - done), off_t(offset + done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw .reading(n < 0 ? errno : EIO) }
            let code = chunk.withUnsafeBytes { writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            guard code == 0 else { throw .writing(code) }
            done += n
        }
        return sent
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
