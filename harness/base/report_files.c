/* SPDX-License-Identifier: MIT */
/* Report folders on disk: loading a report.json (or the folder holding one) into the reports
 * module's model, and writing a report folder (report.json and its views), each file
 * atomically (a temporary name, then rename). The reports module itself only takes and returns
 * bytes. Thread-safety: reentrant. */
#include <pthread.h>     /* pthread_create */
#include <stdio.h>       /* snprintf */
#include <stdlib.h>      /* free */
#include <string.h>      /* strlen */
#include <sys/utsname.h> /* uname */
#include <unistd.h>      /* access, gethostname, read, sysconf */

#include "fs_util.h"
#include "report_files.h"
#include "sanitize.h"

bitcts_status bitcts_report_files_load(const char *path, json_t **out, char *err, size_t cap)
{
    if (err != NULL && cap) {
        err[0] = '\0';
    }
    if (path == NULL || !*path || out == NULL) {
        if (err != NULL && cap) {
            snprintf(err, cap, "no report path given");
        }
        return BITCTS_E_INVALID_ARGUMENT;
    }
    *out = NULL;
    char file[4096];
    const int n = bitcts_fs_dir_state(path) == 1
                      ? snprintf(file, sizeof file, "%s/report.json", path)
                      : snprintf(file, sizeof file, "%s", path);
    if (n < 0 || (size_t)n >= sizeof file) {
        if (err != NULL && cap) {
            snprintf(err, cap, "report path is too long");
        }
        return BITCTS_E_INVALID_ARGUMENT;
    }
    char *bytes = NULL;
    size_t size = 0;
    const int rd = bitcts_fs_read(file, BITCTS_REPORT_MAX_BYTES, &bytes, &size, err, cap);
    if (rd != BITCTS_OK) {
        return (bitcts_status)rd;
    }
    const bitcts_status st = bitcts_report_parse(file, bytes, size, out, err, cap);
    free(bytes);
    return st;
}

/* 1 when dir holds a run log whose first line is a bitcts header, or a report.json that is a
 * bitcts report (folders an older bitcts wrote, before the mark existed). */
static int holds_bitcts_output(const char *dir)
{
    char path[4200], first[64] = "";
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    int fd = -1;
    char err[64];
    if (bitcts_fs_open_regular(path, (size_t)1 << 40, &fd, err, sizeof err) == BITCTS_OK) {
        const ssize_t got = read(fd, first, sizeof first - 1);
        close(fd);
        first[got > 0 ? got : 0] = '\0';
        static const char header[] = "{\"record\":\"header\"";
        if (strncmp(first, header, sizeof header - 1) == 0) {
            return 1;
        }
    }
    json_t *report = NULL;
    char why[256];
    const int ok = bitcts_report_files_load(dir, &report, why, sizeof why) == BITCTS_OK;
    json_decref(report);
    return ok;
}

int bitcts_report_files_can_claim(const char *dir, int force, const char *option, char *err,
                                  size_t cap)
{
    char mark[4200];
    snprintf(mark, sizeof mark, "%s/" BITCTS_REPORT_FOLDER_MARK, dir);
    const int state = bitcts_fs_dir_state(dir);
    if (state < 0) {
        snprintf(err, cap, "%s %s exists and is not a folder", option, dir);
        return BITCTS_E_EXISTS;
    }
    if (state == 1 && !force && access(mark, F_OK) != 0 && !bitcts_fs_dir_is_empty(dir) &&
        !holds_bitcts_output(dir)) {
        snprintf(err, cap,
                 "%s %s holds files bitcts did not write; give another folder, or --force to "
                 "write into it",
                 option, dir);
        return BITCTS_E_EXISTS;
    }
    return BITCTS_OK;
}

int bitcts_report_files_claim(const char *dir, char *err, size_t cap)
{
    char mark[4200];
    snprintf(mark, sizeof mark, "%s/" BITCTS_REPORT_FOLDER_MARK, dir);
    int st = bitcts_fs_mkdirs(dir, err, cap);
    if (st == BITCTS_OK && access(mark, F_OK) != 0) {
        static const char text[] = "a report folder written by bitcts\n";
        st = bitcts_fs_write(mark, text, sizeof text - 1, err, cap);
    }
    return st;
}

/* ---- writing: the files rendered first (report.json in a thread of its own), then written
 * one by one in a fixed order, each atomically ---- */

/* Rendering report.json in a second thread while this one renders the views needs a jansson
 * whose json_dumps only reads the tree (2.11 and later keep the loop check in a table of the
 * dump's own, not in a flag on each value) and whose reference counts are atomic (2.11 and
 * later, JSON_HAVE_ATOMIC_BUILTINS or JSON_HAVE_SYNC_BUILTINS); the views only read the report
 * too. This build's jansson is JANSSON_VERSION; an older one renders in one thread. */
#if JANSSON_VERSION_HEX >= 0x020b00 && (JSON_HAVE_ATOMIC_BUILTINS || JSON_HAVE_SYNC_BUILTINS)
#define BITCTS_REPORT_FILES_THREAD 1
#else
#define BITCTS_REPORT_FILES_THREAD 0
#endif

