/* SPDX-License-Identifier: MIT */
/* `bitcts vectors regen` and `bitcts vectors verify`: the committed golden manifest
 * (docs/golden-vectors.md) rewritten atomically, or recomputed and compared, naming every case
 * whose inputs or expected output changed and why. Kept apart from the rest of `vectors` so
 * that a test build with a deliberately moved reference (tests/vectors) runs this very code. */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* free */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "commands.h"
#include "fs_util.h"
#include "golden.h"

#define GOLDEN_DEFAULT_PATH "vectors/golden/manifest.json"
#define GOLDEN_MAX_BYTES (256u << 20)

static const char regen_description[] =
    "Rewrites the golden manifest (atomically): every default-tier case's description and the\n"
    "XXH3-128 digests of its inputs and expected output, and the literal vectors.\n";

static const char verify_description[] =
    "Recomputes the golden manifest and lists each case or literal whose description, inputs\n"
    "or expected output changed, or that was added or removed. Exit codes: 0 nothing changed,\n"
    "1 something changed, 2 a missing, malformed or unknown-version manifest.\n";

static const bitcts_cli_option golden_options[] = {
    BITCTS_OPT_TEXT("--golden", "FILE", 0, 0, "the manifest (default " GOLDEN_DEFAULT_PATH ")"),
};

/* The sink regen writes through: the manifest's own path, written atomically. */
typedef struct golden_sink {
    const char *path;
} golden_sink;

static int sink_write(void *user, const char *rel, const void *data, size_t size, char *err,
                      size_t cap)
{
    (void)rel; /* the one file of the set: the path given */
    return bitcts_fs_write_atomic(((golden_sink *)user)->path, data, size, err, cap);
}

static int sink_no_dirs(void *user, const char *rel, char *err, size_t cap)
{
    (void)user;
    snprintf(err, cap, "the golden manifest is one file; no folder %s", rel);
    return BITCTS_E_INVALID_ARGUMENT;
}

static int regen(const bitcts_plan *plan, const char *path)
{
    char err[1024] = "";
    bitcts_golden *g = NULL;
    int st = bitcts_golden_build(plan, BITCTS_DEFAULT_SEED, "default", &g, err, sizeof err);
    if (st == BITCTS_OK) {
        golden_sink s = {.path = path};
        const bitcts_vec_sink sink = {
            .user = &s, .make_dir = sink_no_dirs, .write_file = sink_write};
        st = bitcts_golden_write(g, &sink, "manifest.json", err, sizeof err);
    }
    if (st != BITCTS_OK) {
        bitcts_golden_destroy(g);
        return bitcts_cli_error("vectors regen", "%s", err[0] ? err : bitcts_status_message(st));
    }
    bitcts_golden_info info;
    bitcts_golden_get_info(g, &info);
    fprintf(stderr, "wrote %zu cases and %zu literal vectors (generator version %u) to %s\n",
            info.case_count, info.literal_count, info.generator_version, path);
    bitcts_golden_destroy(g);
    return BITCTS_EXIT_OK;
}

typedef struct verify_counts {
    size_t by_kind[BITCTS_GOLDEN_DOCUMENTED + 1];
    size_t lines;
} verify_counts;

static void print_change(void *user, const bitcts_golden_change *change)
{
    verify_counts *c = user;
    char line[512];
    bitcts_golden_change_line(change, line, sizeof line);
    puts(line);
    ++c->by_kind[change->kind];
    ++c->lines;
}

static int verify(const bitcts_plan *plan, const char *path)
{
    char err[1024] = "";
    char *text = NULL;
    size_t size = 0;
    int st = bitcts_fs_read(path, GOLDEN_MAX_BYTES, &text, &size, err, sizeof err);
    if (st != BITCTS_OK) {
        return bitcts_cli_error("vectors verify", "%s", err);
    }
    bitcts_golden *committed = NULL;
    st = bitcts_golden_parse(text, size, &committed, err, sizeof err);
    free(text);
    if (st != BITCTS_OK) {
        return bitcts_cli_error("vectors verify", "%s: %s", path, err);
    }
    bitcts_golden_info info;
    bitcts_golden_get_info(committed, &info);
    bitcts_golden *current = NULL;
    st = bitcts_golden_build(plan, info.seed, info.tier, &current, err, sizeof err);
    if (st != BITCTS_OK) {
        bitcts_golden_destroy(committed);
        return bitcts_cli_error("vectors verify", "%s", err);
    }
    verify_counts c;
    memset(&c, 0, sizeof c);
    bitcts_golden_compare(committed, current, print_change, &c);
    bitcts_golden_info now;
    bitcts_golden_get_info(current, &now);
    bitcts_golden_destroy(committed);
    bitcts_golden_destroy(current);
    if (c.lines == 0) {
        fprintf(stderr, "verify: %zu cases and %zu literal vectors agree with %s\n", now.case_count,
                now.literal_count, path);
        return BITCTS_EXIT_OK;
    }
    fprintf(stderr,
            "verify: %zu changes against %s: %zu added, %zu removed, %zu descriptions, %zu "
            "inputs, %zu expected outputs, %zu rejections, %zu documented outputs, %zu header "
            "fields. If they are intended, `bitcts vectors regen` records them (and a changed "
            "generator needs BITCTS_GENERATOR_VERSION bumped).\n",
            c.lines, path, c.by_kind[BITCTS_GOLDEN_ADDED], c.by_kind[BITCTS_GOLDEN_REMOVED],
            c.by_kind[BITCTS_GOLDEN_DESCRIPTION], c.by_kind[BITCTS_GOLDEN_INPUT],
            c.by_kind[BITCTS_GOLDEN_EXPECTED], c.by_kind[BITCTS_GOLDEN_REJECTION],
            c.by_kind[BITCTS_GOLDEN_DOCUMENTED], c.by_kind[BITCTS_GOLDEN_HEADER]);
    return BITCTS_EXIT_FAILURES;
}

int bitcts_cmd_golden(int argc, char **argv)
{
    const char *action = argv[0];
    const char *cmd = strcmp(action, "regen") == 0 ? "vectors regen" : "vectors verify";
    const char *path = GOLDEN_DEFAULT_PATH;
    const bitcts_cli_table tables[] = {BITCTS_CLI_TABLE(golden_options, &path)};
    const bitcts_cli_spec spec = {.cmd = cmd,
                                  .description = strcmp(action, "regen") == 0 ? regen_description
                                                                              : verify_description,
                                  .tables = tables,
                                  .table_count = 1};
    const int parsed = bitcts_cli_parse(&spec, argc, argv, NULL, NULL);
    if (parsed != 0) {
        return parsed == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : parsed;
    }
    bitcts_plan *plan = NULL;
    if (bitcts_plan_create(&plan) != BITCTS_OK) {
        return bitcts_cli_error(cmd, "out of memory");
    }
    const int rc = strcmp(action, "regen") == 0 ? regen(plan, path) : verify(plan, path);
    bitcts_plan_destroy(plan);
    return rc;
}
