#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way a spool's file is made: a new regular file in a directory,
/// with no name, open for reading and writing, so that nothing is left
/// behind however the process ends.
public enum UnlinkedFile {
    #if os(Linux)
    /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), which Glibc's
    /// module does not bring to Swift.
    private static let temporaryFileFlag: Int32 = 0o20_000_000 | O_DIRECTORY
    #endif

    /// The file's descriptor, or -1 and the error. Made without a name
    /// (`O_TMPFILE`); where the file system has no such files, made as
    /// `directory/name.XXXXXX` and unlinked at once, one step of
    /// `InterruptGate` so that no SIGINT or SIGTERM comes between the two,
    /// which a SIGKILL still can (it left an empty file behind wherever the
    /// name was made first).
    public static func make(in directory: String, name: String) -> (fd: Int32, code: Int32) {
        #if os(Linux)
        var fd: Int32
        // O_EXCL: never linked into a name later either.
        repeat { fd = open(directory, temporaryFileFlag | O_RDWR | O_EXCL | O_CLOEXEC, 0o600) } while fd < 0 && errno == EINTR
        var code = errno
        #if DEBUG
        // For the tests of the other way: as on a file system without such files.
        if getenv("FEED_TEST_NO_O_TMPFILE") != nil, fd >= 0 { close(fd); fd = -1; code = EOPNOTSUPP }
        #endif
        if fd >= 0 {
            #if DEBUG
            TestPause.at("FEED_TEST_PAUSE_SPOOL_FILE")
            #endif
            return (fd, 0)
        }
        // Other than "this file system (or kernel) has none": the directory's own error.
        guard code == EOPNOTSUPP || code == EISDIR || code == EINVAL else { return (-1, code) }
        #endif
        var template = Array((directory + "/" + name + ".XXXXXX").utf8CString)
        return InterruptGate.run { () -> (Int32, Int32) in
            let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            let code = errno
            guard made >= 0 else { return (made, code) }
            _ = fcntl(made, F_SETFD, FD_CLOEXEC)
            #if DEBUG
            TestPause.at("FEED_TEST_PAUSE_SPOOL_FILE")
            #endif
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            return (made, 0)
        }
    }
}
