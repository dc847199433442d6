/* SPDX-License-Identifier: MIT */
/* The reports module as the harness sees it: writing a run's report folder (report.json,
 * junit.xml, report.html, summary.md), comparing two runs, merging shard reports, and the
 * `bitcts report` subcommand. It reads and writes report files only and never links harness
 * internals. Thread-safety: reentrant; a report given to these functions is only read. */
#ifndef BITCTS_REPORTS_REPORT_H
#define BITCTS_REPORTS_REPORT_H

#include <stddef.h> /* size_t */

#include <jansson.h> /* json_t */

#include "report_model.h" /* the model, verdicts, bitcts_status */

#ifdef __cplusplus
extern "C" {
#endif

/* Formats of bitcts_report_render. */
typedef enum bitcts_report_format {
    BITCTS_REPORT_FORMAT_JSON = 0,    /* report.json */
    BITCTS_REPORT_FORMAT_JUNIT = 1,   /* junit.xml */
    BITCTS_REPORT_FORMAT_HTML = 2,    /* report.html */
    BITCTS_REPORT_FORMAT_MARKDOWN = 3 /* summary.md */
} bitcts_report_format;

/* Caps on what the human views list; report.json always holds every case. */
#define BITCTS_REPORT_HTML_MAX_FAILURES 500u
#define BITCTS_REPORT_MD_MAX_FAILURES 50u

/* ---- writing ---- */

/** Validates the report, then writes DIR/report.json, DIR/junit.xml, DIR/report.html and
 * DIR/summary.md, each atomically (a temporary name, then rename), creating DIR if needed.
 * @param report [in] a report object (docs/report-schema.md); borrowed.
 * @param dir [in] the report folder.
 * @param err [out] one line naming the file and the problem on failure, "" on success.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT; BITCTS_E_PARSE and BITCTS_E_FORMAT_VERSION (the
 *         report fails validation: nothing is written); BITCTS_E_IO; BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD int bitcts_report_write_all(const json_t *report, const char *dir, char *err,
                                             size_t cap);
/** As bitcts_report_write_all, but leaves DIR/report.json alone: re-renders the three views
 * (used by `bitcts report render` on an existing report). Same statuses. */
BITCTS_NODISCARD int bitcts_report_write_views(const json_t *report, const char *dir, char *err,
                                               size_t cap);
/** Renders one format of a *validated* report into a NUL-terminated malloc'd buffer.
 * @param out [out] the text, owned by the caller (free()); NULL on failure.
 * @param size [out] optional; its length in bytes.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT (unknown format, NULL pointers);
 *         BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD bitcts_status bitcts_report_render(const json_t *report,
                                                    bitcts_report_format format, char **out,
                                                    size_t *size);

/* ---- comparing and merging ---- */

/** Compares run A with run B, case by case (matched by id), using bitcts_report_verdict_change.
 * The result is {"schema": "bitcts-report-diff", "schema_version": "1.0",
 * "a" and "b": {suite_version, seed, backend (name), library_xxh3_128, cases (count)} (the
 * CLI adds "path"),
 * "digests_compared": bool (false when the seeds or generator versions differ),
 * "regressions", "fixes", "changed": [{"id", "operator", "from", "to", "detail"}],
 * "digest_changed": [{"id", "operator", "verdict", "from", "to"}] (same verdict, pass, warn or
 * recorded, both digests non-empty and different), "added" and "removed":
 * [{"id", "operator", "verdict"}], "summary": {"compared", "regressions", "fixes", "changed",
 * "digest_changed", "added", "removed"}}; lists follow B's case order (removed: A's).
 * @param a [in] validated report of the earlier run.
 * @param b [in] validated report of the later run.
 * @param out [out] new reference.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT; BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD bitcts_status bitcts_report_diff(const json_t *a, const json_t *b, json_t **out);

/** Joins the shard reports of one run into one report. The shards must agree on schema version,
 * suite and generator version, seed, backend name and library digest, and selection (tier,
 * filter, feature level); their "shard" fields must be all "" or "i/n" with one n and every i
 * exactly once. A case id found in two shards must have the same verdict, digest, detail,
 * policy and failure (then one copy is kept). The result copies the first shard, then sets:
 * cases sorted by "plan_index" (cases without one after, by id), summary and slowest
 * recomputed, selection.shard "", duration_s summed, started the earliest, finished the
 * latest, "--shard X" dropped from command_line.
 * @param shards [in] `count` validated reports; borrowed.
 * @param names [in] their names for errors (e.g. the paths).
 * @param out [out] new reference.
 * @param err [out] one line naming the shard(s) and the disagreement on failure.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT (no shards, NULL pointers, shards that do not
 *         belong to one run, conflicting cases); BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD bitcts_status bitcts_report_merge(const json_t *const *shards,
                                                   const char *const *names, size_t count,
                                                   json_t **out, char *err, size_t cap);

/* ---- command line ---- */

/** `bitcts report diff|merge|render ...`; argv[0] is "report". Prints to stdout/stderr.
 * @return the exit code: 0 success (diff: no regression), 1 diff found regressions,
 *         2 bad input (one-line error on stderr). */
int bitcts_cmd_report(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
