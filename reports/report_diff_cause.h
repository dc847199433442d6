/* SPDX-License-Identifier: MIT */
/* What points at the cause of a diff (report diff's "provenance" and "groups"). Internal to
 * reports/. Thread-safety: pure functions of their arguments. */
#ifndef BITCTS_REPORTS_REPORT_DIFF_CAUSE_H
#define BITCTS_REPORTS_REPORT_DIFF_CAUSE_H

#include <jansson.h> /* json_t */

/** What differs between the identities of reports A and B, in a fixed order: [{"what":
 * "backend.library_xxh3_128", "from": value in A or null, "to": value in B or null}] over
 * bitcts (suite_version, suite_commit, generator_version, seed), the backend (name, vendor,
 * version, build_id, library_xxh3_128, library_size, feature_level, device, info), the host
 * (hostname, os, machine, cpus) and the selection (tier, filter, exclude, feature_level).
 * @return a new array; NULL when out of memory. */
json_t *bitcts__report_diff_provenance(const json_t *a, const json_t *b);

/** The regressions ([{"id", "operator", "from", "to", "detail"}]) grouped as the reports group
 * failures (one verdict they went to, operator and message signature; largest first):
 * [{"verdict", "operator", "signature", "count", "from": {verdict: count}, "spread": {facet:
 * {"distinct", "top", "count"}}, "ids": [every id, in the regressions' order]}].
 * @return a new array; NULL when out of memory. */
json_t *bitcts__report_diff_groups(const json_t *regressions);

#endif
