/*
 * report.c: the writer table, reading and validating report.json, and writing every format
 * into a report directory (see report.h).
 *
 * Writing renders every file into a fresh directory beside the report directory (mkdtemp; each
 * file created with openat(O_EXCL | O_NOFOLLOW)) and then renames each into place, so neither
 * a symbolic link or a forged report planted in the directory nor a crash half way leaves a
 * wrong or partial report behind: a rename replaces the planted entry without following it.
 */
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/status.h"

const struct ock_report_writer *const ock_report_writers[] = {
    &ock_report_writer_json, &ock_report_writer_junit, &ock_report_writer_markdown,
    &ock_report_writer_html, NULL};

#define N_WRITERS 4

const struct ock_report_writer *ock_report_writer_find(const char *name) {
  for (int i = 0; name && ock_report_writers[i]; i++)
    if (!strcmp(ock_report_writers[i]->name, name))
      return ock_report_writers[i];
  return NULL;
}

int ock_verdict_severity(const char *verdict) {
  static const char *const order[] = {OCK_V_SKIP, OCK_V_PASS, OCK_V_WARN, OCK_V_FAIL, OCK_V_ERROR};
  if (!verdict || !strcmp(verdict, "UNTESTED"))
    return -1;
  for (int i = 0; i < 5; i++)
    if (!strcmp(verdict, order[i]))
      return i;
  return 4;
}

int ock_report_tally(struct ock_buf *b, const cJSON *report, const char *strong_open,
                     const char *strong_close) {
  const cJSON *summary = cJSON_GetObjectItemCaseSensitive(report, "summary");
  const cJSON *levels = cJSON_GetObjectItemCaseSensitive(summary, "levels");
  const cJSON *counts = cJSON_GetObjectItemCaseSensitive(summary, "scenarios");
  static const char *const level_names[] = {"MUST", "SHOULD", "MAY"};
  static const char *const verdicts[] = {OCK_V_PASS, OCK_V_FAIL, OCK_V_WARN, OCK_V_SKIP,
                                         OCK_V_ERROR};
  int rc = OCK_OK;
  for (int i = 0; i < 3 && !rc; i++) {
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(levels, level_names[i]);
    rc = ock_buf_printf(b, " · %s%s %lld/%lld%s", strong_open, level_names[i],
                        ock_json_int(l, "passed", 0), ock_json_int(l, "total", 0), strong_close);
    if (!rc && ock_json_int(l, "waived", 0))
      rc = ock_buf_printf(b, ", %lld waived", ock_json_int(l, "waived", 0));
  }
  if (!rc)
    rc = ock_buf_printf(b, " · %lld scenarios:", ock_json_int(counts, "total", 0));
  for (int i = 0; i < 5 && !rc; i++)
    rc = ock_buf_printf(b, "%s %lld %s", i ? "," : "", ock_json_int(counts, verdicts[i], 0),
                        verdicts[i]);
  if (!rc && ock_json_int(counts, "waived", 0))
    rc = ock_buf_printf(b, ", %lld waived", ock_json_int(counts, "waived", 0));
  return rc;
}

int ock_report_check_fails(const cJSON *check) {
  const char *waived = ock_json_str(check, "waived");
  return ock_verdict_severity(waived ? waived : ock_json_str(check, "verdict")) >= 2;
}

int ock_report_scenario_fails(const cJSON *scenario, const char *req) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(scenario, "checks")) {
    const char *of = ock_json_str(c, "requirement");
    if (of && req && !strcmp(of, req) && ock_report_check_fails(c))
      return 1;
  }
  return 0;
}

/* digits reads exactly n decimal digits. */
static int digits(const char **p, int n, int *out) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    char c = (*p)[i];
    if (c < '0' || c > '9')
      return 0;
    v = v * 10 + (c - '0');
  }
  *p += n;
  *out = v;
  return 1;
}

