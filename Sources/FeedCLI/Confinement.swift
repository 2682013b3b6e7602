import Sandbox
#if canImport(Glibc)
import Glibc
#endif

extension Tool {
    /// Confines the process to `rules` (see `Sandbox`), unless
    /// FEED_SANDBOX=off (a way to find out whether the confinement is what
    /// stops a tool, not a way to run without it). A kernel without Landlock
    /// or seccomp is said once, at debug level; the tool runs all the same.
    /// The rules are made only when they are put in place.
    public func confine(_ rules: @autoclosure () -> SandboxRules) {
        if environment["FEED_SANDBOX"] == "off" {
            diagnostics.debug("sandbox: off (FEED_SANDBOX=off)")
        } else {
            let rules = rules()
            var start = timespec(), end = timespec()
            clock_gettime(CLOCK_MONOTONIC, &start)
            let outcome = Sandbox.confine(rules, earlierThread: Signals.runOnSignalThread)
            clock_gettime(CLOCK_MONOTONIC, &end)
            if !outcome.missing.isEmpty { diagnostics.debug("sandbox: not confined by \(outcome.missing.joined(separator: "; "))") }
            let microseconds = (end.tv_sec - start.tv_sec) * 1_000_000 + (end.tv_nsec - start.tv_nsec) / 1000
            diagnostics.trace("sandbox: confined in \(microseconds) µs (Landlock ABI \(outcome.landlock.map(String.init) ?? "none"), seccomp \(outcome.seccomp ? "on" : "off"))")
        }
        #if DEBUG
        if environment["FEED_TEST_SANDBOX_PROBE"] == "1" { probe() }
        #endif
    }

    #if DEBUG
    /// For tests, in debug builds only (release builds have none of it):
    /// tries what a confined tool must not do, and says on standard error
    /// how each went: reading a file outside the rules, making a socket,
    /// setting up io_uring, starting a program.
    private func probe() {
        func said(_ what: String, _ result: Int32) {
            let text = result == 0 ? "allowed" : String(cString: strerror(result))
            diagnostics.error("sandbox probe: \(what): \(text)")
        }
        let file = environment["FEED_TEST_SANDBOX_PROBE_FILE"] ?? "/etc/shells"
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        said("open \(file)", fd >= 0 ? 0 : errno)
        if fd >= 0 { close(fd) }
        let onSignalThread = Signals.runOnSignalThread {
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { close(fd) }
            return fd >= 0 ? 0 : errno
        }
        said("open \(file) on the signals' thread", onSignalThread ?? ENOSYS)
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        said("socket", socketFD >= 0 ? 0 : errno)
        if socketFD >= 0 { close(socketFD) }
        said("io_uring_setup", Sandbox.probeIOUring())
        var child: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { for pointer in argv { free(pointer) } }
        let spawned = posix_spawn(&child, "/bin/true", nil, nil, argv, environ)
        if spawned == 0 {
            var status: Int32 = 0
            waitpid(child, &status, 0)
        }
        said("exec /bin/true", spawned)
        said("signal another process", kill(getppid(), 0) == 0 ? 0 : errno)
        let folder = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((folder + "/probe-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let madeFile = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        said("chown a file", made < 0 ? errno : chown(madeFile, getuid(), getgid()) == 0 ? 0 : errno)
        said("chmod a file 0644", made < 0 ? errno : chmod(madeFile, 0o644) == 0 ? 0 : errno)
        said("fchmod a file 04755", made < 0 ? errno : fchmod(made, 0o4755) == 0 ? 0 : errno)
        said("fchown a file", made < 0 ? errno : fchown(made, getuid(), getgid()) == 0 ? 0 : errno)
        said("fcntl F_SETOWN", made < 0 ? errno : fcntl(made, F_SETOWN, getpid()) == 0 ? 0 : errno)
        var byte: CChar = 0x41
        // On the file made (not a terminal: unconfined, ENOTTY, and nothing typed).
        said("ioctl TIOCSTI", made < 0 ? errno : ioctl(made, UInt(TIOCSTI), &byte) == 0 ? 0 : errno)
        if made >= 0 { close(made); unlink(madeFile) }
        // An abstract Unix socket a test listens on, outside the tool.
        if let name = environment["FEED_TEST_SANDBOX_PROBE_ABSTRACT"] {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let path = [UInt8(0)] + Array(name.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { room in for (index, byte) in path.enumerated() where index < room.count { room[index] = byte } }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
            let connected = fd < 0 ? -1 : withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) } }
            said("connect an abstract socket", connected == 0 ? 0 : errno)
            if fd >= 0 { close(fd) }
        }
    }
    #endif
}
