# SPDX-License-Identifier: MIT
"""The peers of `bitcts bench`: other libraries timed on the same shapes, layouts and widths as
the backend, in this process, one library per process.

    python3 bench_peers.py --peer NAME --reps N [--fd FD --prefix TEXT] [--threads T]
                           [--cpus LIST] [--budget-s S] JOB...

NAME is numpy, torch-cpu, torch-cuda, cupy or jax. A JOB is "id:op:w:ow:layout:rows:cols": op
one of and, or, xor, not, count, shl, shr, copy; w and ow the input and output widths in bytes;
layout packed, padded (rows padded by 64 bytes), transposed (A stored column-major) or bcast (B
one element). Each result is one JSON object on a line (after TEXT and a space when --prefix is
given), written to descriptor FD (default: standard output):
    {"peer": ..., "version": ..., "device": ..., "note": ...}   first
    {"id": ..., "seconds": ...}    the median of N timed runs after a warm-up
    {"id": ..., "absent": ...}     the library cannot run this job, and why
    {"absent": ...}                the library cannot run at all, and why
--cpus (e.g. 0,1,2) runs the process on those CPUs only (the bench's one thread per core);
--threads sets PyTorch's CPU threads (torch.set_num_threads) to the backend's row's count.
--budget-s S: the jobs share S seconds: a job repeats (at least once) within its even share of
what is left, and the jobs not started when the time is out are answered absent,
"not measured: the time budget ran out".
Device peers are timed with device events (CUDA events; JAX: block_until_ready). bitcts embeds
this file in its executable; `bitcts bench --peers-script FILE` runs another copy.

    python3 bench_peers.py --serve --peer NAME [--fd FD --prefix TEXT] [--threads T] [--cpus LIST]

A host peer (numpy, torch-cpu) timed interleaved with the backend, reading the backend's buffers
(docs/performance.md, "Peers on the same buffers"): after its first line it reads commands on
its standard input, one a line, and answers each with one JSON line:
    map PATH_A PATH_B PATH_OUT OFFSET   maps the three shared buffers (files, read-only), the
                                        tensors starting OFFSET bytes in; the peer writes its
                                        outputs to a buffer of its own of the same size
                                                                        -> {"mapped": true}
    copy BYTES                          times a copy of BYTES from A to its output (the median
                                        of three)                       -> {"id": "copy", "seconds": s}
    row ID OP W OW ROWS COLS SA0 SA1 SB0 SB1 SO0 SO1
                                        the row's tensors as views of the buffers, strides in
                                        elements (a broadcast B: 0 0; a unary operator's B is
                                        ignored)                        -> {"id": ID, "ready": true}
    rep ID                              runs the row once               -> {"id": ID, "seconds": s}
A row or map the library cannot take is answered {"id": ..., "absent": why}; end of input ends
the process.
"""

import os
import sys
import time
from types import SimpleNamespace

PAD = 64  # bytes of padding per row, as in bitcts's padded layout


class Out:
    def __init__(self, fd, prefix):
        self.fd = fd
        self.prefix = prefix + " " if prefix else ""

    def send(self, obj):
        import json

        line = self.prefix + json.dumps(obj, separators=(",", ":")) + "\n"
        data = line.encode("utf-8", "replace")
        while data:
            data = data[os.write(self.fd, data):]


def median(values):
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


HOST_BUDGET_S = 3.0  # a host peer's job stops repeating after this long (with 3 runs or more)
DEADLINE = [0.0, 0]  # --budget-s: the end on time.monotonic()'s scale (0: none), jobs left
OUT_OF_TIME = "not measured: the time budget ran out"


def job_share():
    """Within a budget, the seconds the next job may repeat in: an even share of what is left
    over the jobs left; None without a budget."""
    if DEADLINE[0] <= 0:
        return None
    left = DEADLINE[0] - time.monotonic()
    return left / (DEADLINE[1] + 1)  # out_of_time() counted this job already


def out_of_time():
    """Whether the budget is spent (a job not started now is not measured); counts a job."""
    DEADLINE[1] = max(0, DEADLINE[1] - 1)
    return DEADLINE[0] > 0 and time.monotonic() >= DEADLINE[0]


