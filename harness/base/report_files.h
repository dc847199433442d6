/* SPDX-License-Identifier: MIT */
/* Report folders on disk (docs/report-schema.md): load a report, write a report folder.
 * Thread-safety: reentrant; a report given to these functions is only read. */
#ifndef BITCTS_HARNESS_REPORT_FILES_H
#define BITCTS_HARNESS_REPORT_FILES_H

#include <stddef.h> /* size_t */

#include "report.h" /* json_t, bitcts_status, the model */

/** Reads PATH/report.json when PATH is a folder, else the file PATH, then parses and validates
 * it (bitcts_report_parse).
 * @return as bitcts_report_parse, plus BITCTS_E_IO (cannot read) and BITCTS_E_PARSE (larger
 *         than BITCTS_REPORT_MAX_BYTES). */
BITCTS_NODISCARD bitcts_status bitcts_report_files_load(const char *path, json_t **out, char *err,
                                                        size_t cap);

/** The file that marks a folder as a report folder bitcts made. */
#define BITCTS_REPORT_FOLDER_MARK ".bitcts-report"

/** May bitcts write a report into DIR? Yes when DIR is missing, empty or a report folder bitcts
 * made (its mark, a bitcts run log, or a report.json that is a bitcts report), or when `force`
 * is set and DIR is a folder. Writes nothing.
 * @param option [in] how the command line names DIR ("--report", "--out"), for err.
 * @return BITCTS_OK; BITCTS_E_EXISTS with err naming DIR and why. */
BITCTS_NODISCARD int bitcts_report_files_can_claim(const char *dir, int force, const char *option,
                                                   char *err, size_t cap);

/** Creates DIR if needed and marks it as a report folder (BITCTS_REPORT_FOLDER_MARK).
 * @return BITCTS_OK; BITCTS_E_IO with err. */
BITCTS_NODISCARD int bitcts_report_files_claim(const char *dir, char *err, size_t cap);

/** Validates the report, then writes DIR/report.json, DIR/junit.xml, DIR/report.html and
 * DIR/summary.md, each atomically, creating and marking DIR if needed
 * (bitcts_report_files_claim).
 * @param err [out] one line naming the file and the problem on failure, "" on success.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT; BITCTS_E_PARSE and BITCTS_E_FORMAT_VERSION (the
 *         report fails validation: nothing is written); BITCTS_E_IO; BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD int bitcts_report_files_write(const json_t *report, const char *dir, char *err,
                                               size_t cap);

/** As bitcts_report_files_write for a report bitcts_report_builder_finish has just returned
 * (validated there, unchanged since): written without validating it a second time. Same
 * statuses but the validation's. */
BITCTS_NODISCARD int bitcts_report_files_write_assembled(const json_t *report, const char *dir,
                                                         char *err, size_t cap);

/** As bitcts_report_files_write, but leaves DIR/report.json alone: re-renders the three views
 * (`bitcts report render`). Same statuses. */
BITCTS_NODISCARD int bitcts_report_files_write_views(const json_t *report, const char *dir,
                                                     char *err, size_t cap);

/** The "host" section of a report: {"hostname", "os", "machine", "cpus"} of this machine,
 * sanitised. New reference; NULL when out of memory. */
json_t *bitcts_report_files_host_json(void);

#endif
