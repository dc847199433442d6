/* SPDX-License-Identifier: MIT */
/* The reports module: report.json in, bytes out. Rendering (report.json, JUnit XML, HTML,
 * Markdown and the terminal summary), the builder every producer assembles a report with,
 * comparing two runs and merging shard reports. It depends on jansson and the SDK only: files
 * are the harness's business (harness/base/report_files.h). Thread-safety: reentrant; a report
 * given to these functions is only read. */
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
    BITCTS_REPORT_FORMAT_JSON = 0,     /* report.json */
    BITCTS_REPORT_FORMAT_JUNIT = 1,    /* junit.xml */
    BITCTS_REPORT_FORMAT_HTML = 2,     /* report.html */
    BITCTS_REPORT_FORMAT_MARKDOWN = 3, /* summary.md */
    BITCTS_REPORT_FORMAT_TEXT = 4      /* the terminal summary (no file) */
} bitcts_report_format;

/* What the human views show of their failure groups (same verdict, operator and message; see
 * report_group.h). report.html lists every listed case, in its group, searchable; it shows the
 * full evidence (bit tables) of the first few cases of each group. summary.md and the terminal
 * list each group with its count and first case, up to a number of groups, and say how many
 * groups they left out. report.json always holds every case. */
#define BITCTS_REPORT_HTML_GROUP_CARDS 2u
#define BITCTS_REPORT_MD_MAX_GROUPS 50u
#define BITCTS_REPORT_TEXT_MAX_GROUPS 12u
#define BITCTS_REPORT_TEXT_SLOWEST 5u

/* ---- rendering ---- */

/** Renders one format of a *validated* report into a NUL-terminated malloc'd buffer.
 * @param out [out] the text, owned by the caller (free()); NULL on failure.
 * @param size [out] optional; its length in bytes.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT (unknown format, NULL pointers);
 *         BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD bitcts_status bitcts_report_render(const json_t *report,
                                                    bitcts_report_format format, char **out,
                                                    size_t *size);

/** Renders `count` formats of one *validated* report, as bitcts_report_render renders each, from
 * one view built once (the tally, the groups and the analysis are computed once, not per
 * format). out[i] and size[i] (size optional) for formats[i]; on failure every out[i] is NULL.
 * Thread-safety: reentrant; the report is only read (jansson's json_dumps and getters do not
 * write to the tree), so other threads may render the same report meanwhile. */
BITCTS_NODISCARD bitcts_status bitcts_report_render_set(const json_t *report,
                                                        const bitcts_report_format *formats,
                                                        size_t count, char **out, size_t *size);

/* ---- building ---- */

/** Assembles a report.json object: the one way bitcts run, check and report merge produce one.
 * Single-threaded; destroy it after finish. */
typedef struct bitcts_report_builder bitcts_report_builder;

/** Starts a report from the fields that say what ran (docs/report-schema.md): suite_version,
 * generator_version, seed, command_line, started, selection, backend, host. They are copied;
 * fields the builder derives (schema, schema_version, cases, summary, slowest, finished,
 * duration_s) are dropped from the copy.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT (not an object); BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD bitcts_status bitcts_report_builder_create(const json_t *identity,
                                                            bitcts_report_builder **out);
/** Appends a case object (docs/report-schema.md, "cases"); the builder takes the reference,
 * also on failure. @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT; BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD bitcts_status bitcts_report_builder_add(bitcts_report_builder *b,
                                                         json_t *case_obj);
/** Sets schema, finished and duration_s, derives summary and slowest (bitcts_report_summarize,
 * bitcts_report_slowest) from the cases, validates the whole and hands it over.
 * @param out [out] the report, a new reference; the builder no longer holds it.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT; BITCTS_E_OUT_OF_MEMORY; BITCTS_E_PARSE (the
 *         result fails validation: a producer's bug, named in err). */
BITCTS_NODISCARD bitcts_status bitcts_report_builder_finish(bitcts_report_builder *b,
                                                            const char *finished, double duration_s,
                                                            json_t **out, char *err, size_t cap);
void bitcts_report_builder_destroy(bitcts_report_builder *b);

/* ---- comparing and merging ---- */

/** Compares run A with run B, case by case (matched by id), using bitcts_report_verdict_change.
 * The result is {"schema": "bitcts-report-diff", "schema_version": "1.1",
 * "a" and "b": {suite_version, seed, backend (name), library_xxh3_128, cases (count)} (the
 * CLI adds "path"),
 * "digests_compared": bool (false when the seeds or generator versions differ),
 * "regressions", "fixes", "changed": [{"id", "operator", "from", "to", "detail"}],
 * "digest_changed": [{"id", "operator", "verdict", "from", "to"}] (same verdict, pass, warn or
 * recorded, both digests non-empty and different), "added" and "removed":
 * [{"id", "operator", "verdict"}], "summary": {"compared", "regressions", "fixes", "changed",
 * "digest_changed", "added", "removed"}}; lists follow B's case order (removed: A's). With
 * regressions, "analysis" explains them (bitcts__report_analysis, report_analysis.h, over B's
 * compared cases: the regressed ones failing, the healthy ones passing, the rest not judged).
 * 1.1 adds "provenance" (what differs between the two reports' identities) and "groups" (the
 * regressions grouped as the reports group failures): report_diff_cause.h.
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

/* ---- the conformance matrix ---- */

/** Folds several validated reports (one per framework or backend, docs/check.md) into a
 * matrix: one row per operator and type ("bit_count" rows: "<in>-><out>"), one column per
 * report, each cell {"state": "pass" | "fail" | "not_supported" | "recorded" | "none",
 * "text", "counts": {verdict: n}, "policies": [...], "cases", "failing", "reason" (the first
 * not_supported detail), "first": null | {"id", "verdict", "detail", "mismatch",
 * "mismatches", "elements"} (the first failing case)}; negative cases are counted per column
 * in "negative". Rows in order of first appearance.
 * @param labels [in] column names, or NULL (then "<backend name> (<info.device>)").
 * @param out [out] new reference.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT (no reports); BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD bitcts_status bitcts_report_matrix(const json_t *const *reports,
                                                    const char *const *labels, size_t count,
                                                    json_t **out);
/** Renders a matrix as Markdown (BITCTS_REPORT_FORMAT_MARKDOWN: the framework table, the
 * matrix, each failing cell's first deviation, the not-supported reasons, the negative cases)
 * or HTML (BITCTS_REPORT_FORMAT_HTML). @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT (another
 * format); BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD bitcts_status bitcts_report_matrix_render(const json_t *matrix,
                                                           bitcts_report_format format, char **out,
                                                           size_t *size);

#ifdef __cplusplus
}
#endif
#endif