def host_timed(run, reps):
    """The median of reps timed runs with the host's clock, fewer (at least 3) once they took
    HOST_BUDGET_S: a peer 20-50x behind on a tensor of 4x the LLC would take minutes a job.
    Within a budget, fewer (at least 1) once the job's share of it is spent."""
    times, spent = [], 0.0
    share = job_share()
    for _ in range(reps):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
        spent += times[-1]
        if spent > HOST_BUDGET_S and len(times) >= 3:
            break
        if share is not None and spent > share:
            break
    return median(times)


def parse_job(text):
    ident, op, w, ow, layout, rows, cols = text.split(":")
    return {"id": ident, "op": op, "w": int(w), "ow": int(ow), "layout": layout,
            "rows": int(rows), "cols": int(cols)}


def store_bytes(job):
    """The largest number of bytes one operand of the job needs."""
    w, r, c = job["w"], job["rows"], job["cols"]
    return r * (c + PAD // w) * w if job["layout"] == "padded" else r * c * w


def shapes(job):
    """(A's storage shape, how A is viewed, B's storage shape or None for a scalar, out shape,
    out view) for the job's layout; views are "slice", "T" or None."""
    r, c, w, ow = job["rows"], job["cols"], job["w"], job["ow"]
    lay = job["layout"]
    if lay == "padded":
        return (r, c + PAD // w), "slice", (r, c + PAD // w), (r, c + PAD // ow), "slice"
    if lay == "transposed":
        return (c, r), "T", (r, c), (r, c), None
    if lay == "bcast":
        return (r, c), None, None, (r, c), None
    return (r, c), None, (r, c), (r, c), None


UNARY = ("not", "count", "copy")
TORCH_NO_POPCOUNT = "PyTorch has no popcount"
B_OFFSET = 4099  # B is read from another place of the random pool than A


def pool_bytes(jobs):
    """Random bytes enough for any operand of the jobs, B's offset included."""
    return max(store_bytes(j) for j in jobs) + B_OFFSET


def job_runner(job, lib):
    """The job's operands made with an array library and a function that runs the job once on
    them. lib: types (width to element type), funcs (op to function), stored(shape, t, offset),
    zeros(shape, t), scalar(value, t), transpose(x), copy(o, a) and mask(b, t, m) (b &= m in
    place). A is viewed as the layout says, B is read from B_OFFSET, shift counts are masked."""
    t, ot = lib.types[job["w"]], lib.types[job["ow"]]
    sa, va, sb, so, vo = shapes(job)
    c = job["cols"]
    a = lib.stored(sa, t, 0)
    a = a[:, :c] if va == "slice" else lib.transpose(a) if va == "T" else a
    o = lib.zeros(so, ot)
    o = o[:, :c] if vo == "slice" else o
    if job["op"] == "copy":
        def run(copy=lib.copy, a=a, o=o):
            copy(o, a)
        return run
    if job["op"] in UNARY:
        def run(f=lib.funcs[job["op"]], a=a, o=o):
            f(a, out=o)
        return run
    b = lib.scalar(3, t) if sb is None else lib.stored(sb, t, B_OFFSET)
    b = b[:, :c] if sb is not None and va == "slice" else b
    if job["op"] in ("shl", "shr"):
        lib.mask(b, t, 8 * job["w"] - 1)

    def run(f=lib.funcs[job["op"]], a=a, b=b, o=o):
        f(a, b, out=o)
    return run


# ---- NumPy ----

def run_numpy(jobs, reps, out):
    import numpy as np

    count = getattr(np, "bitwise_count", None)
    no_count = "numpy %s has no bitwise_count (NumPy 2.0 has it)" % np.__version__
    out.send({"peer": "numpy", "version": np.__version__, "device": "cpu, 1 thread",
              "note": "" if count is not None else no_count})
    types = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
    pool = np.random.default_rng(1).integers(0, 256, size=pool_bytes(jobs), dtype=np.uint8)
    funcs = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
             "not": np.invert, "count": count, "shl": np.left_shift, "shr": np.right_shift}

    def stored(shape, t, offset=0):
        a = np.empty(shape, t)
        a.reshape(-1).view(np.uint8)[:] = pool[offset:offset + a.nbytes]
        return a

    lib = SimpleNamespace(types=types, funcs=funcs, stored=stored, zeros=np.zeros,
                          scalar=np.array, transpose=lambda x: x.T, copy=np.copyto,
                          mask=lambda b, t, m: np.bitwise_and(b, t(m), out=b))
    for job in jobs:
        if out_of_time():
            out.send({"id": job["id"], "absent": OUT_OF_TIME})
            continue
        if job["op"] != "copy" and funcs[job["op"]] is None:
            out.send({"id": job["id"], "absent": no_count})
            continue
        run = job_runner(job, lib)
        run()
        out.send({"id": job["id"], "seconds": host_timed(run, reps)})
        run = None


# ---- PyTorch ----

def run_torch(jobs, reps, out, cuda):
    import torch

    if not cuda and THREADS[0] > 0:
        torch.set_num_threads(THREADS[0])
    name = "torch-cuda" if cuda else "torch-cpu"
    if cuda and not torch.cuda.is_available():
        out.send({"absent": "torch %s: torch.cuda.is_available() is False" % torch.__version__})
        return
    dev = torch.device("cuda:0" if cuda else "cpu")
    threads = torch.get_num_threads()
    device = (torch.cuda.get_device_name(0) if cuda
              else "cpu, %d thread%s" % (threads, "" if threads == 1 else "s"))
    version = torch.__version__ + (" (CUDA %s)" % torch.version.cuda if cuda else "")
    out.send({"peer": name, "version": version, "device": device,
              "note": "uint16/32/64 run as int16/32/64 (same bits; PyTorch's bitwise kernels "
                      "lack those unsigned types, its right shift is arithmetic); " + TORCH_NO_POPCOUNT})
    types = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    torch.manual_seed(1)
    pool = torch.randint(0, 256, (pool_bytes(jobs),), dtype=torch.uint8, device=dev)
    funcs = {"and": torch.bitwise_and, "or": torch.bitwise_or, "xor": torch.bitwise_xor,
             "not": torch.bitwise_not, "shl": getattr(torch, "bitwise_left_shift", None),
             "shr": getattr(torch, "bitwise_right_shift", None)}

    def stored(shape, t, offset=0):
        n = 1
        for s in shape:
            n *= s
        size = n * torch.tensor([], dtype=t).element_size()
        return pool[offset:offset + size].clone().view(t).reshape(shape)

    def timed(run):
        run()
        if not cuda:
            return host_timed(run, reps)
        torch.cuda.synchronize()
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(reps)]
        for start, end in events:
            start.record()
            run()
            end.record()
        torch.cuda.synchronize()
        return median([start.elapsed_time(end) / 1e3 for start, end in events])

    lib = SimpleNamespace(types=types, funcs=funcs, stored=stored,
                          zeros=lambda shape, t: torch.zeros(shape, dtype=t, device=dev),
                          scalar=lambda v, t: torch.tensor(v, dtype=t, device=dev),
                          transpose=lambda x: x.t(), copy=lambda o, a: o.copy_(a),
                          mask=lambda b, t, m: b.bitwise_and_(m))
    for job in jobs:
        if out_of_time():
            out.send({"id": job["id"], "absent": OUT_OF_TIME})
            continue
        if job["op"] == "count":
            out.send({"id": job["id"], "absent": TORCH_NO_POPCOUNT})
            continue
        if job["op"] != "copy" and funcs.get(job["op"]) is None:
            out.send({"id": job["id"], "absent": "torch %s lacks this function" % torch.__version__})
            continue
        try:
            run = job_runner(job, lib)
            out.send({"id": job["id"], "seconds": timed(run)})
        except Exception as e:  # noqa: BLE001 - a job the library refuses is absent
            out.send({"id": job["id"], "absent": "%s: %s" % (type(e).__name__, str(e)[:200])})
        run = None
        if cuda:
            torch.cuda.empty_cache()


