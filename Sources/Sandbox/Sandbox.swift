import CSandbox
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a tool may touch once it is confined: the files and folders it may
/// read, the folders it may write in, and which sockets it may use. Never
/// another program: no tool starts one.
public struct SandboxRules: Sendable, Equatable {
    public enum Network: Sendable, Equatable {
        /// No socket at all.
        case none
        /// Outgoing connections (a client): no socket that listens.
        case client
        /// The socket that listens, made before the process is confined,
        /// and the connections it takes (a server): no other socket, so
        /// none out (no connection, no datagram).
        case server
    }

    /// Files, and folders with everything beneath them, opened for reading.
    public var readable: [String]
    /// Folders in which files and folders may be read, written, created,
    /// renamed and removed (everything beneath them).
    public var writable: [String]
    public var network: Network
    /// Whom a file may be given to (`fchown`), as a process run as root
    /// gives a store's new files (SQLite's journal, the JSON store's file)
    /// to the store's owner, and `image --output`'s file to its owner; none:
    /// to no one.
    public var owners: [Owner]

    public struct Owner: Sendable, Equatable {
        public let user: UInt32
        public let group: UInt32

        public init(user: UInt32, group: UInt32) {
            self.user = user
            self.group = group
        }
    }

    public init(readable: [String] = [], writable: [String] = [], network: Network = .none, owners: [Owner] = []) {
        self.readable = readable
        self.writable = writable
        self.network = network
        self.owners = owners
    }

    /// What every tool reads once it runs: the time-zone data (a date shown
    /// or parsed in local time), and the temporary folder its spools
    /// write in ($TMPDIR, else /tmp).
    public static func base(environment: [String: String]) -> SandboxRules {
        var readable = ["/usr/share/zoneinfo", "/etc/localtime"]
        if let zones = environment["TZDIR"], !zones.isEmpty { readable.append(zones) }
        let temporary = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return SandboxRules(readable: readable, writable: [temporary])
    }

    /// `base`, and what a client that connects out reads: the resolver's
    /// files, the users' and groups' (libpq's default user name, and
    /// libcurl's .netrc without HOME, are the local user's, from
    /// getpwuid: every user but root, whom glibc knows without the file,
    /// was "local user with ID 101 does not exist", found by the hunt),
    /// TLS's configuration and certificate authorities, and the
    /// libraries both load while they run (NSS modules, OpenSSL's) with the
    /// loader's cache that finds them.
    public static func connecting(environment: [String: String]) -> SandboxRules {
        var rules = base(environment: environment)
        rules.network = .client
        rules.readable += [
            "/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/host.conf", "/etc/services",
            "/etc/passwd", "/etc/group",
            "/usr/lib/ssl", "/usr/share/ca-certificates", "/etc/crypto-policies",
            "/lib", "/lib64", "/usr/lib", "/usr/lib64", "/etc/ld.so.cache",
        ]
        rules.readable += certificateAuthorities
        return rules
    }

