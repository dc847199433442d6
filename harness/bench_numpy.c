/* SPDX-License-Identifier: MIT */
/* NumPy beside the bench: one Python process runs the same operation on the same shapes and
 * layouts (single-threaded, as NumPy is) and prints the median seconds of each. A missing
 * interpreter or NumPy leaves the column n/a with the reason. */
#include <stdio.h>    /* snprintf, fdopen */
#include <stdlib.h>   /* calloc, strtod */
#include <string.h>   /* strncmp */
#include <sys/wait.h> /* waitpid */
#include <unistd.h>   /* fork, execv, pipe */

#include "bench.h"
#include "tensor_model.h"

static const char numpy_script[] =
    "import sys, time\n"
    "try:\n"
    "    import numpy as np\n"
    "except Exception as e:\n"
    "    print('ERROR', e, flush=True); sys.exit(0)\n"
    "print('VERSION', np.__version__, flush=True)\n"
    "reps = int(sys.argv[1])\n"
    "T = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}\n"
    "for spec in sys.argv[2:]:\n"
    "    i, op, w, ow, lay, r, c = spec.split(':')\n"
    "    w, ow, r, c = int(w), int(ow), int(r), int(c)\n"
    "    f = getattr(np, op, None)\n"
    "    if f is None or (op == 'bitwise_count' and ow != 1):\n"
    "        print('RESULT', i, 'na', flush=True); continue\n"
    "    t = T[w]\n"
    "    if lay == 'padded':\n"
    "        a = np.full((r, c + 64 // w), 90, t)[:, :c]\n"
    "        b = np.full((r, c + 64 // w), 3, t)[:, :c]\n"
    "        o = np.zeros((r, c + 64 // ow), T[ow])[:, :c]\n"
    "    else:\n"
    "        a = np.full((c, r), 90, t).T if lay == 'transposed' else np.full((r, c), 90, t)\n"
    "        b = np.array(3, t) if lay == 'bcast' else np.full((r, c), 3, t)\n"
    "        o = np.zeros((r, c), T[ow])\n"
    "    args = (a,) if op in ('invert', 'bitwise_count') else (a, b)\n"
    "    ts = []\n"
    "    for k in range(reps):\n"
    "        t0 = time.perf_counter(); f(*args, out=o); ts.append(time.perf_counter() - t0)\n"
    "    ts.sort()\n"
    "    m = ts[len(ts) // 2] if len(ts) % 2 else (ts[len(ts) // 2 - 1] + ts[len(ts) // 2]) / 2\n"
    "    print('RESULT', i, '%.9f' % m, flush=True)\n"
    "    del a, b, o\n";

/* NumPy's function for an operator. */
static const char *numpy_function(uint32_t op)
{
    switch (op) {
    case BITCTS_OP_BIT_AND: return "bitwise_and";
    case BITCTS_OP_BIT_OR: return "bitwise_or";
    case BITCTS_OP_BIT_XOR: return "bitwise_xor";
    case BITCTS_OP_BIT_NOT: return "invert";
    case BITCTS_OP_BIT_COUNT: return "bitwise_count";
    case BITCTS_OP_BIT_SHIFT_LEFT: return "left_shift";
    default: return "right_shift";
    }
}

/* A "RESULT i seconds" line sets row i's speed and every later row of the same shape. */
static void numpy_line(bitcts_bench_result *r, size_t per_shape, const char *line)
{
    long index = -1;
    char value[64];
    if (strncmp(line, "VERSION ", 8) == 0) {
        snprintf(r->numpy_version, sizeof r->numpy_version, "%.*s", (int)strcspn(line + 8, "\n"),
                 line + 8);
    } else if (strncmp(line, "ERROR ", 6) == 0) {
        snprintf(r->numpy_note, sizeof r->numpy_note, "numpy unavailable: %.*s",
                 (int)strcspn(line + 6, "\n"), line + 6);
    } else if (sscanf(line, "RESULT %ld %63s", &index, value) == 2 && index >= 0 &&
               (size_t)index < r->row_count && strcmp(value, "na") != 0) {
        const double seconds = strtod(value, NULL);
        for (size_t k = 0; seconds > 0 && k < per_shape; ++k) {
            bitcts_bench_row *row = &r->rows[(size_t)index + k];
            row->numpy_gbps = row->useful_bytes / seconds / 1e9;
        }
    }
}

void bitcts__bench_numpy(const bitcts_bench_config *cfg, bitcts_bench_result *r)
{
    const size_t per_shape = cfg->thread_count > 0 ? (size_t)cfg->thread_count : 1;
    const size_t shapes = r->row_count / per_shape;
    char reps[16];
    snprintf(reps, sizeof reps, "%u", cfg->reps);
    char **args = calloc(shapes + 5, sizeof *args);
    char *specs = calloc(shapes + 1, 96);
    if (args == NULL || specs == NULL) {
        free(args);
        free(specs);
        snprintf(r->numpy_note, sizeof r->numpy_note, "out of memory");
        return;
    }
    args[0] = "python3";
    args[1] = "-c";
    args[2] = (char *)numpy_script;
    args[3] = reps;
    for (size_t i = 0; i < shapes; ++i) {
        const bitcts_bench_row *row = &r->rows[i * per_shape];
        char *s = specs + i * 96;
        snprintf(s, 96, "%zu:%s:%u:%u:%s:%u:%u", i * per_shape, numpy_function(row->op),
                 bitcts_dtype_size(row->in_type), bitcts_dtype_size(row->out_type),
                 bitcts_bench_layout_name(row->layout), row->rows, row->cols);
        args[4 + i] = s;
    }
    int fd[2];
    pid_t pid = -1;
    if (pipe(fd) == 0 && (pid = fork()) == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execv(cfg->python, args);
        _exit(127);
    }
    if (pid > 0) {
        close(fd[1]);
        FILE *f = fdopen(fd[0], "r");
        char line[512];
        while (f != NULL && fgets(line, sizeof line, f) != NULL) {
            numpy_line(r, per_shape, line);
        }
        if (f != NULL) {
            fclose(f);
        }
        int status = 0;
        waitpid(pid, &status, 0);
    }
    if (r->numpy_version[0] == '\0' && r->numpy_note[0] == '\0') {
        snprintf(r->numpy_note, sizeof r->numpy_note, "%s could not be run", cfg->python);
    }
    free(args);
    free(specs);
}
