/* SPDX-License-Identifier: MIT */
/* `run --rerun REPORT`. The report's own command line is parsed with run's tables (so every
 * option means what it meant then), its outcome options are compared with the new command line's
 * and carried over, and its cases that did not pass become the selection. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, free */
#include <string.h> /* strcmp, strncmp */

#include "bitcts/bitcts_verdict.h"
#include "cli_rerun.h"
#include "cli_util.h"
#include "report_files.h"
#include "report_model.h"

#define CMD "run"

/* Verdicts a rerun leaves alone: the case passed there, or was never meant to run. */
static int passed(int verdict)
{
    return verdict == BITCTS_VERDICT_PASS || verdict == BITCTS_VERDICT_WARN ||
           verdict == BITCTS_VERDICT_RECORDED || verdict == BITCTS_VERDICT_NOT_SUPPORTED ||
           verdict == BITCTS_VERDICT_SKIPPED;
}

/* Does argv (argv[0] the command's word) give option `name`, as "--name V" or "--name=V"? */
static int gives(int argc, char **argv, const char *name)
{
    const size_t len = strlen(name);
    for (int i = 1; i < argc; ++i) {
        if (strncmp(argv[i], name, len) == 0 && (argv[i][len] == '\0' || argv[i][len] == '=')) {
            return 1;
        }
    }
    return 0;
}

/* The report's command line parsed with run's tables; its words stay in rr->report. */
static int parse_report_line(bitcts_cli_rerun *rr, const char *path,
                             bitcts_cli_rerun_parse_fn parse)
{
    const json_t *line = json_object_get(rr->report, "command_line");
    /* The program's name first (reports of this bitcts), or "run" first (older ones). */
    const char *first = json_string_value(json_array_get(line, 0));
    const char *second = json_string_value(json_array_get(line, 1));
    const size_t skip = first != NULL && strcmp(first, "run") == 0 ? 0 : 1;
    if (first == NULL || (skip == 1 && (second == NULL || strcmp(second, "run") != 0))) {
        return bitcts_cli_error(CMD,
                                "--rerun: %s is not the report of a bitcts run (its command "
                                "line is not 'bitcts run ...')",
                                path);
    }
    rr->argc = (int)(json_array_size(line) - skip);
    rr->argv = calloc((size_t)rr->argc + 1, sizeof *rr->argv);
    if (rr->argv == NULL) {
        return bitcts_cli_error(CMD, "out of memory");
    }
    for (int i = 0; i < rr->argc; ++i) {
        rr->argv[i] = (char *)json_string_value(json_array_get(line, (size_t)i + skip));
    }
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "run --rerun: the command line in %s", path);
    return parse(rr->argc, rr->argv, &rr->orig, cmd);
}

/* The cases of the report that did not pass, by plan index. */
static int mark_cases(bitcts_cli_rerun *rr, const char *path, const bitcts_plan *plan)
{
    const json_t *cases = json_object_get(rr->report, "cases");
    rr->only = calloc(plan->count + 1, 1);
    if (rr->only == NULL) {
        return bitcts_cli_error(CMD, "out of memory");
    }
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        const json_t *c = json_array_get(cases, i);
        if (passed(bitcts_report_case_verdict(c))) {
            continue;
        }
        const char *id = bitcts_report_str(c, "id");
        const bitcts_case_key *key = bitcts_plan_find(plan, id);
        if (key == NULL) {
            return bitcts_cli_error(CMD, "--rerun: %s: case '%s' is not in this bitcts's plan",
                                    path, id);
        }
        const size_t idx = (size_t)(key - plan->cases);
        rr->count += !rr->only[idx];
        rr->only[idx] = 1;
    }
    return 0;
}

int bitcts_cli_rerun_load(const char *path, const bitcts_plan *plan,
                          bitcts_cli_rerun_parse_fn parse, bitcts_cli_rerun *out)
{
    memset(out, 0, sizeof *out);
    char err[1200] = "";
    if (bitcts_report_files_load(path, &out->report, err, sizeof err) != BITCTS_OK) {
        return bitcts_cli_error(CMD, "--rerun: %s", err);
    }
    const char *seed = bitcts_report_str(out->report, "seed");
    if (bitcts_cli_parse_u64(seed, &out->seed) != 0) {
        return bitcts_cli_error(CMD, "--rerun: %s: its seed '%s' is not a number", path, seed);
    }
    const int rc = parse_report_line(out, path, parse);
    return rc != 0 ? rc : mark_cases(out, path, plan);
}

static int same_options(const bitcts_backend_options *a, const bitcts_backend_options *b)
{
    if (a->count != b->count) {
        return 0;
    }
    for (uint32_t i = 0; i < a->count; ++i) {
        if (strcmp(a->keys[i], b->keys[i]) != 0 || strcmp(a->values[i], b->values[i]) != 0) {
            return 0;
        }
    }
    return 1;
}

