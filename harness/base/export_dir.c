/* SPDX-License-Identifier: MIT */
/* The folder sink of the vector exporter, and the staging and replacement around it. */
#include <signal.h> /* sig_atomic_t */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* strstr */
#include <unistd.h> /* getpid */

#include "bitcts/bitcts_status.h"
#include "export_dir.h"
#include "fs_util.h"

typedef struct dir_sink {
    const char *root;
    const volatile sig_atomic_t *interrupted; /* or NULL */
} dir_sink;

static int sink_path(const dir_sink *d, const char *rel, char *path, size_t size, char *err,
                     size_t cap)
{
    if (d->interrupted != NULL && *d->interrupted) {
        snprintf(err, cap, "interrupted");
        return BITCTS_E_IO;
    }
    if ((size_t)snprintf(path, size, "%s/%s", d->root, rel) >= size) {
        snprintf(err, cap, "path too long: %s/%s", d->root, rel);
        return BITCTS_E_IO;
    }
    return BITCTS_OK;
}

static int sink_make_dir(void *user, const char *rel, char *err, size_t cap)
{
    char path[4096];
    const int st = sink_path(user, rel, path, sizeof path, err, cap);
    return st != BITCTS_OK ? st : bitcts_fs_mkdirs(path, err, cap);
}

static int sink_write_file(void *user, const char *rel, const void *data, size_t size, char *err,
                           size_t cap)
{
    char path[4096];
    const int st = sink_path(user, rel, path, sizeof path, err, cap);
    return st != BITCTS_OK ? st : bitcts_fs_write(path, data, size, err, cap);
}

/* The destination must be missing, empty, or an earlier export (it is then replaced). */
static int check_destination(const char *out_dir, char *err, size_t cap)
{
    const int state = bitcts_fs_dir_state(out_dir);
    if (state == 0) {
        return BITCTS_OK;
    }
    if (state < 0) {
        snprintf(err, cap, "--out %s exists and is not a directory", out_dir);
        return BITCTS_E_EXISTS;
    }
    if (bitcts_fs_dir_is_empty(out_dir)) {
        return BITCTS_OK;
    }
    char manifest[4096];
    char ignored[256];
    char *text = NULL;
    snprintf(manifest, sizeof manifest, "%s/manifest.json", out_dir);
    const int ok =
        bitcts_fs_read(manifest, 1u << 30, &text, NULL, ignored, sizeof ignored) == BITCTS_OK &&
        strstr(text, "\"" BITCTS_VECTOR_FORMAT "\"") != NULL;
    free(text);
    if (!ok) {
        snprintf(err, cap,
                 "--out %s is not empty and holds no bitcts vector export; not replacing it",
                 out_dir);
        return BITCTS_E_EXISTS;
    }
    return BITCTS_OK;
}

int bitcts_export_dir(const bitcts_plan *plan, const bitcts_export_options *opt,
                      const char *out_dir, const volatile sig_atomic_t *interrupted,
                      bitcts_export_stats *stats, char *err, size_t cap)
{
    memset(stats, 0, sizeof *stats);
    int st = check_destination(out_dir, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    char staging[4096];
    snprintf(staging, sizeof staging, "%s.partial-%ld", out_dir, (long)getpid());
    bitcts_fs_remove_tree(staging);
    if ((st = bitcts_fs_mkdirs(staging, err, cap)) != BITCTS_OK) {
        return st;
    }
    dir_sink d = {.root = staging, .interrupted = interrupted};
    const bitcts_vec_sink sink = {
        .user = &d, .make_dir = sink_make_dir, .write_file = sink_write_file};
    st = bitcts_vectors_export(plan, opt, &sink, stats, err, cap);
    if (st == BITCTS_OK) {
        st = bitcts_fs_replace_dir(staging, out_dir, err, cap);
    }
    if (st != BITCTS_OK) {
        bitcts_fs_remove_tree(staging);
    }
    return st;
}