enum { FILE_JSON, FILE_JUNIT, FILE_HTML, FILE_MARKDOWN, FILE_COUNT };
static const char *const file_names[FILE_COUNT] = {"report.json", "junit.xml", "report.html",
                                                   "summary.md"};
static const bitcts_report_format file_formats[FILE_COUNT] = {
    BITCTS_REPORT_FORMAT_JSON, BITCTS_REPORT_FORMAT_JUNIT, BITCTS_REPORT_FORMAT_HTML,
    BITCTS_REPORT_FORMAT_MARKDOWN};

typedef struct rendered {
    const json_t *report;
    char *text[FILE_COUNT];
    size_t size[FILE_COUNT];
    bitcts_status st[FILE_COUNT];
} rendered;

static void *render_json(void *arg)
{
    rendered *r = arg;
    r->st[FILE_JSON] = bitcts_report_render(r->report, BITCTS_REPORT_FORMAT_JSON,
                                            &r->text[FILE_JSON], &r->size[FILE_JSON]);
    return NULL;
}

/* Renders the files from `first` on: report.json (when first is FILE_JSON) beside the views,
 * which share one view of the report (bitcts_report_render_set). */
static void render_files(rendered *r, int first)
{
#if BITCTS_REPORT_FILES_THREAD
    pthread_t json_thread;
    const int threaded =
        first == FILE_JSON && pthread_create(&json_thread, NULL, render_json, r) == 0;
#else
    const int threaded = 0;
#endif
    const bitcts_status st =
        bitcts_report_render_set(r->report, &file_formats[FILE_JUNIT], FILE_COUNT - FILE_JUNIT,
                                 &r->text[FILE_JUNIT], &r->size[FILE_JUNIT]);
    for (int f = FILE_JUNIT; f < FILE_COUNT; ++f) {
        r->st[f] = st;
    }
#if BITCTS_REPORT_FILES_THREAD
    if (threaded) {
        pthread_join(json_thread, NULL);
    }
#endif
    if (first == FILE_JSON && !threaded) {
        render_json(r);
    }
}

/* Writes DIR's report files from `first` on, in order; stops at the first that fails. */
static int write_files(const json_t *report, const char *dir, int first, char *err, size_t cap)
{
    char path[FILE_COUNT][4096];
    for (int f = first; f < FILE_COUNT; ++f) {
        if ((size_t)snprintf(path[f], sizeof path[f], "%s/%s", dir, file_names[f]) >=
            sizeof path[f]) {
            snprintf(err, cap, "report folder path is too long: %s", dir);
            return BITCTS_E_INVALID_ARGUMENT;
        }
    }
    rendered r = {.report = report};
    render_files(&r, first);
    int st = BITCTS_OK;
    for (int f = first; f < FILE_COUNT; ++f) {
        if (st == BITCTS_OK && r.st[f] != BITCTS_OK) {
            snprintf(err, cap, "cannot render %s: %s", path[f], bitcts_status_message(r.st[f]));
            st = r.st[f];
        } else if (st == BITCTS_OK) {
            st = bitcts_fs_write_atomic(path[f], r.text[f], r.size[f], err, cap);
        }
        free(r.text[f]);
    }
    return st;
}

/* Checks the arguments; then validates the report unless it was (`validated`), and creates the
 * folder; shared by the writers. */
static int prepare(const json_t *report, const char *dir, int validated, char *err, size_t cap)
{
    if (report == NULL || dir == NULL || !*dir || err == NULL || !cap) {
        if (err != NULL && cap) {
            snprintf(err, cap, "no report or folder given");
        }
        return BITCTS_E_INVALID_ARGUMENT;
    }
    err[0] = '\0';
    char name[4096];
    snprintf(name, sizeof name, "%s/report.json", dir);
    const bitcts_status st = validated ? BITCTS_OK : bitcts_report_validate(report, name, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    return bitcts_report_files_claim(dir, err, cap);
}

int bitcts_report_files_write_views(const json_t *report, const char *dir, char *err, size_t cap)
{
    const int st = prepare(report, dir, 0, err, cap);
    return st != BITCTS_OK ? st : write_files(report, dir, FILE_JUNIT, err, cap);
}

int bitcts_report_files_write(const json_t *report, const char *dir, char *err, size_t cap)
{
    const int st = prepare(report, dir, 0, err, cap);
    return st != BITCTS_OK ? st : write_files(report, dir, FILE_JSON, err, cap);
}

int bitcts_report_files_write_assembled(const json_t *report, const char *dir, char *err,
                                        size_t cap)
{
    const int st = prepare(report, dir, 1, err, cap);
    return st != BITCTS_OK ? st : write_files(report, dir, FILE_JSON, err, cap);
}

json_t *bitcts_report_files_host_json(void)
{
    struct utsname u;
    char name[256] = "";
    gethostname(name, sizeof name - 1);
    const int ok = uname(&u) == 0;
    char os[200], clean[256], machine[80];
    snprintf(os, sizeof os, "%s %s", ok ? u.sysname : "?", ok ? u.release : "");
    bitcts_sanitize_string(name, sizeof name, clean, sizeof clean);
    bitcts_sanitize_string(ok ? u.machine : "?", sizeof u.machine, machine, sizeof machine);
    return json_pack("{s:s, s:s, s:s, s:I}", "hostname", clean, "os", os, "machine", machine,
                     "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN));
}
