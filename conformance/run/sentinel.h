/*
 * sentinel.h: nothing the harness started outlives it, not even when it is killed with SIGKILL
 * (an out-of-memory kill in CI), which no handler of its own can see.
 *
 * At the first SUT start the harness forks the sentinel, a small process that holds one end
 * of a socket pair whose other end only the harness has (close-on-exec, so no SUT inherits it).
 * The harness tells it each SUT's process group as the SUT starts and as it is reaped. When
 * its end reaches end of file, because the harness is gone however it ended, the sentinel kills
 * every group still listed, and every process whose environment carries the mark the harness
 * gave its SUTs (which also finds a SUT's child that left its group with setsid), then exits.
 * The sentinel ignores SIGINT, SIGTERM and SIGHUP: a Ctrl-C meant for the harness must not take
 * away the one process that cleans up after it.
 */
#ifndef OCK_SENTINEL_H
#define OCK_SENTINEL_H

#include <sys/types.h>

/* ock__sentinel_mark starts the sentinel once per process and returns the "NAME=VALUE" variable
 * to add to each SUT's environment, or NULL when no sentinel could be started (the run goes on
 * without one). Thread-safe. */
const char *ock__sentinel_mark(void);

/* ock__sentinel_stop: the run is over and every SUT reaped; closes the harness's end and waits for
 * the sentinel's last sweep and exit, so nothing of the run is left when the command returns.
 * A later SUT start forks a new sentinel. */
void ock__sentinel_stop(void);

/* ock__sentinel_pid: the sentinel's pid, or -1 before it started. It is a child of the harness
 * that the orphan reaping must spare. */
pid_t ock__sentinel_pid(void);

/* ock__sentinel_watch / ock__sentinel_forget: a SUT's process group started / was reaped. */
void ock__sentinel_watch(pid_t pgid);
void ock__sentinel_forget(pid_t pgid);

#endif