/* days_from_civil: days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static long long days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  long long era = (y >= 0 ? y : y - 399) / 400;
  long long yoe = y - era * 400;
  long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int ock_report_time_ms(const char *text, long long *out) {
  const char *p = text;
  int y, mo, d, h, mi, s, oh = 0, om = 0;
  if (!p || !digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
      !digits(&p, 2, &d) || (*p != 'T' && *p != 't') || !++p || !digits(&p, 2, &h) || *p++ != ':' ||
      !digits(&p, 2, &mi) || *p++ != ':' || !digits(&p, 2, &s))
    return OCK_EINVAL;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
    return OCK_EINVAL;
  long long ms = 0;
  if (*p == '.') {
    p++;
    int scale = 100, any = 0;
    for (; *p >= '0' && *p <= '9'; p++, any = 1) {
      ms += (*p - '0') * scale;
      scale /= 10;
    }
    if (!any)
      return OCK_EINVAL;
  }
  int sign = 0;
  if (*p == 'Z' || *p == 'z') {
    p++;
  } else if (*p == '+' || *p == '-') {
    sign = *p++ == '+' ? 1 : -1;
    if (!digits(&p, 2, &oh) || *p++ != ':' || !digits(&p, 2, &om) || oh > 23 || om > 59)
      return OCK_EINVAL;
  } else {
    return OCK_EINVAL;
  }
  if (*p)
    return OCK_EINVAL;
  long long secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
  secs -= sign * (oh * 3600 + om * 60);
  *out = secs * 1000 + ms;
  return OCK_OK;
}

/* ---- validation ---- */

static const char *const run_verdicts[] = {OCK_V_PASS, OCK_V_FAIL, "INCOMPLETE", NULL};
static const char *const verdicts[] = {OCK_V_PASS, OCK_V_FAIL,  OCK_V_WARN,
                                       OCK_V_SKIP, OCK_V_ERROR, NULL};
static const char *const req_verdicts[] = {OCK_V_PASS,  OCK_V_FAIL, OCK_V_WARN, OCK_V_SKIP,
                                           OCK_V_ERROR, "UNTESTED", NULL};
static const char *const levels[] = {"MUST", "SHOULD", "MAY", NULL};

static int check_time(const cJSON *o, const char *path, const char *key, struct ock_jerr *err) {
  const char *t = NULL;
  long long ms;
  int rc = ock_jget_string(o, path, key, OCK_REQUIRED, &t, err);
  if (!rc && ock_report_time_ms(t, &ms)) {
    char mp[OCK_JSON_PATH_MAX];
    ock_jpath_key(mp, sizeof mp, path, key);
    rc = ock_jerr_set(err, OCK_ETYPE, mp,
                      "expected an RFC 3339 UTC time such as \"2026-11-21T10:00:09Z\", got \"%s\"",
                      t);
  }
  return rc;
}

static int validate_check(const cJSON *c, const char *path, struct ock_jerr *err) {
  const char *s;
  int i, rc = ock_jcheck_object(c, path, err);
  if (!rc)
    rc = ock_jget_nonempty(c, path, "id", OCK_REQUIRED, &s, err);
  if (!rc)
    rc = ock_jget_nonempty(c, path, "requirement", OCK_REQUIRED, &s, err);
  if (!rc)
    rc = ock_jget_enum(c, path, "verdict", OCK_REQUIRED, verdicts, &i, err);
  if (!rc)
    rc = ock_jget_enum(c, path, "level", OCK_OPTIONAL, levels, &i, err);
  return rc;
}

static int validate_array_of(const cJSON *o, const char *path, const char *key, enum ock_jneed need,
                             int (*each)(const cJSON *, const char *, struct ock_jerr *),
                             struct ock_jerr *err) {
  const cJSON *a = NULL, *e;
  int rc = ock_jget_array(o, path, key, need, &a, err), i = 0;
  char ap[OCK_JSON_PATH_MAX], ep[OCK_JSON_PATH_MAX];
  ock_jpath_key(ap, sizeof ap, path, key);
  if (a && each) {
    cJSON_ArrayForEach(e, a) {
      if (rc)
        break;
      ock_jpath_index(ep, sizeof ep, ap, i++);
      rc = each(e, ep, err);
    }
  }
  return rc;
}

static int validate_string_item(const cJSON *e, const char *path, struct ock_jerr *err) {
  if (cJSON_IsString(e))
    return OCK_OK;
  return ock_jerr_set(err, OCK_ETYPE, path, "expected a string, got %s", ock_json_type_name(e));
}

static int validate_timeline_entry(const cJSON *e, const char *path, struct ock_jerr *err) {
  const char *s;
  double t;
  long long seq;
  int rc = ock_jcheck_object(e, path, err);
  if (!rc)
    rc = ock_jget_int(e, path, "seq", OCK_REQUIRED, 0, (long long)1 << 53, &seq, err);
  if (!rc)
    rc = ock_jget_number(e, path, "t_ms", OCK_OPTIONAL, 0, 1e15, &t, err);
  if (!rc)
    rc = ock_jget_string(e, path, "lane", OCK_REQUIRED, &s, err);
  if (!rc)
    rc = ock_jget_string(e, path, "label", OCK_REQUIRED, &s, err);
  return rc;
}