    /// The systems' stores of certificate authorities and TLS's
    /// configuration (Debian's, Red Hat's, Arch's, SUSE's), and not the
    /// rest of /etc/ssl or /etc/pki: their private folders hold servers'
    /// keys (found by the hunt). A default bundle or folder that is a link
    /// elsewhere (Arch's, NixOS's) has what it leads to too: https failed
    /// there with "error setting certificate file" (found by the hunt).
    static var certificateAuthorities: [String] {
        let stores = ["/etc/ssl/certs", "/usr/local/share/ca-certificates", "/etc/ssl/cert.pem", "/etc/ssl/openssl.cnf", "/etc/ssl/ct_log_list.cnf",
                      "/etc/pki/tls/certs", "/etc/pki/tls/cert.pem", "/etc/pki/tls/openssl.cnf", "/etc/pki/ca-trust",
                      "/etc/ca-certificates", "/var/lib/ca-certificates"]
        let defaults = ["/etc/ssl/certs", "/etc/ssl/certs/ca-certificates.crt", "/etc/ssl/cert.pem", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/pki/tls/cert.pem"]
        let leadTo = defaults.compactMap { path -> String? in
            guard let resolved = realpath(path, nil) else { return nil }
            defer { free(resolved) }
            let target = String(cString: resolved)
            return target == path ? nil : target
        }
        return stores + leadTo
    }
}

extension SandboxRules {
    /// The files that the symbolic links in `directory` lead to, outside
    /// the folders `readable` already gives (a rule on a folder does not
    /// cover what its links lead to, and a folder of certificates is links:
    /// /etc/ssl/certs' lead into /usr/share and /usr/local/share).
    ///
    /// A link is read once, not resolved whole for each: a link to a name
    /// in its own folder (a hash's, to a certificate's name) is that other
    /// entry, read in its turn, and a link elsewhere has its folder
    /// resolved once for all the links into it. `realpath` for each link
    /// of Debian's /etc/ssl/certs took 2,700 system calls, about a
    /// millisecond of every feed-fetch run with SSL_CERT_DIR set.
    public static func linkedFiles(in directory: String, beyond readable: [String]) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        let folder = dirfd(stream)
        // Compared byte by byte: `String.hasPrefix` compares characters
        // as Unicode does, and took most of the time here.
        let folders = readable.map(canonical).map { Array(($0.hasSuffix("/") ? $0 : $0 + "/").utf8) }
        func isCovered(_ path: String) -> Bool { folders.contains { path.utf8.starts(with: $0) } }
        let hereIsCovered = isCovered(canonical(directory) + "/")
        var resolvedFolders: [String: String] = [:]
        var files: Set<String> = []
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        while let entry = readdir(stream) {
            guard entry.pointee.d_type == DT_LNK || entry.pointee.d_type == DT_UNKNOWN else { continue }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != ".." else { continue }
            // Read by name in the open folder: no walk of its path for each.
            let length = buffer.withUnsafeMutableBytes { readlinkat(folder, name, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count - 1) }
            // Not a link (a file, when the type was unknown): the folder's rule covers it.
            guard length > 0 else { continue }
            let link = buffer[..<length]
            // A link whose last part is no name (`..`, `.`, a trailing `/`):
            // resolved whole, as it leads to a folder and not a file in one.
            let last = link.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).last ?? []
            let target: String
            if last.isEmpty || last.elementsEqual(".".utf8) || last.elementsEqual("..".utf8) {
                target = canonical(directory + "/" + name)
            } else if let slash = link.lastIndex(of: UInt8(ascii: "/")) {
                // A link into another folder: that folder resolved (once),
                // and the name in it, unless the name is a link again.
                let into = String(decoding: link[..<slash], as: UTF8.self), leaf = String(decoding: link[(slash + 1)...], as: UTF8.self)
                let from = into.isEmpty ? "/" : (into.hasPrefix("/") ? into : directory + "/" + into)
                let resolved: String
                if let known = resolvedFolders[from] {
                    resolved = known
                } else {
                    resolved = canonical(from)
                    resolvedFolders[from] = resolved
                }
                let joined = (resolved.hasSuffix("/") ? resolved : resolved + "/") + leaf
                var status = stat()
                target = lstat(joined, &status) == 0 && status.st_mode & S_IFMT != S_IFLNK ? joined : canonical(joined)
            } else {
                // A name in this folder: that entry, read in its turn when it is a link.
                guard !hereIsCovered else { continue }
                target = canonical(directory + "/" + name)
            }
            if !isCovered(target) { files.insert(target) }
        }
        return files.sorted()
    }

    /// `path` with its links resolved, absolute (as it stands when it cannot be).
    private static func canonical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// Confines the process to its rules, for good: `PR_SET_NO_NEW_PRIVS`, a
/// Landlock ruleset (files) and a seccomp filter (system calls), each where
/// the kernel has it. Called by a tool's composition root after start-up and
/// before it reads any input.
///
/// Landlock applies to the calling thread and to the threads it starts
/// from then on: a thread started before (the one that waits for signals)
/// is asked to restrict itself too (`earlierThread`); the seccomp filter
/// applies to every thread of the process.
///
/// A confined tool must not use Dispatch's global queues: libdispatch reads
/// /proc/<thread>/stat once a second to watch their threads, and stops the
/// process (SIGILL) when Landlock refuses it. A retry waits on a thread of
/// its own (EssentialFeedNetwork's `runAfter`), feed-view's indicator too.
public enum Sandbox {
    /// What was put in place, and what the kernel did not have.
    public struct Outcome: Sendable, Equatable {
        /// Landlock's ABI version, when a ruleset is in force.
        public var landlock: Int?
        public var seccomp = false
        public var noNewPrivileges = false
        /// Why a part is missing (for the debug log): a kernel without it.
        public var missing: [String] = []
    }