# ---- CuPy ----

def run_cupy(jobs, reps, out):
    import cupy as cp

    props = cp.cuda.runtime.getDeviceProperties(0)
    device = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    count = getattr(cp, "bitwise_count", None)
    no_count = "cupy %s has no bitwise_count" % cp.__version__
    out.send({"peer": "cupy", "version": cp.__version__, "device": device,
              "note": "" if count is not None else no_count})
    types = {1: cp.uint8, 2: cp.uint16, 4: cp.uint32, 8: cp.uint64}
    try:
        pool = cp.random.RandomState(1).randint(0, 256, size=pool_bytes(jobs), dtype=cp.uint8)
    except TypeError:  # an older CuPy without dtype here
        pool = (cp.arange(pool_bytes(jobs), dtype=cp.uint32) * 2654435761 >> 13).astype(cp.uint8)
    funcs = {"and": cp.bitwise_and, "or": cp.bitwise_or, "xor": cp.bitwise_xor, "not": cp.invert,
             "count": count, "shl": cp.left_shift, "shr": cp.right_shift}

    def stored(shape, t, offset=0):
        a = cp.empty(shape, t)
        a.reshape(-1).view(cp.uint8)[:] = pool[offset:offset + a.nbytes]
        return a

    def timed(run):
        run()
        cp.cuda.Device(0).synchronize()
        events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps)]
        for start, end in events:
            start.record()
            run()
            end.record()
        events[-1][1].synchronize()
        return median([cp.cuda.get_elapsed_time(start, end) / 1e3 for start, end in events])

    lib = SimpleNamespace(types=types, funcs=funcs, stored=stored, zeros=cp.zeros,
                          scalar=cp.array, transpose=lambda x: x.T, copy=cp.copyto,
                          mask=lambda b, t, m: cp.bitwise_and(b, t(m), out=b))
    for job in jobs:
        if job["op"] == "count" and count is None:
            out.send({"id": job["id"], "absent": no_count})
            continue
        try:
            run = job_runner(job, lib)
            out.send({"id": job["id"], "seconds": timed(run)})
        except Exception as e:  # noqa: BLE001
            out.send({"id": job["id"], "absent": "%s: %s" % (type(e).__name__, str(e)[:200])})
        run = None
        cp.get_default_memory_pool().free_all_blocks()


