/* SPDX-License-Identifier: MIT */
/* The source commit bitcts was built from, for reports (provenance). Its definition is
 * generated at build time from git (cmake/SourceCommit.cmake). Thread-safety: a constant. */
#ifndef BITCTS_HARNESS_BASE_SOURCE_COMMIT_H
#define BITCTS_HARNESS_BASE_SOURCE_COMMIT_H

/** The commit as 40 hex digits, with "-dirty" when tracked files differed from it at build
 * time; "unknown" when built outside a git checkout. */
const char *bitcts_source_commit(void);

#endif