    /// A way to run a job on a thread started before the confinement, and
    /// wait for what it returns (0, or errno); nil when there is none.
    public typealias EarlierThread = (_ job: @escaping @Sendable () -> Int32) -> Int32?

    public static func confine(_ rules: SandboxRules, earlierThread: EarlierThread? = nil) -> Outcome {
        var outcome = Outcome()
        // Needed by both: no program started from here gains privileges.
        guard feed_no_new_privs() == 0 else {
            outcome.missing.append("no_new_privs: \(String(cString: strerror(errno)))")
            return outcome
        }
        outcome.noNewPrivileges = true
        switch landlock(rules, earlierThread: earlierThread) {
        case let .success(abi): outcome.landlock = abi
        case let .failure(reason): outcome.missing.append("Landlock: \(reason.text)")
        }
        switch seccomp(rules) {
        case .success: outcome.seccomp = true
        case let .failure(reason): outcome.missing.append("seccomp: \(reason.text)")
        }
        return outcome
    }

    #if DEBUG
    /// For the tests' probe: sets up an io_uring (closed at once); 0, or
    /// why not (errno).
    public static func probeIOUring() -> Int32 {
        feed_io_uring_setup_probe() >= 0 ? 0 : errno
    }
    #endif

    public struct Refusal: Error, Sendable, Equatable {
        public let text: String
    }

    // MARK: Landlock

    /// Landlock's rights on files, bit by bit, and the ABI that has each.
    private static let execute: UInt64 = 1 << 0, writeFile: UInt64 = 1 << 1, readFile: UInt64 = 1 << 2, readDirectory: UInt64 = 1 << 3
    private static let makeCharacterDevice: UInt64 = 1 << 6, makeBlockDevice: UInt64 = 1 << 11
    private static let refer: UInt64 = 1 << 13, truncate: UInt64 = 1 << 14, ioctlDevice: UInt64 = 1 << 15
    private static let scopeAbstractUnixSocket: UInt64 = 1 << 0

    /// Every right on files the kernel's ABI knows: each is refused unless a rule grants it.
    static func handledRights(abi: Int) -> UInt64 {
        var rights: UInt64 = (1 << 13) - 1
        if abi >= 2 { rights |= refer }
        if abi >= 3 { rights |= truncate }
        if abi >= 5 { rights |= ioctlDevice }
        return rights
    }

