/*
 * sut.c: the harness's policy over the process runner (ock/process.h): the SUT as a shell
 * command, SIGINT counted when ock cancels it, and the orphans it leaves killed (see sut.h).
 */
#include "run/sut.h"
#include "run/sentinel.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "ock/caps.h"
#include "ock/process.h"
#include "ock/status.h"

/*
 * A SUT may fork a child that leaves its process group (setsid) and so escapes the group kill.
 * The harness is therefore a child subreaper: such orphans are reparented to it, and after each
 * SUT ends, every child of the harness that is not a live SUT is killed. The live SUTs are
 * registered under a lock that is also held across fork(), so a SUT being born is never taken
 * for an orphan.
 */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t live[OCK_MAX_SUT_LIVE];
static size_t n_live;

static void live_remove(pid_t pid) {
  pthread_mutex_lock(&live_lock);
  for (size_t i = 0; i < n_live; i++)
    if (live[i] == pid) {
      live[i] = live[--n_live];
      break;
    }
  pthread_mutex_unlock(&live_lock);
}

/* kill_if_orphan kills and reaps child pid when it is not a live SUT (nor the sentinel). Under
 * live_lock. */
static void kill_if_orphan(pid_t pid) {
  for (size_t i = 0; i < n_live; i++)
    if (live[i] == pid)
      return;
  if (pid == ock__sentinel_pid()) /* the harness's own child, not a SUT's */
    return;
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

/* reap_orphans kills and reaps every child of the harness that is not a live SUT. The children
 * are read from /proc/self/task/<tid>/children (each thread's own), not by scanning every
 * process of the machine. */
static void reap_orphans(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return;
  pthread_mutex_lock(&live_lock);
  struct dirent *de;
  while ((de = readdir(d))) {
    if (de->d_name[0] < '1' || de->d_name[0] > '9')
      continue;
    char path[128], buf[4096];
    snprintf(path, sizeof path, "/proc/self/task/%s/children", de->d_name);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (char *p = buf, *end; *p; p = end) {
      long pid = strtol(p, &end, 10);
      if (end == p)
        break;
      if (pid > 0)
        kill_if_orphan((pid_t)pid);
    }
  }
  pthread_mutex_unlock(&live_lock);
  closedir(d);
}

struct sut {
  ock_process *proc;
  double timeout_s;
  _Atomic int interrupts; /* SIGINTs sent to it */
  int waited;
};

/* track_fork, before fork(): takes live_lock, held across the fork so a SUT being born is never
 * taken for an orphan; refuses past OCK_MAX_SUT_LIVE children. */
static int track_fork(void *ctx) {
  (void)ctx;
  pthread_mutex_lock(&live_lock);
  if (n_live < OCK_MAX_SUT_LIVE)
    return 0;
  pthread_mutex_unlock(&live_lock);
  return -1;
}

/* track_forked, after fork(): lists the child in live, and gives live_lock back. */
static void track_forked(void *ctx, pid_t pid) {
  (void)ctx;
  if (pid > 0)
    live[n_live++] = pid;
  pthread_mutex_unlock(&live_lock);
}

/* with_mark: spec's environment additions and the sentinel's mark, as a new array (the strings
 * are borrowed); NULL when out of memory. */
static const char **with_mark(const char *const *env, const char *mark) {
  size_t n = 0;
  while (env && env[n])
    n++;
  const char **all = calloc(n + 2, sizeof *all);
  if (!all)
    return NULL;
  for (size_t i = 0; i < n; i++)
    all[i] = env[i];
  all[n] = mark;
  return all;
}

int ock__sut_start(const struct sut_spec *spec, sut **out) {
  sut *s = calloc(1, sizeof *s);
  const char **env = with_mark(spec->env, ock__sentinel_mark());
  if (!s || !env) {
    free(s);
    free(env);
    return OCK_ENOMEM;
  }
  struct ock_process_spec ps = {.command = spec->command,
                                .env = env,
                                .input = spec->input,
                                .output_cap = spec->output_cap,
                                .abort_flag = spec->abort_flag,
                                .before_fork = track_fork,
                                .after_fork = track_forked};
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  s->timeout_s = spec->timeout_s;
  int rc = ock_process_start(&ps, &s->proc);
  free(env);
  if (rc) {
    free(s);
    return rc;
  }
  ock__sentinel_watch(ock_process_pid(s->proc));
  *out = s;
  return OCK_OK;
}

void ock__sut_interrupt(sut *s) {
  if (s && ock_process_kill(s->proc, SIGINT))
    atomic_fetch_add(&s->interrupts, 1);
}

/* forget: the SUT is reaped; kill whatever it left behind outside its group. */
static void forget(sut *s) {
  s->waited = 1;
  live_remove(ock_process_pid(s->proc));
  ock__sentinel_forget(ock_process_pid(s->proc));
  reap_orphans();
}

int ock__sut_wait(sut *s, struct sut_result *r) {
  struct ock_process_result pr;
  ock_process_wait(s->proc, s->timeout_s, &pr);
  forget(s);
  memset(r, 0, sizeof *r);
  r->exit_code = pr.exit_code;
  r->signal = pr.signal;
  r->timed_out = pr.timed_out;
  r->aborted = pr.aborted;
  r->spawn_failed = pr.exit_code == 127 && !pr.out_total;
  r->out = pr.out;
  r->out_total = pr.out_total;
  r->err = pr.err;
  r->err_total = pr.err_total;
  r->wall_ms = pr.wall_ms;
  r->interrupted = atomic_load(&s->interrupts);
  return OCK_OK;
}

void ock__sut_free(sut *s) {
  if (!s)
    return;
  pid_t pid = ock_process_pid(s->proc);
  ock_process_free(s->proc); /* kills the group and reaps the SUT if still running */
  if (!s->waited) {
    live_remove(pid);
    ock__sentinel_forget(pid);
    reap_orphans();
  }
  free(s);
}
