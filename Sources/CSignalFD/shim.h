/* signalfd(2), which the Swift module of glibc does not bring: the
   thread that takes SIGINT, SIGTERM, SIGHUP and the like waits on one with poll,
   so that a signal stays pending (and seen by sigpending) until that
   thread has marked the process as ending. */
#ifdef __linux__
#include <sys/signalfd.h>
#endif
#include <signal.h>

#ifdef __linux__
/* The signal that asks the signals' thread to run a job (its own
   confinement): SIGRTMAX - 1, a macro that calls into glibc. */
static inline int feed_signal_job(void) { return SIGRTMAX - 1; }
#endif