    private static func landlock(_ rules: SandboxRules, earlierThread: EarlierThread?) -> Result<Int, Refusal> {
        let abi = feed_landlock_create_ruleset(nil, 0, 1)
        guard abi >= 1 else { return .failure(Refusal(text: abi < 0 ? String(cString: strerror(errno)) : "ABI \(abi)")) }
        let handled = handledRights(abi: abi)
        // struct landlock_ruleset_attr: handled_access_fs, handled_access_net
        // (none: seccomp has the sockets) and, from ABI 6, scoped: no
        // connection to an abstract Unix socket made outside the tool (a
        // desktop's, a container runtime's: allowed before, found by the hunt).
        var attribute = (handled, UInt64(0), abi >= 6 ? Self.scopeAbstractUnixSocket : 0)
        let size = abi >= 6 ? MemoryLayout<(UInt64, UInt64, UInt64)>.size : MemoryLayout<UInt64>.size
        let ruleset = Int32(truncatingIfNeeded: feed_landlock_create_ruleset(&attribute, size, 0))
        guard ruleset >= 0 else { return .failure(Refusal(text: String(cString: strerror(errno)))) }
        defer { close(ruleset) }
        let written = handled & ~(execute | makeCharacterDevice | makeBlockDevice | ioctlDevice)
        for (paths, rights) in [(rules.readable, readFile | readDirectory), (rules.writable, written)] {
            for path in paths {
                // A path that is not there (or not reachable) has nothing to
                // grant. One not opened for another reason (no descriptor
                // left) would be refused to the tool, a rule dropped while the
                // others hold: no Landlock then, as on a kernel without it.
                let fd = open(path, feed_open_path | O_CLOEXEC)
                guard fd >= 0 else {
                    let code = errno
                    if [ENOENT, ENOTDIR, EACCES, ELOOP, ENAMETOOLONG].contains(code) { continue }
                    return .failure(Refusal(text: "\(path): \(String(cString: strerror(code)))"))
                }
                defer { close(fd) }
                var status = stat()
                guard fstat(fd, &status) == 0 else { return .failure(Refusal(text: "\(path): \(String(cString: strerror(errno)))")) }
                // A file takes only the rights on files.
                let isDirectory = status.st_mode & S_IFMT == S_IFDIR
                let granted = isDirectory ? rights : rights & (writeFile | readFile | truncate)
                guard feed_landlock_add_path_rule(ruleset, granted & handled, fd) == 0 else {
                    // A pipe or a socket (`NETRC=<(...)`): no file system
                    // Landlock governs, nothing to grant, and read all the
                    // same. It left Landlock out whole (found by the hunt).
                    if errno == EBADFD { continue }
                    return .failure(Refusal(text: "\(path): \(String(cString: strerror(errno)))"))
                }
            }
        }
        guard feed_landlock_restrict_self(ruleset) == 0 else { return .failure(Refusal(text: String(cString: strerror(errno)))) }
        // Landlock holds the calling thread and those it starts from now on:
        // a thread started before (the one that waits for signals) restricts
        // itself with the same rules, or it kept every file (found by the hunt).
        let shared = ruleset
        // Not answered (ETIMEDOUT: it is ending the process) is not confined.
        if let result = earlierThread?({ feed_no_new_privs() == 0 && feed_landlock_restrict_self(shared) == 0 ? 0 : errno }), result != 0 {
            return .failure(Refusal(text: "the signals' thread: \(String(cString: strerror(result)))"))
        }
        return .success(abi)
    }

    // MARK: seccomp

    /// The system calls refused, with EPERM: starting a program, reading
    /// or writing another process, and io_uring (none uses it, and the
    /// operations of a ring, a connect or a send among them, are no system
    /// calls a filter sees) always; sockets as `network` says; and what
    /// Landlock does not govern of files by path: their owner, times and
    /// extended attributes (a tool run as root, once taken over, could
    /// chown any file: found by the hunt). A descriptor's own (fchown,
    /// futimens) are the tool's files.
    static func refusedCalls(_ network: SandboxRules.Network) -> [UInt32] {
        let always = [feed_nr_execve, feed_nr_execveat, feed_nr_ptrace, feed_nr_process_vm_readv, feed_nr_process_vm_writev,
                      feed_nr_io_uring_setup, feed_nr_io_uring_enter, feed_nr_io_uring_register,
                      feed_nr_chown, feed_nr_lchown, feed_nr_fchownat, feed_nr_utime, feed_nr_utimes, feed_nr_futimesat,
                      feed_nr_setxattr, feed_nr_lsetxattr, feed_nr_removexattr, feed_nr_lremovexattr, feed_nr_setxattrat, feed_nr_removexattrat,
                      feed_nr_fsetxattr, feed_nr_fremovexattr, feed_nr_file_setattr,
                      feed_nr_tkill, feed_nr_pidfd_send_signal, feed_nr_pidfd_getfd, feed_nr_process_madvise]
        let making = [feed_nr_socket, feed_nr_socketpair, feed_nr_connect, feed_nr_bind, feed_nr_listen]
        switch network {
        case .none: return always + making + [feed_nr_accept, feed_nr_accept4]
        case .client: return always + [feed_nr_bind, feed_nr_listen, feed_nr_accept, feed_nr_accept4]
        case .server: return always + making
        }
    }