/* An outcome option of the command line that differs from the report's is refused. */
static int check_outcome_options(const bitcts_cli_rerun *rr, const char *path, int argc,
                                 char **argv, const bitcts_run_config *mine)
{
    const bitcts_run_config *theirs = &rr->orig.cfg;
    const struct {
        const char *name;
        int differs;
    } checks[] = {
        {"--backend", strcmp(mine->backend_spec != NULL ? mine->backend_spec : "",
                             theirs->backend_spec != NULL ? theirs->backend_spec : "") != 0},
        {"--seed", mine->seed != rr->seed},
        {"--timeout", mine->timeout_s != theirs->timeout_s},
        {"--isolate", mine->isolate_case != theirs->isolate_case},
        {"--repeat",
         (mine->repeat > 1 ? mine->repeat : 1) != (theirs->repeat > 1 ? theirs->repeat : 1)},
        {"--backend-option", !same_options(&mine->options, &theirs->options)},
        {"--threads", !same_options(&mine->options, &theirs->options)},
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; ++i) {
        if (gives(argc, argv, checks[i].name) && checks[i].differs) {
            return bitcts_cli_error(CMD,
                                    "--rerun: %s differs from %s's; a rerun keeps the options "
                                    "that change outcomes (leave it out)",
                                    checks[i].name, path);
        }
    }
    static const char *const selecting[] = {"--tier", "--feature-level", "--shard", "--shard-count",
                                            "--shard-timings"};
    for (size_t i = 0; i < sizeof selecting / sizeof selecting[0]; ++i) {
        if (gives(argc, argv, selecting[i])) {
            return bitcts_cli_error(
                CMD,
                "--rerun: %s does not apply: the cases are those of %s that "
                "did not pass (--filter, --exclude, --skips and --claimed may narrow them)",
                selecting[i], path);
        }
    }
    return 0;
}

/* Appends to line (argv as given) each outcome option taken from the report that argv does not
 * give. */
static json_t *effective_line(const bitcts_cli_rerun *rr, int argc, char **argv, json_t *line)
{
    const bitcts_run_config *o = &rr->orig.cfg;
    char seed[32], timeout[32], repeat[16];
    snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)rr->seed);
    snprintf(timeout, sizeof timeout, "%.17g", o->timeout_s);
    snprintf(repeat, sizeof repeat, "%u", o->repeat > 1 ? o->repeat : 1);
    const char *const pairs[][2] = {{"--backend", o->backend_spec},
                                    {"--seed", seed},
                                    {"--timeout", timeout},
                                    {"--isolate", o->isolate_case ? "case" : "batch"},
                                    {"--repeat", repeat}};
    for (size_t i = 0; line != NULL && i < sizeof pairs / sizeof pairs[0]; ++i) {
        if (!gives(argc, argv, pairs[i][0]) && pairs[i][1] != NULL) {
            json_array_append_new(line, json_string(pairs[i][0]));
            json_array_append_new(line, json_string(pairs[i][1]));
        }
    }
    const int own = gives(argc, argv, "--backend-option") || gives(argc, argv, "--threads");
    for (uint32_t i = 0; line != NULL && !own && i < o->options.count; ++i) {
        char pair[700];
        snprintf(pair, sizeof pair, "%s=%s", o->options.keys[i], o->options.values[i]);
        json_array_append_new(line, json_string("--backend-option"));
        json_array_append_new(line, json_string(pair));
    }
    return line;
}

int bitcts_cli_rerun_apply(bitcts_cli_rerun *rr, const char *path, int argc, char **argv,
                           bitcts_cli_run *r, json_t *command_line)
{
    bitcts_run_config *cfg = &r->cfg;
    int rc = check_outcome_options(rr, path, argc, argv, cfg);
    char report_json[4200];
    bitcts_cli_report_file(path, report_json, sizeof report_json);
    char mine[4200];
    snprintf(mine, sizeof mine, "%s/report.json", cfg->report_dir);
    if (rc == 0 && bitcts_cli_same_file(mine, report_json)) {
        rc = bitcts_cli_error(CMD,
                              "--rerun: --report %s holds the report being rerun; give "
                              "another --report",
                              cfg->report_dir);
    }
    if (rc != 0) {
        return rc;
    }
    const bitcts_run_config *o = &rr->orig.cfg;
    cfg->backend_spec = o->backend_spec;
    cfg->options = o->options;
    cfg->seed = rr->seed;
    cfg->timeout_s = o->timeout_s;
    cfg->isolate_case = o->isolate_case;
    cfg->repeat = o->repeat;
    cfg->selection.tiers = BITCTS_TIER_ALL;
    cfg->tier_text = "all";
    cfg->selection.max_feature_level = 0;
    cfg->only = rr->only;
    return effective_line(rr, argc, argv, command_line) != NULL
               ? 0
               : bitcts_cli_error(CMD, "out of memory");
}

void bitcts_cli_rerun_free(bitcts_cli_rerun *rr)
{
    free(rr->argv);
    free(rr->only);
    json_decref(rr->report);
    memset(rr, 0, sizeof *rr);
}
