/* SPDX-License-Identifier: MIT */
/* Starting bench's and sweep's backend process (perf_child.h). */
#include "perf_child.h"

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
                                            .interrupted = l->interrupted};
    bitcts__perf_job job = {.cfg = l->cfg, .spec = &spec};
    if (bitcts_supervise_run(&sv_cfg, l->child_main, &job, sv, err, cap) != 0) {
        return BITCTS_E_INTERNAL;
    }
    return BITCTS_OK;
}