    /// The calls allowed only when an argument says so: a signal only to
    /// this process (its first argument, the process or thread group),
    /// not to another (any process, for root: found by the hunt); a mode
    /// set by path only to the owner's alone, as the tools set it (0600 a
    /// file, 0700 a folder; not 0666); a file's times only through its
    /// descriptor (`utimensat` without a path, as `futimens` calls it).
    /// Through a descriptor (any file a tool may read, as root): a mode
    /// without set-id, sticky or others' write bits; an owner only the
    /// store's or `--output`'s (`SandboxRules.owners`), or none; no extended attribute set;
    /// no signal for the descriptor's events sent elsewhere (`F_SETOWN`,
    /// `F_SETSIG`); no input pushed into a terminal (`TIOCSTI`,
    /// `TIOCLINUX`). Each was open to a tool taken over (found in review).
    enum Condition: Equatable {
        case ownProcess(argument: UInt32)
        case ownerOnlyMode(argument: UInt32)
        case noPath(argument: UInt32)
        case modeWithout(argument: UInt32, bits: UInt32)
        case owners([SandboxRules.Owner])
        case notOneOf(argument: UInt32, values: [UInt32])
    }

    static func conditionalCalls(owners: [SandboxRules.Owner] = []) -> [(UInt32, Condition)] {
        [(feed_nr_kill, .ownProcess(argument: 0)), (feed_nr_tgkill, .ownProcess(argument: 0)),
         (feed_nr_rt_sigqueueinfo, .ownProcess(argument: 0)), (feed_nr_rt_tgsigqueueinfo, .ownProcess(argument: 0)),
         (feed_nr_chmod, .ownerOnlyMode(argument: 1)), (feed_nr_fchmodat, .ownerOnlyMode(argument: 2)),
         (feed_nr_fchmodat2, .ownerOnlyMode(argument: 2)), (feed_nr_utimensat, .noPath(argument: 1)),
         (feed_nr_fchmod, .modeWithout(argument: 1, bits: 0o7002)), (feed_nr_fchown, .owners(owners)),
         (feed_nr_fcntl, .notOneOf(argument: 1, values: [8, 10, 15])),  // F_SETOWN, F_SETSIG, F_SETOWN_EX
         // TIOCSTI, TIOCLINUX, TIOCSCTTY, TIOCCONS; FIOSETOWN and SIOCSPGRP
         // (a socket's signals sent elsewhere, as F_SETOWN); FS_IOC_SETFLAGS
         // and its 32-bit twin (chattr +i).
         // FS_IOC_FSSETXATTR too (the same flags); TIOCVHANGUP, TIOCSETD.
         (feed_nr_ioctl, .notOneOf(argument: 1, values: [0x5412, 0x541C, 0x540E, 0x541D, 0x8901, 0x8902, 0x4008_6602, 0x4004_6602,
                                                         0x401C_5820, 0x5437, 0x5423]))]
    }

