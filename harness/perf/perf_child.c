/* SPDX-License-Identifier: MIT */
/* Starting bench's and sweep's backend process (perf_child.h). */
#include "perf_child.h"

#include <stdio.h>  /* snprintf */
#include <string.h> /* strlen */

#include "bitcts/bitcts_status.h"

int bitcts__perf_run(const bitcts__perf_launch *l, int *refused, bitcts_supervise_result *sv,
                     char *err, size_t cap)
{
    bitcts_backend_spec spec;
    const int st = bitcts_backend_resolve(l->backend_spec, l->options, &spec, err, cap);
    if (st != BITCTS_OK) {
        *refused = 1;
        return st;
    }
    const bitcts_supervise_config sv_cfg = {.timeout_s = l->timeout_s > 0 ? l->timeout_s : 120,
                                            .on_line = l->on_line,
                                            .user = l->user,
                                            .interrupted = l->interrupted,
                                            .on_end = l->on_end,
                                            .others = l->others,
                                            .other_count = l->other_count};
    bitcts__perf_job job = {.cfg = l->cfg, .spec = &spec};
    if (bitcts_supervise_run(&sv_cfg, l->child_main, &job, sv, err, cap) != 0) {
        return BITCTS_E_INTERNAL;
    }
    return BITCTS_OK;
}

int bitcts__perf_settle(const bitcts_supervise_result *sv, const bitcts__perf_end *end,
                        int *refused, char *err, size_t cap)
{
    if (end->refusal_status != 0 && bitcts_supervise_clean(sv)) {
        *refused = 1;
        snprintf(err, cap, "%s", end->refusal);
        return end->refusal_status;
    }
    if (!bitcts_supervise_clean(sv)) {
        bitcts_supervise_describe(sv, err, cap);
        const size_t used = strlen(err);
        const char phase = sv->timed_out ? sv->killed_for : sv->phase;
        if ((phase == 'P' || phase == 'C') && used < cap) {
            snprintf(err + used, cap - used, "%s", end->where);
        }
        return sv->interrupted ? BITCTS_E_INTERNAL : BITCTS_E_BACKEND_FAILED;
    }
    if (end->internal[0] != '\0') {
        snprintf(err, cap, "%s", end->internal);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    return BITCTS_OK;
}
