/* SPDX-License-Identifier: MIT */
/* `run --shard I/N|auto`, `--shard-count N` and `--shard-timings REPORT` (docs/harness.md,
 * "Shards"): the slice from the command line or from the engine that started the job, and the
 * timing table that balances the shards, into the run's configuration. */
#include <fcntl.h>  /* open */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* snprintf, sscanf */
#include <stdlib.h> /* getenv, malloc, qsort */
#include <string.h> /* strcmp */
#include <unistd.h> /* close */

#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "commands.h"
#include "report_files.h"

static int parse_shard_text(const char *v, void *dest, char *err, size_t cap)
{
    bitcts_cli_shard *s = dest;
    unsigned i = 0, n = 0;
    char tail = 0;
    if (strcmp(v, "auto") != 0 &&
        (sscanf(v, "%u/%u%c", &i, &n, &tail) != 2 || n == 0 || i == 0 || i > n || n > 100000)) {
        snprintf(err, cap, "--shard: '%s' is not I/N with 1 <= I <= N <= 100000, nor auto", v);
        return -1;
    }
    s->text = v;
    s->index = i;
    s->count = n;
    return 0;
}

static const bitcts_cli_option shard_options[] = {
    BITCTS_OPT_CUSTOM("--shard", "I/N|auto", 0, parse_shard_text,
                      "run the I-th of N shards (1-based); auto: the slice the job engine hands "
                      "out (Kubernetes, Slurm, GitLab, Bazel/GoogleTest)"),
    BITCTS_OPT_NUMBER("--shard-count", "N", U32, offsetof(bitcts_cli_shard, count_hint), 1, 100000,
                      "with --shard auto: the number of shards where the engine does not say "
                      "(Kubernetes; else BITCTS_SHARD_COUNT)"),
    BITCTS_OPT_TEXT("--shard-timings", "REPORT", offsetof(bitcts_cli_shard, timings_path), 0,
                    "balance the shards by the case durations of an earlier report (a folder or "
                    "report.json); without it every N-th case"),
};

BITCTS_CLI_TABLE_FN(bitcts_cli_shard_table, bitcts_cli_shard, shard_options)

static const char *env_get(void *user, const char *name)
{
    (void)user;
    return getenv(name);
}

static int by_id(const void *a, const void *b)
{
    return strcmp(((const bitcts_shard_timing *)a)->id, ((const bitcts_shard_timing *)b)->id);
}

/* The report's cases as a timing table sorted by id; 0, or an exit code. */
static int load_timings(const char *cmd, bitcts_cli_shard *s)
{
    char err[1200] = "";
    if (bitcts_report_files_load(s->timings_path, &s->timings_report, err, sizeof err) !=
        BITCTS_OK) {
        return bitcts_cli_error(cmd, "--shard-timings: %s", err);
    }
    const json_t *cases = json_object_get(s->timings_report, "cases");
    const size_t n = json_array_size(cases);
    s->table = malloc((n + 1) * sizeof *s->table);
    if (s->table == NULL) {
        return bitcts_cli_error(cmd, "out of memory");
    }
    for (size_t i = 0; i < n; ++i) {
        const json_t *c = json_array_get(cases, i);
        const double ms = json_number_value(json_object_get(c, "duration_ms"));
        s->table[i].id = bitcts_report_str(c, "id");
        s->table[i].ms = ms >= 0 && ms < 1e12 ? ms : 0; /* validated; a bound all the same */
    }
    s->table_count = n;
    qsort(s->table, n, sizeof *s->table, by_id);
    return 0;
}

/* The engine asks for a file to be touched when a test honours its sharding (Bazel). */
static int touch_status_file(const char *cmd, const char *path)
{
    const int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        return bitcts_cli_error(cmd, "--shard auto: cannot create TEST_SHARD_STATUS_FILE %s", path);
    }
    close(fd);
    return 0;
}

int bitcts_cli_shard_apply(const char *cmd, bitcts_cli_shard *s, bitcts_run_config *cfg)
{
    if (s->text == NULL) {
        if (s->count_hint != 0 || s->timings_path != NULL) {
            return bitcts_cli_error(cmd, "%s needs --shard",
                                    s->count_hint != 0 ? "--shard-count" : "--shard-timings");
        }
        return 0;
    }
    if (strcmp(s->text, "auto") != 0 && s->count_hint != 0) {
        return bitcts_cli_error(cmd, "--shard-count goes with --shard auto, not --shard %s",
                                s->text);
    }
    if (strcmp(s->text, "auto") == 0) {
        bitcts_shard_slice slice;
        char err[1200];
        if (bitcts_shard_from_env(env_get, NULL, s->count_hint, &slice, err, sizeof err) != 0) {
            return bitcts_cli_error(cmd, "%s", err);
        }
        if (slice.status_file[0] != '\0' && touch_status_file(cmd, slice.status_file) != 0) {
            return BITCTS_EXIT_USAGE;
        }
        s->index = slice.index;
        s->count = slice.count;
    }
    const int rc = s->timings_path != NULL ? load_timings(cmd, s) : 0;
    cfg->shard_index = s->index;
    cfg->shard_count = s->count;
    cfg->shard_timings = s->table;
    cfg->shard_timing_count = s->table_count;
    return rc;
}

void bitcts_cli_shard_free(bitcts_cli_shard *s)
{
    free(s->table);
    json_decref(s->timings_report);
    s->table = NULL;
    s->timings_report = NULL;
}