static int validate_scenario(const cJSON *s, const char *path, struct ock_jerr *err) {
  const char *str;
  const cJSON *o;
  int i, rc = ock_jcheck_object(s, path, err);
  if (!rc)
    rc = ock_jget_nonempty(s, path, "id", OCK_REQUIRED, &str, err);
  if (!rc)
    rc = ock_jget_enum(s, path, "verdict", OCK_REQUIRED, verdicts, &i, err);
  if (!rc)
    rc = validate_array_of(s, path, "requirements", OCK_OPTIONAL, validate_string_item, err);
  if (!rc)
    rc = validate_array_of(s, path, "checks", OCK_REQUIRED, validate_check, err);
  if (!rc)
    rc = validate_array_of(s, path, "timeline", OCK_OPTIONAL, validate_timeline_entry, err);
  if (!rc)
    rc = ock_jget_object(s, path, "process", OCK_OPTIONAL, &o, err);
  return rc;
}

static int validate_requirement(const cJSON *r, const char *path, struct ock_jerr *err) {
  const char *s;
  int i, rc = ock_jcheck_object(r, path, err);
  if (!rc)
    rc = ock_jget_nonempty(r, path, "id", OCK_REQUIRED, &s, err);
  if (!rc)
    rc = ock_jget_string(r, path, "group", OCK_REQUIRED, &s, err);
  if (!rc)
    rc = ock_jget_enum(r, path, "level", OCK_REQUIRED, levels, &i, err);
  if (!rc)
    rc = ock_jget_string(r, path, "text", OCK_REQUIRED, &s, err);
  if (!rc)
    rc = ock_jget_enum(r, path, "verdict", OCK_REQUIRED, req_verdicts, &i, err);
  if (!rc)
    rc = validate_array_of(r, path, "scenarios", OCK_REQUIRED, validate_string_item, err);
  return rc;
}

int ock_report_validate(const cJSON *rep, struct ock_jerr *err) {
  const char *root = "$";
  const cJSON *o;
  const char *s;
  long long v;
  double d;
  int i, rc = ock_jcheck_object(rep, root, err);
  if (!rc)
    rc = ock_jget_int(rep, root, "schema_version", OCK_REQUIRED, 0, 1 << 30, &v, err);
  if (!rc && v != OCK_REPORT_SCHEMA_VERSION) {
    char mp[OCK_JSON_PATH_MAX];
    ock_jpath_key(mp, sizeof mp, root, "schema_version");
    return ock_jerr_set(err, OCK_ETYPE, mp,
                        "this ock reads report schema_version %d, got %lld (use the ock that "
                        "wrote the report)",
                        OCK_REPORT_SCHEMA_VERSION, v);
  }
  if (!rc)
    rc = ock_jget_object(rep, root, "kit", OCK_REQUIRED, &o, err);
  if (!rc)
    rc = ock_jget_string(o, "$.kit", "version", OCK_REQUIRED, &s, err);
  if (!rc)
    rc = ock_jget_string(rep, root, "contract_version", OCK_REQUIRED, &s, err);
  if (!rc)
    rc = ock_jget_int(rep, root, "seed", OCK_REQUIRED, -((long long)1 << 53), (long long)1 << 53,
                      &v, err);
  if (!rc)
    rc = check_time(rep, root, "started_at", err);
  if (!rc)
    rc = check_time(rep, root, "finished_at", err);
  if (!rc)
    rc = ock_jget_number(rep, root, "duration_ms", OCK_REQUIRED, 0, 1e15, &d, err);
  if (!rc)
    rc = ock_jget_object(rep, root, "orchestrator", OCK_REQUIRED, &o, err);
  if (!rc)
    rc = ock_jget_object(rep, root, "options", OCK_REQUIRED, &o, err);
  if (!rc)
    rc = ock_jget_bool(o, "$.options", "strict", OCK_OPTIONAL, &i, err);
  if (!rc)
    rc = ock_jget_enum(rep, root, "verdict", OCK_REQUIRED, run_verdicts, &i, err);
  if (!rc)
    rc = ock_jget_int(rep, root, "exit_code", OCK_REQUIRED, 0, 255, &v, err);
  if (!rc)
    rc = ock_jget_string(rep, root, "error", OCK_OPTIONAL, &s, err);
  if (!rc)
    rc = ock_jget_object(rep, root, "summary", OCK_REQUIRED, &o, err);
  if (!rc)
    rc = validate_array_of(rep, root, "requirements", OCK_REQUIRED, validate_requirement, err);
  if (!rc)
    rc = validate_array_of(rep, root, "scenarios", OCK_REQUIRED, validate_scenario, err);
  if (!rc)
    rc = validate_array_of(rep, root, "traceability", OCK_REQUIRED, NULL, err);
  return rc;
}