# ---- JAX ----

def run_jax(jobs, reps, out):
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    dev = jax.devices()[0]
    if dev.platform != "gpu":
        out.send({"absent": "jax %s has no GPU here (platform %s)" % (jax.__version__,
                                                                    dev.platform)})
        return
    out.send({"peer": "jax", "version": jax.__version__, "device": dev.device_kind,
              "note": "jit-compiled; outputs are dense (JAX arrays have no strides), so a padded "
                      "row writes a packed output; shifts are shift_left/shift_right_logical"})
    types = {1: jnp.uint8, 2: jnp.uint16, 4: jnp.uint32, 8: jnp.uint64}
    lax = jax.lax
    funcs = {"and": jnp.bitwise_and, "or": jnp.bitwise_or, "xor": jnp.bitwise_xor,
             "not": lambda a: jnp.invert(a), "shl": lax.shift_left,
             "shr": lax.shift_right_logical, "copy": lambda a: jnp.copy(a)}

    def stored(shape, t, seed=1):
        return jax.random.bits(jax.random.PRNGKey(seed), shape, t)

    for job in jobs:
        try:
            t, ot = types[job["w"]], types[job["ow"]]
            sa, va, sb, so, vo = shapes(job)
            c = job["cols"]

            def view(x, va=va, c=c):
                return x[:, :c] if va == "slice" else x.T if va == "T" else x

            a = stored(sa, t)
            if job["op"] == "count":
                fn = jax.jit(lambda a, ot=ot: lax.population_count(view(a)).astype(ot))
                args = (a,)
            elif job["op"] in UNARY:
                fn = jax.jit(lambda a, f=funcs[job["op"]]: f(view(a)))
                args = (a,)
            else:
                b = jnp.asarray(3, t) if sb is None else stored(sb, t, 2)
                if job["op"] in ("shl", "shr"):
                    b = b & t(8 * job["w"] - 1)
                # B is stored as it is read: sliced when padded, never transposed.
                bv = (lambda x: x) if sb is None or va == "T" else view
                fn = jax.jit(lambda a, b, f=funcs[job["op"]], bv=bv: f(view(a), bv(b)))
                args = (a, b)
            fn(*args).block_until_ready()
            times = []
            for _ in range(reps):
                t0 = time.perf_counter()
                fn(*args).block_until_ready()
                times.append(time.perf_counter() - t0)
            out.send({"id": job["id"], "seconds": median(times)})
        except Exception as e:  # noqa: BLE001
            out.send({"id": job["id"], "absent": "%s: %s" % (type(e).__name__, str(e)[:200])})
        a = b = args = fn = None


# ---- serving: the backend's own buffers, one run per command ----

