#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import EssentialFeed

/// The few file system operations the stores need, on the C library alone
/// (no Foundation: tools start faster without it). Failures become `.store`
/// error records naming the path and the reason.
public enum POSIXFiles {
    /// `strerror` starting in lower case: `permission denied`.
    static func reason(_ code: Int32) -> String {
        var text = String(cString: strerror(code))
        if let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase ?? true {
            text = first.lowercased() + text.dropFirst()
        }
        return text
    }

    /// `cannot VERB PATH: REASON`.
    static func failure(_ verb: String, _ path: String, _ code: Int32 = errno) -> ErrorRecord {
        ErrorRecord(.store, "cannot \(verb) \(path): \(reason(code))")
    }

    /// The directory holding `path` (`dirname`).
    static func directory(of path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return "." }
        var dir = p[..<slash]
        while dir.count > 1, dir.hasSuffix("/") { dir = dir.dropLast() }
        return dir.isEmpty ? "/" : String(dir)
    }

    /// The status of `path` (following symbolic links), or nil when it does not exist.
    static func status(_ path: String) throws(ErrorRecord) -> stat? {
        var st = stat()
        if stat(path, &st) == 0 { return st }
        let code = errno
        if code == ENOENT { return nil }
        throw failure("open", path, code)
    }

    static func isDirectory(_ st: stat) -> Bool { (st.st_mode & S_IFMT) == S_IFDIR }

    /// Creates `directory` and its missing parents, each readable by its owner
    /// only (0700, whatever the umask). Existing directories are left as they are.
    static func makeDirectories(_ directory: String) throws(ErrorRecord) {
        if directory == "." || directory == "/" || directory.isEmpty { return }
        var st = stat()
        if stat(directory, &st) == 0 {
            guard isDirectory(st) else { throw failure("create directory", directory, ENOTDIR) }
            return
        }
        let missing = errno
        // ENOTDIR: a parent is not a directory; the recursion names which one.
        guard missing == ENOENT || missing == ENOTDIR else { throw failure("create directory", directory, missing) }
        try makeDirectories(self.directory(of: directory))
        if mkdir(directory, 0o700) == 0 {
            guard chmod(directory, 0o700) == 0 else { throw failure("create directory", directory) }
            return
        }
        let code = errno
        if code == EEXIST, let st = try status(directory), isDirectory(st) { return }
        throw failure("create directory", directory, code)
    }

    /// Creates `path` with mode 0600 (whatever the umask) unless it exists.
    /// Never opens an existing file: closing a descriptor of a database file
    /// would release every POSIX lock this process's SQLite connections hold on it.
    static func createPrivately(_ path: String) throws(ErrorRecord) {
        var fd: Int32
        repeat { fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) } while fd < 0 && errno == EINTR
        guard fd >= 0 else {
            let code = errno
            if code == EEXIST { return }
            throw failure("create", path, code)
        }
        let code: Int32? = fchmod(fd, 0o600) == 0 ? nil : errno
        close(fd)
        if let code { throw failure("create", path, code) }
    }

    /// Opens `path` with `flags`, creating it first with mode 0600 (whatever
    /// the umask) when it does not exist. An existing file keeps its mode.
    static func openCreatingPrivately(_ path: String, _ flags: Int32) throws(ErrorRecord) -> Int32 {
        while true {
            let fd = open(path, flags | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                if fchmod(fd, 0o600) != 0 {
                    let code = errno
                    close(fd)
                    throw failure("create", path, code)
                }
                return fd
            }
            let code = errno
            if code == EINTR { continue }
            guard code == EEXIST else { throw failure("create", path, code) }
            let existing = open(path, flags | O_CLOEXEC)
            if existing >= 0 { return existing }
            let again = errno
            // Removed in between: made again. A symbolic link to nothing
            // stays one (O_EXCL does not follow it): an error, not a loop
            // for ever (found in review).
            var link = stat()
            if again == ENOENT, lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK { throw failure("open", path, again) }
            if again == ENOENT || again == EINTR { continue }
            throw failure("open", path, again)
        }
    }

    /// A new temporary file in `directory`, already unlinked (nothing is left
    /// behind, however the process ends), open for reading and writing;
    /// `name` starts its name there, `path` (the store) is named in errors.
    static func unlinkedTemporaryFile(in directory: String, name: String, path: String) throws(ErrorRecord) -> Int32 {
        let (file, code) = UnlinkedFile.make(in: directory, name: name)
        guard file >= 0 else { throw ErrorRecord(.store, "cannot write \(path): cannot create a temporary file in \(directory): \(reason(code))") }
        return file
    }

    /// Whether `path` names the file open as `fd` (the same device and inode).
    static func isSameFile(_ fd: Int32, as path: String) -> Bool {
        var open = stat(), named = stat()
        guard fstat(fd, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// A clean-up for an interrupt that removes `path` only while it still
    /// names the file open as `fd` now (the same device and inode): by the
    /// time it runs, the name may be another process's file.
    static func removal(of path: String, whileItNames fd: Int32) -> @Sendable () -> Void {
        var open = stat()
        guard fstat(fd, &open) == 0 else { return {} }
        let (device, inode) = (open.st_dev, open.st_ino)
        return {
            var named = stat()
            if stat(path, &named) == 0, named.st_dev == device, named.st_ino == inode { _ = unlink(path) }
        }
    }

    /// The file a symbolic link at `path` points to, or `path` itself when it
    /// is not a link. A link to nothing yet gives the file it names (made by
    /// the first write), through links to links (at most 40, as the kernel).
    static func resolvingSymbolicLink(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return current }
            if let resolved = realpath(current, nil) {
                defer { free(resolved) }
                return String(cString: resolved)
            }
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &target, target.count - 1)
            guard count > 0 else { return current }
            let named = String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = named.hasPrefix("/") ? named : directory(of: current) + "/" + named
        }
        return current
    }

    /// The whole content of `file`, or nil when it does not exist; errors name `path`.
    static func readFile(_ file: String, named path: String) throws(ErrorRecord) -> [UInt8]? {
        var fd: Int32
        repeat { fd = open(file, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw failure("open", path, code)
        }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, isDirectory(st) { throw failure("read", path, EISDIR) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(max(Int(st.st_size), 0) + 1)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes.append(contentsOf: chunk[0..<n])
            } else if n == 0 {
                return bytes
            } else if errno != EINTR {
                throw failure("read", path)
            }
        }
    }

    /// Writes all of `bytes` to `fd`.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { all in whole(all.count) { done in write(fd, all.baseAddress! + done, all.count - done) } }
    }

    /// Writes all of `bytes` at `offset` of `fd` (`pwrite`); the errno of a
    /// failure, or nil.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int32? {
        whole(bytes.count) { done in pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
    }

    /// Fills `buffer` from `offset` of `fd` (`pread`); the errno of a
    /// failure (EIO for a file that ends first), or nil.
    static func readAll(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int32? {
        whole(buffer.count) { done in pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done)) }
    }

    /// Calls `io` with the bytes done so far until `count` are done, again
    /// after a short transfer or an interruption; the errno of a failure
    /// (EIO when nothing more comes), or nil.
    private static func whole(_ count: Int, _ io: (Int) -> Int) -> Int32? {
        var done = 0
        while done < count {
            let n = io(done)
            if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { return n < 0 ? errno : EIO }
        }
        return nil
    }

    /// Writes `bytes` to `path` whole or not at all, as a user's file is
    /// best replaced: to a temporary file beside it (`FILE.XXXXXX`, removed
    /// at an interrupt through `temporaryFiles`), fsynced, then renamed over
    /// it, the folder fsynced. A file replaced keeps its mode (and, for
    /// root, its owner); a new one gets 0666 less the umask, as `open` makes
    /// it. On failure the temporary file is removed and the file is as it
    /// was. A symbolic link is written through. A file its user may not
    /// write is refused (74), as `>` refuses it. Written in place instead,
    /// since no rename could keep what it is: a device, a FIFO or a file
    /// named through /dev or /proc (/dev/stdout, /dev/fd/3); a file with
    /// other links, or another user's; a link to nothing yet; and a file in
    /// a folder where no other can be made, or renamed over (sticky /tmp).
    public static func replaceAtomically(_ path: String, with bytes: [UInt8], temporaryFiles: (any TemporaryFiles)? = nil) throws(ErrorRecord) {
        /// Writes `target` in place (emptied first, made when it is not there).
        func inPlace(_ target: String) throws(ErrorRecord) {
            let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
            guard fd >= 0 else { throw failure("write", target) }
            defer { close(fd) }
            if let code = writeAll(fd, bytes) { throw failure("write", target, code) }
        }
        if path.hasPrefix("/dev/") || path.hasPrefix("/proc/") { return try inPlace(path) }
        var file = path
        var link = stat()
        let isLink = lstat(path, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK
        if isLink, let resolved = realpath(path, nil) {
            file = String(cString: resolved)
            free(resolved)
        }
        var existing = stat()
        let exists = stat(file, &existing) == 0
        if isLink, !exists { return try inPlace(path) }
        if exists {
            guard access(file, W_OK) == 0 else { throw failure("write", file) }
            if existing.st_mode & S_IFMT != S_IFREG || existing.st_nlink > 1 || (geteuid() != 0 && existing.st_uid != geteuid()) {
                return try inPlace(file)
            }
        }
        var template = Array((file + ".XXXXXX").utf8CString)
        var token: Int?
        let fd = { () -> Int32 in
            let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            #if DEBUG
            TestPause.at("FEED_TEST_PAUSE_OUTPUT_FILE")
            #endif
            if made >= 0, let temporaryFiles {
                let name = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                token = temporaryFiles.onInterrupt { _ = unlink(name) }
            }
            return made
        }
        let made = if let temporaryFiles { temporaryFiles.uninterrupted(fd) } else { fd() }
        // A folder where no other file can be made: the file, writable, in place.
        if made < 0, exists, errno == EACCES || errno == EROFS || errno == EPERM { return try inPlace(file) }
        guard made >= 0 else { throw failure("write", file) }
        defer { if let token { temporaryFiles?.done(token) } }
        _ = fcntl(made, F_SETFD, FD_CLOEXEC)
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var code: Int32?
        if exists {
            if fchmod(made, existing.st_mode & 0o7777) != 0 { code = errno }
            // Another's file, as root: theirs still (the confinement lets a
            // file be given to this file's owner).
            if geteuid() == 0 { _ = fchown(made, existing.st_uid, existing.st_gid) }
        } else {
            let mask = umask(0)
            umask(mask)
            if fchmod(made, 0o666 & ~mask) != 0 { code = errno }
        }
        if code == nil { code = writeAll(made, bytes) }
        if code == nil, fsync(made) != 0 { code = errno }
        if close(made) != 0, code == nil { code = errno }
        if code == nil {
            let move = { () -> Int32? in rename(temporary, file) == 0 ? nil : errno }
            // Not `?? move()`: a rename that succeeded gives nil, and would run again.
            if let temporaryFiles { code = temporaryFiles.uninterrupted(move) } else { code = move() }
        }
        if let code {
            _ = unlink(temporary)
            // Not to be renamed over (another's file in a sticky folder): in place.
            if exists, code == EPERM || code == EACCES { return try inPlace(file) }
            throw failure("write", file, code)
        }
        try syncDirectory(directory(of: file), for: file)
    }

    /// fsyncs a directory so that a rename in it survives a crash.
    static func syncDirectory(_ directory: String, for path: String) throws(ErrorRecord) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("write", path) }
        defer { close(fd) }
        // Some file systems cannot sync a directory (EINVAL): the rename is then as durable as they make it.
        if fsync(fd) != 0, errno != EINVAL { throw failure("write", path) }
    }

    /// Seconds on a clock that never goes back.
    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        var ts = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var rest = timespec()
        while nanosleep(&ts, &rest) != 0 && errno == EINTR { ts = rest }
    }

    /// The message of a store that stayed locked past the wait limit.
    static func busy(_ path: String, wait: Double) -> ErrorRecord {
        ErrorRecord(.busy, "\(path): store is busy: still locked by another process after waiting \(secondsText(wait)) s")
    }
}