int ock_report_read(const char *path, cJSON **out, struct ock_jerr *err) {
  cJSON *root = NULL;
  int rc = ock_json_parse_file(path, OCK_MAX_REPORT_READ, &root, err);
  if (rc)
    return rc;
  struct ock_jerr verr;
  rc = ock_report_validate(root, &verr);
  if (rc) {
    if (err) {
      snprintf(err->where, sizeof err->where, "%.300s: %.200s", path, verr.where);
      memcpy(err->what, verr.what, sizeof err->what);
    }
    cJSON_Delete(root);
    return rc;
  }
  *out = root;
  return OCK_OK;
}

/* ---- writing ---- */

static int fail(char *errbuf, size_t n, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *errbuf, size_t n, int code, const char *fmt, ...) {
  if (errbuf && n) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errbuf, n, fmt, ap);
    va_end(ap);
  }
  return code;
}

/* make_dirs creates dir and its missing parents. */
static int make_dirs(const char *dir, char *errbuf, size_t n) {
  char path[4096];
  size_t len = strlen(dir);
  if (len == 0 || len >= sizeof path)
    return fail(errbuf, n, OCK_EINVAL, "report directory \"%.200s\": %s", dir,
                len ? "path too long" : "empty path");
  memcpy(path, dir, len + 1);
  for (size_t i = 1; i <= len; i++) {
    if (path[i] != '/' && path[i] != '\0')
      continue;
    char c = path[i];
    path[i] = '\0';
    if (mkdir(path, 0755) && errno != EEXIST)
      return fail(errbuf, n, OCK_EIO, "cannot create directory %s: %s", path, strerror(errno));
    path[i] = c;
  }
  return OCK_OK;
}

static const char symlink_advice[] =
    "ock writes reports only into a real directory (remove the link or choose another -o)";

/* open_dir opens dir for openat without following a symbolic link at its last component. */
static int open_dir(const char *dir, int *fd, char *errbuf, size_t n) {
  struct stat st;
  if (lstat(dir, &st))
    return fail(errbuf, n, OCK_EIO, "%s: %s", dir, strerror(errno));
  if (S_ISLNK(st.st_mode))
    return fail(errbuf, n, OCK_EINVAL, "%s: is a symbolic link; %s", dir, symlink_advice);
  if (!S_ISDIR(st.st_mode))
    return fail(errbuf, n, OCK_EINVAL, "%s: exists and is not a directory", dir);
  int d = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (d < 0 && errno == ELOOP)
    return fail(errbuf, n, OCK_EINVAL, "%s: is a symbolic link; %s", dir, symlink_advice);
  if (d < 0)
    return fail(errbuf, n, OCK_EIO, "cannot open directory %s: %s", dir, strerror(errno));
  *fd = d;
  return OCK_OK;
}

/* render_temp renders one writer into a new temporary file `tmp` in the directory dfd. */
static int render_temp(const cJSON *report, const struct ock_report_writer *w, int dfd,
                       const char *dir, const char *tmp, char *errbuf, size_t n) {
  int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST) { /* left over by a crashed run with the same pid */
    unlinkat(dfd, tmp, 0);
    fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  }
  if (fd < 0)
    return fail(errbuf, n, OCK_EIO, "cannot create %s/%s: %s", dir, tmp, strerror(errno));
  FILE *f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    unlinkat(dfd, tmp, 0);
    return fail(errbuf, n, OCK_ENOMEM, "cannot write %s/%s: out of memory", dir, tmp);
  }
  int rc = ock_report_render(w, report, f);
  int io = fflush(f) || ferror(f) || fsync(fileno(f));
  int saved = errno;
  if (fclose(f))
    io = 1;
  if (!rc && io)
    rc = OCK_EIO;
  if (rc) {
    unlinkat(dfd, tmp, 0);
    return fail(errbuf, n, rc, "writing %s/%s failed: %s", dir, w->filename,
                rc == OCK_EIO ? strerror(saved) : ock_strerror(rc));
  }
  return OCK_OK;
}