def numpy_views():
    """(module, version, device, element types, operator functions, a view function
    view(buf, offset, t, shape, strides_in_elements), copy) for NumPy."""
    import numpy as np

    types = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
    funcs = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
             "not": np.invert, "count": getattr(np, "bitwise_count", None),
             "shl": np.left_shift, "shr": np.right_shift}

    def view(buf, offset, t, shape, strides):
        size = np.dtype(t).itemsize
        flat = np.frombuffer(buf, dtype=t, offset=offset, count=(len(buf) - offset) // size)
        return np.lib.stride_tricks.as_strided(flat, shape=shape,
                                               strides=[x * size for x in strides])

    return SimpleNamespace(name="numpy", version=np.__version__, device="cpu, 1 thread",
                           types=types, funcs=funcs, view=view,
                           copy=lambda o, a: np.copyto(o, a),
                           note="" if funcs["count"] is not None else
                           "numpy %s has no bitwise_count (NumPy 2.0 has it)" % np.__version__)


def torch_views():
    import torch

    if THREADS[0] > 0:
        torch.set_num_threads(THREADS[0])
    threads = torch.get_num_threads()
    types = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    funcs = {"and": torch.bitwise_and, "or": torch.bitwise_or, "xor": torch.bitwise_xor,
             "not": torch.bitwise_not, "count": None,
             "shl": getattr(torch, "bitwise_left_shift", None),
             "shr": getattr(torch, "bitwise_right_shift", None)}

    def view(buf, offset, t, shape, strides):
        import warnings

        size = torch.tensor([], dtype=t).element_size()
        with warnings.catch_warnings():  # the inputs are read-only buffers, and only read
            warnings.simplefilter("ignore")
            flat = torch.frombuffer(buf, dtype=t, offset=offset,
                                    count=(len(buf) - offset) // size)
        return flat.as_strided(shape, strides)

    return SimpleNamespace(name="torch-cpu", version=torch.__version__,
                           device="cpu, %d thread%s" % (threads, "" if threads == 1 else "s"),
                           types=types, funcs=funcs, view=view,
                           copy=lambda o, a: o.copy_(a),
                           note="uint16/32/64 run as int16/32/64 (same bits; PyTorch's bitwise "
                                "kernels lack those unsigned types, its right shift is "
                                "arithmetic); " + TORCH_NO_POPCOUNT)


SERVE_LIBS = {"numpy": numpy_views, "torch-cpu": torch_views}


def serve_row(lib, bufs, offset, f):
    """The run of a row command's fields, or a reason it cannot run: the inputs are views of the
    backend's buffers (read-only), the output a view of the peer's own buffer bufs[3], with the
    same strides as the backend's output."""
    ident, op, w, ow, rows, cols = f[0], f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5])
    sa, sb, so = (int(f[6]), int(f[7])), (int(f[8]), int(f[9])), (int(f[10]), int(f[11]))
    fn = lib.funcs.get(op)
    if fn is None:  # the library's own note says why (its first line had it)
        return lib.note or "%s %s has no function for %s" % (lib.name, lib.version, op)
    shape = (rows, cols)
    a = lib.view(bufs[0], offset, lib.types[w], shape, sa)
    o = lib.view(bufs[3], offset, lib.types[ow], shape, so)
    if op in UNARY:
        def run(fn=fn, a=a, o=o):
            fn(a, out=o)
        return run
    b = lib.view(bufs[1], offset, lib.types[w], shape, sb)

    def run2(fn=fn, a=a, b=b, o=o):
        fn(a, b, out=o)
    return run2


def serve_map(lib, paths, offset):
    """The backend's three buffers mapped read-only (they are sealed so: nothing of the peer's
    can land in them) with their page tables filled now (MAP_POPULATE), not by a row's first
    run; and the peer's own output buffer of the output's size, at the same offset."""
    import mmap

    populate = getattr(mmap, "MAP_POPULATE", 0)
    maps = []
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            maps.append(mmap.mmap(fd, os.fstat(fd).st_size, flags=mmap.MAP_SHARED | populate,
                                  prot=mmap.PROT_READ))
        finally:
            os.close(fd)
    import numpy as np  # both libraries view it (torch.frombuffer): a writable buffer

    maps.append(np.ones(len(maps[2]), dtype=np.uint8))  # touched once: no faults in a timed run
    return maps