    /// The filter program: another architecture's calls (or x32's) refused,
    /// each refused call refused, each conditional call allowed as its
    /// condition says, everything else allowed. `process` is this process's id.
    static func program(refusing calls: [UInt32], conditional: [(UInt32, Condition)], process: UInt32) -> [sock_filter] {
        // Written with labels (a jump goes forward only), then each jump made
        // the count of instructions it skips.
        enum Target: Hashable { case next, allow, allowChecked, refuse, check(Int), skip(Int) }
        struct Instruction { var code: Int32; var k: UInt32; var whenTrue: Target = .next; var whenFalse: Target = .next }
        var code: [Instruction] = []
        var labels: [Target: Int] = [:]
        func load(_ offset: UInt32) { code.append(Instruction(code: BPF_LD | BPF_W | BPF_ABS, k: offset)) }
        func jump(_ test: Int32, _ k: UInt32, _ whenTrue: Target, _ whenFalse: Target) {
            code.append(Instruction(code: BPF_JMP | test | BPF_K, k: k, whenTrue: whenTrue, whenFalse: whenFalse))
        }
        func ret(_ value: UInt32) { code.append(Instruction(code: BPF_RET | BPF_K, k: value)) }
        let allow = UInt32(SECCOMP_RET_ALLOW), refuse = UInt32(SECCOMP_RET_ERRNO) | UInt32(EPERM)
        // seccomp_data: nr at 0, arch at 4, the arguments from 16, 8 bytes each (the low half first).
        func argument(_ index: UInt32) -> UInt32 { 16 + 8 * index }
        load(4)
        jump(BPF_JEQ, feed_audit_arch, .next, .refuse)
        load(0)
        jump(BPF_JGE, 0x4000_0000, .refuse, .next)
        for call in calls { jump(BPF_JEQ, call, .refuse, .next) }
        for (index, (call, _)) in conditional.enumerated() { jump(BPF_JEQ, call, .check(index), .next) }
        labels[.allow] = code.count
        ret(allow)
        for (index, (_, condition)) in conditional.enumerated() {
            labels[.check(index)] = code.count
            switch condition {
            case let .ownProcess(number):
                load(argument(number))
                jump(BPF_JEQ, process, .allowChecked, .refuse)
            case let .ownerOnlyMode(number):
                load(argument(number))
                jump(BPF_JEQ, 0o600, .allowChecked, .next)
                jump(BPF_JEQ, 0o700, .allowChecked, .refuse)
            case let .noPath(number):
                load(argument(number))
                jump(BPF_JEQ, 0, .next, .refuse)
                load(argument(number) + 4)
                jump(BPF_JEQ, 0, .allowChecked, .refuse)
            case let .modeWithout(number, bits):
                load(argument(number))
                jump(BPF_JSET, bits, .refuse, .allowChecked)
            case let .owners(owners):
                guard !owners.isEmpty else {
                    code.append(Instruction(code: BPF_JMP | BPF_JA, k: 0, whenTrue: .refuse))
                    break
                }
                // The user (argument 1) and the group (2): -1 (left as it
                // is), or one of the owners'.
                let users = [UInt32.max] + owners.map(\.user), groups = [UInt32.max] + owners.map(\.group)
                load(argument(1))
                for (place, user) in users.enumerated() {
                    // A match skips the compares left and goes on to the group.
                    jump(BPF_JEQ, user, .skip(users.count - 1 - place), place == users.count - 1 ? .refuse : .next)
                }
                load(argument(2))
                for (place, group) in groups.enumerated() {
                    jump(BPF_JEQ, group, .allowChecked, place == groups.count - 1 ? .refuse : .next)
                }
            case let .notOneOf(number, values):
                load(argument(number))
                for (place, value) in values.enumerated() {
                    jump(BPF_JEQ, value, .refuse, place == values.count - 1 ? .allowChecked : .next)
                }
            }
        }
        labels[.allowChecked] = code.count
        ret(allow)
        labels[.refuse] = code.count
        ret(refuse)
        return code.enumerated().map { index, instruction in
            func offset(_ target: Target) -> UInt8 {
                guard target != .next else { return 0 }
                if case let .skip(count) = target { return UInt8(count) }
                let distance = labels[target]! - index - 1
                precondition(distance >= 0 && distance <= 255, "a seccomp jump out of reach")
                return UInt8(distance)
            }
            // An unconditional jump (BPF_JA) goes as far as its k says.
            if instruction.code == BPF_JMP | BPF_JA {
                return sock_filter(code: UInt16(instruction.code), jt: 0, jf: 0, k: UInt32(offset(instruction.whenTrue)))
            }
            return sock_filter(code: UInt16(instruction.code), jt: offset(instruction.whenTrue), jf: offset(instruction.whenFalse), k: instruction.k)
        }
    }

    private static func seccomp(_ rules: SandboxRules) -> Result<Void, Refusal> {
        #if !(arch(x86_64) || arch(arm64))
        return .failure(Refusal(text: "an architecture the filter does not know"))
        #else
        let program = program(refusing: refusedCalls(rules.network), conditional: conditionalCalls(owners: rules.owners), process: UInt32(bitPattern: getpid()))
        let result = program.withUnsafeBufferPointer { feed_seccomp_filter($0.baseAddress, UInt16($0.count)) }
        return result == 0 ? .success(()) : .failure(Refusal(text: String(cString: strerror(errno))))
        #endif
    }
}