/* stage renders every writer into a fresh directory beside dir (made with mkdtemp, so nothing
 * else has put anything in it), or in dir when its parent cannot be written; its path goes
 * into stage_path. */
static int stage(const cJSON *report, const char *dir, char *stage_path, size_t sp, char *errbuf,
                 size_t n) {
  const char *slash = strrchr(dir, '/');
  const char *base = slash ? slash + 1 : dir;
  int plen = slash ? (int)(slash - dir) : 0;
  snprintf(stage_path, sp, "%.*s%s.%s.new-XXXXXX", plen, dir, slash ? "/" : "", base);
  if (slash == dir) /* "/latest": the parent is the root */
    snprintf(stage_path, sp, "/.%s.new-XXXXXX", base);
  if (!mkdtemp(stage_path)) { /* a parent it may not write to ($HOME's): then inside dir */
    snprintf(stage_path, sp, "%s/.ock-new-XXXXXX", dir);
    if (!mkdtemp(stage_path))
      return fail(errbuf, n, OCK_EIO, "cannot create a directory beside or in %s: %s", dir,
                  strerror(errno));
  }
  int sfd = -1, rc = open_dir(stage_path, &sfd, errbuf, n);
  for (int i = 0; !rc && i < N_WRITERS; i++)
    rc = render_temp(report, ock_report_writers[i], sfd, stage_path,
                     ock_report_writers[i]->filename, errbuf, n);
  if (sfd >= 0)
    close(sfd);
  return rc;
}

/* unstage removes the staging directory and what is left in it. */
static void unstage(const char *stage_path) {
  int sfd = open(stage_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  for (int i = 0; sfd >= 0 && i < N_WRITERS; i++)
    unlinkat(sfd, ock_report_writers[i]->filename, 0);
  if (sfd >= 0)
    close(sfd);
  rmdir(stage_path);
}

/* install moves the staged files into dir, one rename each. A rename replaces whatever entry
 * had the name (an old report, a forged one, a symbolic link, which is not followed) at once;
 * only a directory in the way stops it. When one cannot be installed, the files of that name
 * that are not this run's are removed, so no stale or planted report is left looking current. */
static int install(const char *stage_path, const char *dir, char *errbuf, size_t n) {
  int sfd = -1, dfd = -1, rc = open_dir(stage_path, &sfd, errbuf, n);
  if (!rc)
    rc = open_dir(dir, &dfd, errbuf, n);
  int done[N_WRITERS] = {0};
  for (int i = 0; !rc && i < N_WRITERS; i++) {
    const char *name = ock_report_writers[i]->filename;
    if (renameat(sfd, name, dfd, name))
      rc = fail(errbuf, n, OCK_EIO, "cannot put %s/%s in place: %s%s", dir, name, strerror(errno),
                errno == EISDIR || errno == ENOTEMPTY ? " (a directory)" : "");
    done[i] = !rc;
  }
  for (int i = 0; rc && dfd >= 0 && i < N_WRITERS; i++) {
    struct stat st;
    const char *name = ock_report_writers[i]->filename;
    if (!done[i] && !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && !S_ISDIR(st.st_mode))
      unlinkat(dfd, name, 0);
  }
  if (sfd >= 0)
    close(sfd);
  if (dfd >= 0)
    close(dfd);
  return rc;
}

int ock_report_write_all(const cJSON *report, const char *dir, char *errbuf, size_t n) {
  if (!report || !dir)
    return fail(errbuf, n, OCK_EINVAL, "ock_report_write_all: no report or no directory");
  /* Without its trailing slashes, so that "link/" is seen as the link it names, not as the
   * directory the link points to. */
  char path[4096], staged[4200] = "";
  size_t len = strlen(dir);
  while (len > 1 && dir[len - 1] == '/')
    len--;
  if (len >= sizeof path)
    return fail(errbuf, n, OCK_EINVAL, "report directory \"%.200s...\": path too long", dir);
  memcpy(path, dir, len);
  path[len] = '\0';
  dir = path;
  int dfd = -1, rc = make_dirs(dir, errbuf, n);
  if (!rc)
    rc = open_dir(dir, &dfd, errbuf, n); /* a directory that is a symbolic link is refused */
  if (dfd >= 0)
    close(dfd);
  if (!rc)
    rc = stage(report, dir, staged, sizeof staged, errbuf, n);
  if (!rc)
    rc = install(staged, dir, errbuf, n);
  if (staged[0])
    unstage(staged);
  return rc;
}
