#include <sqlite3.h>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* Linux's sync_file_range (the C library declares it only for
   _GNU_SOURCE): flags 1 waits for write-out under way, 2 starts
   write-out, 4 waits for it to end. 0 where there is no such call. */
static inline int feed_sync_file_range(int fd, long long offset, long long bytes, unsigned int flags) {
#if defined(__linux__) && defined(SYS_sync_file_range)
    return (int)syscall(SYS_sync_file_range, fd, offset, bytes, flags);
#else
    (void)fd; (void)offset; (void)bytes; (void)flags;
    return 0;
#endif
}
