/* The kernel's confinement calls, for Sandbox: Landlock, seccomp and
   no_new_privs. syscall() and prctl() are variadic, which Swift cannot
   call, and the system call numbers and the audit architecture are
   macros of the kernel's headers: each is given here a typed name. */
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/audit.h>
#include <fcntl.h>

/* O_PATH: an open that only names a file (for a Landlock rule). */
static const int feed_open_path = __O_PATH; /* O_PATH, without _GNU_SOURCE */

static inline int feed_no_new_privs(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* landlock_create_ruleset; attr NULL and size 0 with flags 1 asks the ABI version. */
static inline long feed_landlock_create_ruleset(const void *attr, size_t size, uint32_t flags) {
    return syscall(__NR_landlock_create_ruleset, attr, size, flags);
}

/* landlock_add_rule, of type 1 (LANDLOCK_RULE_PATH_BENEATH). */
static inline long feed_landlock_add_path_rule(int ruleset, uint64_t access, int parent) {
    struct __attribute__((packed)) { uint64_t allowed_access; int32_t parent_fd; } rule = { access, parent };
    return syscall(__NR_landlock_add_rule, ruleset, 1, &rule, 0);
}

static inline long feed_landlock_restrict_self(int ruleset) {
    return syscall(__NR_landlock_restrict_self, ruleset, 0);
}

/* Installs a seccomp filter on every thread of the process (TSYNC). */
static inline long feed_seccomp_filter(const struct sock_filter *program, unsigned short length) {
    struct sock_fprog fprog = { length, (struct sock_filter *)program };
    return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fprog);
}

/* This architecture as seccomp sees it, and the calls a filter names. */
#if defined(__x86_64__)
static const uint32_t feed_audit_arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
static const uint32_t feed_audit_arch = AUDIT_ARCH_AARCH64;
#endif
static const uint32_t feed_nr_execve = __NR_execve;
static const uint32_t feed_nr_execveat = __NR_execveat;
static const uint32_t feed_nr_socket = __NR_socket;
static const uint32_t feed_nr_socketpair = __NR_socketpair;
static const uint32_t feed_nr_connect = __NR_connect;
static const uint32_t feed_nr_bind = __NR_bind;
static const uint32_t feed_nr_listen = __NR_listen;
static const uint32_t feed_nr_accept = __NR_accept;
static const uint32_t feed_nr_accept4 = __NR_accept4;
static const uint32_t feed_nr_ptrace = __NR_ptrace;
static const uint32_t feed_nr_process_vm_writev = __NR_process_vm_writev;
static const uint32_t feed_nr_process_vm_readv = __NR_process_vm_readv;
static const uint32_t feed_nr_io_uring_setup = __NR_io_uring_setup;
static const uint32_t feed_nr_io_uring_enter = __NR_io_uring_enter;
static const uint32_t feed_nr_io_uring_register = __NR_io_uring_register;

/* Calls on another process, and on files by path that Landlock does not
   govern (their owner, mode, times and extended attributes). A call this
   architecture does not have is a number no call has. */
#ifdef __NR_chmod
static const uint32_t feed_nr_chmod = __NR_chmod;
#else
static const uint32_t feed_nr_chmod = 0xFFFFFFFF;
#endif
#ifdef __NR_chown
static const uint32_t feed_nr_chown = __NR_chown;
#else
static const uint32_t feed_nr_chown = 0xFFFFFFFF;
#endif
#ifdef __NR_lchown
static const uint32_t feed_nr_lchown = __NR_lchown;
#else
static const uint32_t feed_nr_lchown = 0xFFFFFFFF;
#endif
#ifdef __NR_utime
static const uint32_t feed_nr_utime = __NR_utime;
#else
static const uint32_t feed_nr_utime = 0xFFFFFFFF;
#endif
#ifdef __NR_utimes
static const uint32_t feed_nr_utimes = __NR_utimes;
#else
static const uint32_t feed_nr_utimes = 0xFFFFFFFF;
#endif
#ifdef __NR_futimesat
static const uint32_t feed_nr_futimesat = __NR_futimesat;
#else
static const uint32_t feed_nr_futimesat = 0xFFFFFFFF;
#endif
static const uint32_t feed_nr_fchmodat = __NR_fchmodat;
static const uint32_t feed_nr_fchownat = __NR_fchownat;
static const uint32_t feed_nr_utimensat = __NR_utimensat;
static const uint32_t feed_nr_setxattr = __NR_setxattr;
static const uint32_t feed_nr_lsetxattr = __NR_lsetxattr;
static const uint32_t feed_nr_removexattr = __NR_removexattr;
static const uint32_t feed_nr_lremovexattr = __NR_lremovexattr;
/* Newer than some kernels' headers: the numbers every architecture shares. */
static const uint32_t feed_nr_fchmodat2 = 452;
static const uint32_t feed_nr_setxattrat = 463;
static const uint32_t feed_nr_removexattrat = 466;
static const uint32_t feed_nr_kill = __NR_kill;
static const uint32_t feed_nr_tkill = __NR_tkill;
static const uint32_t feed_nr_tgkill = __NR_tgkill;
static const uint32_t feed_nr_rt_sigqueueinfo = __NR_rt_sigqueueinfo;
static const uint32_t feed_nr_rt_tgsigqueueinfo = __NR_rt_tgsigqueueinfo;
static const uint32_t feed_nr_pidfd_send_signal = 424;
static const uint32_t feed_nr_pidfd_getfd = 438;
static const uint32_t feed_nr_process_madvise = 440;
static const uint32_t feed_nr_fsetxattr = __NR_fsetxattr;
static const uint32_t feed_nr_file_setattr = 469;
static const uint32_t feed_nr_fremovexattr = __NR_fremovexattr;
static const uint32_t feed_nr_fchmod = __NR_fchmod;
static const uint32_t feed_nr_fchown = __NR_fchown;
static const uint32_t feed_nr_fcntl = __NR_fcntl;
static const uint32_t feed_nr_ioctl = __NR_ioctl;

/* io_uring_setup with its parameters zeroed (the tests' probe): a ring
   made is closed at once. */
static inline long feed_io_uring_setup_probe(void) {
    unsigned char params[120] = {0}; /* struct io_uring_params */
    long fd = syscall(__NR_io_uring_setup, 1, params);
    if(fd >= 0) close((int)fd);
    return fd;
}