def serve(peer, out, placed):
    """Commands on standard input (the module's docstring); one answer each. `placed`: a note
    when the process could not be placed on its CPUs (it still runs)."""
    if peer not in SERVE_LIBS:
        out.send({"absent": "%s is not a host peer (numpy, torch-cpu)" % peer})
        return 2
    try:
        lib = SERVE_LIBS[peer]()
    except ImportError as e:
        out.send({"absent": "%s (Python %s)" % (e, sys.version.split()[0])})
        return 0
    out.send({"peer": lib.name, "version": lib.version, "device": lib.device,
              "note": "; ".join(n for n in (lib.note, placed) if n)})
    bufs, offset, runs = None, 0, {}
    for line in sys.stdin:
        f = line.split()
        if not f:
            continue
        try:
            if f[0] == "map":
                bufs, offset = serve_map(lib, f[1:4], int(f[4])), int(f[4])
                out.send({"mapped": True})
            elif f[0] == "copy":
                n = int(f[1])
                a = lib.view(bufs[0], offset, lib.types[1], (n,), (1,))
                o = lib.view(bufs[3], offset, lib.types[1], (n,), (1,))
                out.send({"id": "copy", "seconds": host_timed(lambda: lib.copy(o, a), 3)})
            elif f[0] == "row":
                runs.clear()
                run = serve_row(lib, bufs, offset, f[1:])
                if isinstance(run, str):
                    out.send({"id": f[1], "absent": run})
                else:  # no warm-up: the buffers are mapped, the library ran the copy
                    runs[f[1]] = run
                    out.send({"id": f[1], "ready": True})
            elif f[0] == "rep":
                t0 = time.perf_counter()
                runs[f[1]]()
                out.send({"id": f[1], "seconds": time.perf_counter() - t0})
            else:
                out.send({"absent": "unknown command %r" % f[0]})
        except Exception as e:  # noqa: BLE001 - a command the library refuses
            out.send({"id": f[1] if len(f) > 1 else "", "absent": "%s: %s" %
                      (type(e).__name__, str(e)[:200])})
    return 0


THREADS = [0]  # --threads: PyTorch's CPU threads; 0: its default


def place(cpus):
    """Runs this process on the CPUs of "0,1,2" only; a note when it cannot."""
    try:
        os.sched_setaffinity(0, [int(c) for c in cpus.split(",")])
        return ""
    except (AttributeError, OSError, ValueError) as e:
        return "not placed on CPUs %s: %s" % (cpus, e)


PEERS = {"numpy": run_numpy, "torch-cpu": lambda j, r, o: run_torch(j, r, o, False),
         "torch-cuda": lambda j, r, o: run_torch(j, r, o, True), "cupy": run_cupy,
         "jax": run_jax}


def main(argv):
    peer, reps, fd, prefix, jobs, cpus = None, 5, 1, "", [], ""
    serving = False
    i = 0
    while i < len(argv):
        if argv[i] == "--serve":
            serving = True
            i += 1
        elif argv[i] in ("--peer", "--reps", "--fd", "--prefix", "--threads",
                       "--cpus", "--budget-s") and i + 1 < len(argv):
            value = argv[i + 1]
            if argv[i] == "--budget-s":
                DEADLINE[0] = time.monotonic() + max(0.001, float(value))
            elif argv[i] == "--threads":
                THREADS[0] = max(0, int(value))
            elif argv[i] == "--cpus":
                cpus = value
            elif argv[i] == "--peer":
                peer = value
            elif argv[i] == "--reps":
                reps = max(1, int(value))
            elif argv[i] == "--fd":
                fd = int(value)
            else:
                prefix = value
            i += 2
        else:
            jobs.append(parse_job(argv[i]))
            i += 1
    out = Out(fd, prefix)
    DEADLINE[1] = len(jobs)
    if peer not in PEERS:
        out.send({"absent": "unknown peer %r (known: %s)" % (peer, ", ".join(sorted(PEERS)))})
        return 2
    if not jobs and not serving:
        return 0
    note = place(cpus) if cpus else ""
    if serving:  # the note goes with the first line: a line before it would be a refusal
        return serve(peer, out, note)
    if note:  # a note on the peer; it still runs, unplaced
        out.send({"absent": note})
    try:
        PEERS[peer](jobs, reps, out)
    except ImportError as e:
        out.send({"absent": "%s (Python %s)" % (e, sys.version.split()[0])})
    except Exception as e:  # noqa: BLE001 - anything the library does is its absence
        out.send({"absent": "%s: %s" % (type(e).__name__, str(e)[:300])})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
