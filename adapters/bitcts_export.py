# SPDX-License-Identifier: MIT
"""Reading a bitcts vector export and writing results for `bitcts check` (docs/check.md).

Shared by the framework runners of this folder (run_numpy.py, run_torch.py, ...): each one
defines a Runner with `compute(case, io)` and calls `main(Runner)`. This module owns the
files: it loads a case's input buffers and its initial output buffer (docs/vector-format.md:
the export's `initial` blob; from a 1.x export, expected.bin with every logical element
replaced by a value that differs from it), offers NumPy strided views over the buffers, and
appends each result to one data file with its CRC-32, then writes results.json atomically. A
runner that raises on a case costs that case (status "error" with the exception text), never
the run.

The export does not say which descriptions are invalid: like a DirectML implementation at
operator creation, this module validates every description (`invalid_reason`, the rules of
docs/spec/validation.md at the highest feature level) and reports the ones it refuses as
`rejected`; `bitcts check` knows which must be.
"""

import argparse
import fnmatch
import json
import multiprocessing
import os
import platform
import sys
import time
import traceback
import zlib

import numpy as np

RESULTS_FORMAT = "bitcts-results"
RESULTS_VERSION = "1.0"

# DML type name -> (NumPy dtype, element bytes).
DTYPES = {
    "FLOAT32": ("float32", 4), "FLOAT16": ("float16", 2), "FLOAT64": ("float64", 8),
    "UINT8": ("uint8", 1), "UINT16": ("uint16", 2), "UINT32": ("uint32", 4),
    "UINT64": ("uint64", 8), "INT8": ("int8", 1), "INT16": ("int16", 2),
    "INT32": ("int32", 4), "INT64": ("int64", 8),
}
UINT_OF_WIDTH = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}
INT_OF_WIDTH = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}
BINARY = ("bit_and", "bit_or", "bit_xor", "bit_shift_left", "bit_shift_right")
# The array libraries that follow NumPy's names (NumPy, CuPy): each operator's ufunc.
NUMPY_UFUNCS = {"bit_and": "bitwise_and", "bit_or": "bitwise_or", "bit_xor": "bitwise_xor",
                "bit_not": "invert", "bit_shift_left": "left_shift",
                "bit_shift_right": "right_shift", "bit_count": "bitwise_count"}


# DML_OPERATOR_TYPE -> inputs; DML_TENSOR_DATA_TYPE -> element bytes (include/bitcts/bitcts_dml.h).
OPERATOR_INPUTS = {121: 2, 122: 2, 123: 2, 124: 1, 125: 1, 97: 2, 98: 2}
TYPE_BYTES = {1: 4, 2: 2, 3: 4, 4: 2, 5: 1, 6: 4, 7: 2, 8: 1, 9: 8, 10: 8, 11: 8}
UNSIGNED = (3, 4, 5, 10)
SHIFTS = (97, 98)
BIT_COUNT = 125


class NotSupported(Exception):
    """Raised by a runner for a case it cannot run; the message is the reason recorded."""


class Tensor:
    def __init__(self, t):
        self.role = t["role"]
        self.type = t["DataType"]
        self.sizes = [int(s) for s in t["Sizes"]]
        self.width = DTYPES[self.type][1] if self.type in DTYPES else 0
        strides = t["Strides"]
        if strides is None:  # packed: the last dimension fastest
            strides, s = [0] * len(self.sizes), 1
            for k in range(len(self.sizes) - 1, -1, -1):
                strides[k] = s
                s *= self.sizes[k]
        self.strides = [int(s) for s in strides]
        self.total_bytes = int(t["TotalTensorSizeInBytes"])

    @property
    def is_float(self):
        return self.type.startswith("FLOAT")

    @property
    def broadcast_dims(self):
        """Dimensions the tensor broadcasts along (stride 0, size > 1)."""
        return [k for k, (n, s) in enumerate(zip(self.sizes, self.strides)) if s == 0 and n > 1]


def layout_reason(t, name, is_output):
    """Rules 14-18 of docs/spec/validation.md on one tensor: element count, buffer size,
    output strides and overlap; None when they hold."""
    sizes, e = t["Sizes"], TYPE_BYTES[t["DataTypeValue"]]
    strides = t["Strides"]
    if strides is None:
        strides, s = [0] * len(sizes), 1
        for k in range(len(sizes) - 1, -1, -1):
            strides[k], s = s, s * sizes[k]
    count = 1
    for n in sizes:
        count *= n
    if count > 2**32 - 1:
        return "too_many_elements: %s has %d elements" % (name, count)
    need = (sum((n - 1) * st for n, st in zip(sizes, strides)) + 1) * e
    need = (need + 3) // 4 * 4
    if need > 2**64 - 1:
        return "size_overflow: the size %s implies overflows 64 bits" % name
    if t["TotalTensorSizeInBytes"] < need:
        return "buffer_too_small: %s has %d bytes, needs %d" % (
            name, t["TotalTensorSizeInBytes"], need)
    if not is_output:
        return None
    if any(n > 1 and st == 0 for n, st in zip(sizes, strides)):
        return "output_zero_stride: %s has a zero stride" % name
    dims = sorted((st, n) for n, st in zip(sizes, strides) if n > 1)
    span, apart = 0, True
    for st, n in dims:
        apart, span = apart and st > span, span + (n - 1) * st
    if apart:
        return None
    if count > 1 << 22:
        return "output_overlap: %s may overlap" % name
    offsets = np.zeros(1, dtype=np.uint64)
    for st, n in dims:
        offsets = (offsets[:, None] + np.arange(n, dtype=np.uint64) * np.uint64(st)).ravel()
    return "output_overlap: %s has overlapping elements" % name if \
        len(np.unique(offsets)) < len(offsets) else None


def invalid_reason(entry):
    """Why the case's description is invalid (docs/spec/validation.md, its rules in order, at
    the highest feature level), or None for a valid one."""
    op, tensors = entry["operator_type"], entry["tensors"]
    if op not in OPERATOR_INPUTS:
        return "unknown_operator: operator type %d" % op
    if len(tensors) - 1 != OPERATOR_INPUTS[op]:
        return "input_count: %d inputs" % (len(tensors) - 1)
    for i, t in enumerate(tensors):
        out, name = i == len(tensors) - 1, t["role"]
        if not 1 <= t["DimensionCount"] <= 8:
            return "dimension_count: %s has %d" % (name, t["DimensionCount"])
        if 0 in t["Sizes"]:
            return "size_zero: %s has a size of 0" % name
        if t["DataTypeValue"] not in TYPE_BYTES:
            return "unknown_type: %s has DataType %d" % (name, t["DataTypeValue"])
        if t["Flags"] & ~1:
            return "unknown_flags: %s has Flags %d" % (name, t["Flags"])
        if out and t["Flags"] & 1:
            return "output_flags: the output is OWNED_BY_DML"
        a = t["GuaranteedBaseOffsetAlignment"]
        if a and (a & (a - 1) or a < TYPE_BYTES[t["DataTypeValue"]]):
            return "alignment: %s has GuaranteedBaseOffsetAlignment %d" % (name, a)
    ref = tensors[0]
    for i, t in enumerate(tensors[1:], 1):
        if t["DimensionCount"] != ref["DimensionCount"]:
            return "dims_mismatch: %s" % t["role"]
        if t["Sizes"] != ref["Sizes"]:
            return "sizes_mismatch: %s" % t["role"]
        if t["DataTypeValue"] != ref["DataTypeValue"] and not (op == BIT_COUNT and
                                                               i == len(tensors) - 1):
            return "type_mismatch: %s" % t["role"]
    if op == BIT_COUNT and tensors[-1]["DataTypeValue"] not in (3, 5):
        return "output_type_not_allowed: BIT_COUNT writes UINT8 or UINT32"
    if op in SHIFTS and ref["DataTypeValue"] not in UNSIGNED:
        return "type_not_allowed: shifts take unsigned integers"
    for i, t in enumerate(tensors):
        reason = layout_reason(t, t["role"], i == len(tensors) - 1)
        if reason is not None:
            return reason
    return None


class Case:
    def __init__(self, entry):
        self.id = entry["id"]
        self.operator = entry["operator"]
        self.input_type = entry["input_type"]
        self.output_type = entry["output_type"]
        self.recorded = "expected_by_policy" in entry
        self.entry = entry
        self.invalid = invalid_reason(entry)
        self.tensors = [] if self.invalid else [Tensor(t) for t in entry["tensors"]]
        self.inputs = [t for t in self.tensors if t.role != "Output"]
        self.output = next((t for t in self.tensors if t.role == "Output"), None)
        self.aliases = entry.get("output_aliases")

    @property
    def binary(self):
        return self.operator in BINARY


class CaseIO:
    """A case's buffers as bytes in host memory: the inputs and the initial output buffer."""

    def __init__(self, export_dir, case):
        self.case = case
        self.buffers = {}
        for t in case.inputs:
            self.buffers[t.role] = read_blob(export_dir, case.entry["files"][t.role])
        if case.aliases is not None:
            self.buffers["Output"] = self.buffers[case.aliases]
        else:
            self.buffers["Output"] = initial_output(export_dir, case)

    def tensor(self, role):
        return next(t for t in self.case.tensors if t.role == role)

    def view(self, role, dtype=None, buffer=None):
        """A NumPy strided view (no copy) of tensor `role` over its buffer, as `dtype` (default:
        the tensor's own type). Zero strides stay zero: broadcasting is the view's."""
        t = self.tensor(role)
        buf = self.buffers[role] if buffer is None else buffer
        dt = np.dtype(dtype or DTYPES[t.type][0])
        flat = buf[: (t.total_bytes // dt.itemsize) * dt.itemsize].view(dt)
        return np.lib.stride_tricks.as_strided(
            flat, shape=t.sizes, strides=[s * dt.itemsize for s in t.strides], writeable=True)

    def compact(self, role, dtype=None):
        """The logical elements of `role` as a C-contiguous array, with the dimensions it
        broadcasts along kept at size 1, for frameworks whose own broadcasting takes over
        (ONNX Runtime, JAX)."""
        v = self.view(role, dtype)
        index = tuple(slice(0, 1) if k in self.tensor(role).broadcast_dims else slice(None)
                      for k in range(v.ndim))
        return np.ascontiguousarray(v[index])


def read_blob(export_dir, rec):
    """A blob of the export as a writable uint8 array: `bytes` bytes of file `path` from
    `offset` (2.x; a 1.x record has no offset: the whole file)."""
    data = np.fromfile(os.path.join(export_dir, rec["path"]), dtype=np.uint8,
                       count=int(rec["bytes"]), offset=int(rec.get("offset", 0)))
    if data.size != int(rec["bytes"]):
        raise ValueError("%s: %d bytes from %d, the manifest says %d" % (
            rec["path"], data.size, int(rec.get("offset", 0)), int(rec["bytes"])))
    return data


def initial_output(export_dir, case):
    """The buffer `bitcts check` compares padding bytes with: the export's `initial` blob; from
    a 1.x export, expected.bin (the saturate policy's for recorded cases) with every logical
    element replaced by its complement, or, where that equals the mask policy's value, the
    complement with its low bit flipped."""
    if "initial" in case.entry:
        return read_blob(export_dir, case.entry["initial"])
    exp = case.entry.get("expected") or case.entry["expected_by_policy"]["saturate"]
    buf = read_blob(export_dir, exp)
    out = case.output
    dt = UINT_OF_WIDTH[out.width]
    elements = view_of(buf, out, dt)
    poison = ~elements
    if case.recorded:
        mask_buf = read_blob(export_dir, case.entry["expected_by_policy"]["mask"])
        poison = np.where(poison == view_of(mask_buf, out, dt), poison ^ np.array(1, dt), poison)
    elements[...] = poison
    return buf


def view_of(buf, t, dtype):
    dt = np.dtype(dtype)
    flat = buf[: (t.total_bytes // dt.itemsize) * dt.itemsize].view(dt)
    return np.lib.stride_tricks.as_strided(
        flat, shape=t.sizes, strides=[s * dt.itemsize for s in t.strides], writeable=True)


class ResultWriter:
    """results.json and data.bin of a result set (docs/vector-format.md, "Results")."""

    def __init__(self, results_dir, manifest, producer):
        os.makedirs(results_dir, exist_ok=True)
        self.dir = results_dir
        self.manifest = manifest
        self.producer = producer
        self.entries = []
        self.data = open(os.path.join(results_dir, "data.bin"), "wb")
        self.offset = 0

    def done(self, case, data, layout, ms):
        raw = memoryview(np.ascontiguousarray(data)).cast("B")
        self.data.write(raw)
        self.entries.append({"id": case.id, "status": "done", "layout": layout,
                             "path": "data.bin", "offset": self.offset, "bytes": raw.nbytes,
                             "crc32": "%08x" % (zlib.crc32(raw) & 0xFFFFFFFF),
                             "duration_ms": round(ms, 4)})
        self.offset += raw.nbytes

    def other(self, case, status, reason):
        self.entries.append({"id": case.id, "status": status, "reason": clean(reason)})

    def close(self):
        self.data.close()
        doc = {"format": RESULTS_FORMAT, "format_version": RESULTS_VERSION,
               "producer": self.producer,
               "vectors": {"seed": self.manifest["seed"],
                           "generator_version": self.manifest["generator_version"]},
               "cases": self.entries}
        tmp = os.path.join(self.dir, "results.json.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=0)
            f.write("\n")
        os.replace(tmp, os.path.join(self.dir, "results.json"))


def clean(text, limit=1000):
    """One printable line (results.json refuses control characters)."""
    text = " ".join(str(text).split())
    return "".join(c if c.isprintable() else "?" for c in text)[:limit]


def python_info():
    return {"python": platform.python_version(), "numpy": np.__version__,
            "machine": platform.machine()}


def main(runner_class, argv=None):
    p = argparse.ArgumentParser(description=runner_class.__doc__)
    p.add_argument("export", help="the folder of 'bitcts vectors export --out DIR'")
    p.add_argument("--results", help="result folder to write (default EXPORT/results)")
    p.add_argument("--filter", default="*", help="only the case ids matching this glob")
    p.add_argument("--device", default=None, help="the framework's device (cpu, cuda, ...)")
    p.add_argument("--time-limit", type=float, default=0,
                   help="seconds; cases not started by then are not_supported (0: none)")
    p.add_argument("--warm-up-jobs", type=int, default=0,
                   help="first compute every case in this many processes and throw the results "
                        "away, so that a framework that compiles each kernel on first use (CuPy) "
                        "fills its on-disk kernel cache in parallel (0: no warm-up)")
    args = p.parse_args(argv)
    with open(os.path.join(args.export, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    if manifest.get("format") != "bitcts-vectors" or \
            str(manifest.get("format_version", "")).split(".")[0] not in ("1", "2"):
        sys.exit("%s/manifest.json: not a bitcts vector export of format 1.x or 2.x" %
                 args.export)
    results_dir = args.results or os.path.join(args.export, "results")
    try:
        runner = runner_class(args.device)
        startup_error = None
    except Exception as e:  # the framework does not import or has no such device
        runner, startup_error = None, "%s: %s" % (type(e).__name__, e)
    producer = {"name": runner.name if runner else runner_class.name,
                "version": runner.version() if runner else "",
                "info": dict(python_info(), **(runner.info() if runner else {}))}
    writer = ResultWriter(results_dir, manifest, producer)
    t0, counts = time.perf_counter(), {}
    if runner is not None and args.warm_up_jobs > 1:
        warm_up(runner_class, args, manifest["cases"])
    for entry in manifest["cases"]:
        if not fnmatch.fnmatchcase(entry["id"], args.filter):
            continue
        case = Case(entry)
        if args.time_limit > 0 and time.perf_counter() - t0 > args.time_limit:
            writer.other(case, "not_supported", "not run: the adapter's time limit of %g s "
                         "was reached" % args.time_limit)
            counts["not_run"] = counts.get("not_run", 0) + 1
            continue
        status = run_case(runner, startup_error, args.export, case, writer)
        counts[status] = counts.get(status, 0) + 1
    writer.close()
    print("%s: %s in %.1f s -> %s" % (producer["name"], ", ".join(
        "%d %s" % (n, s) for s, n in sorted(counts.items())), time.perf_counter() - t0,
        results_dir), file=sys.stderr)


def warm_up(runner_class, args, entries):
    """Computes the selected cases in args.warm_up_jobs fresh processes, results thrown away.
    Cases go to processes by (operator, types, rank), the kernels a framework specialises on,
    so each kernel is compiled by one process; the real run that follows is serial and finds
    the kernels in the framework's cache. Failures here are ignored: the real run meets them."""
    shards = [[] for _ in range(args.warm_up_jobs)]
    for e in entries:
        if not fnmatch.fnmatchcase(e["id"], args.filter) or invalid_reason(e) is not None:
            continue
        key = "%s|%s|%s|%d" % (e["operator"], e["input_type"], e["output_type"],
                               len(e["tensors"][0]["Sizes"]))
        shards[zlib.crc32(key.encode()) % len(shards)].append(e)
    t = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")  # no CUDA state inherited through fork
    with ctx.Pool(len(shards)) as pool:
        done = sum(pool.starmap(warm_shard, [(runner_class, args.export, args.device, s,
                                              args.time_limit) for s in shards if s]))
    print("%s: warm-up of %d cases in %d processes: %.1f s" % (
        runner_class.name, done, args.warm_up_jobs, time.perf_counter() - t), file=sys.stderr)


def warm_shard(runner_class, export_dir, device, entries, deadline):
    """One warm-up process: computes its entries until `deadline` seconds (0: none) pass."""
    t0 = time.perf_counter()
    try:
        runner = runner_class(device)
    except Exception:
        return 0
    done = 0
    for e in entries:
        if deadline and time.perf_counter() - t0 > deadline:
            break
        try:
            case = Case(e)
            runner.compute(case, CaseIO(export_dir, case))
            done += 1
        except Exception:
            pass
    return done


def run_case(runner, startup_error, export_dir, case, writer):
    if runner is None:
        writer.other(case, "not_supported", startup_error)
        return "not_supported"
    if case.invalid:
        writer.other(case, "rejected", "invalid description (%s)" % case.invalid)
        return "rejected"
    try:
        io = CaseIO(export_dir, case)
        t = time.perf_counter()
        data, layout = runner.compute(case, io)
        writer.done(case, data, layout, (time.perf_counter() - t) * 1000.0)
        return "done"
    except NotSupported as e:
        writer.other(case, "not_supported", str(e))
        return "not_supported"
    except Exception as e:  # the framework failed on a case it claimed: the case fails
        tb = traceback.extract_tb(e.__traceback__)
        where = "%s:%d" % (os.path.basename(tb[-1].filename), tb[-1].lineno) if tb else ""
        writer.other(case, "error", "%s: %s (%s)" % (type(e).__name__, e, where))
        return "error"


def framework_type(case, t, rejects_floats=True, signed_for_floats=False):
    """The dtype a framework computes tensor t in: its own type, or for floats (bitwise ops
    on their bits) the integer type of the same width, a faithful bit-cast."""
    if t.is_float and rejects_floats:
        return (INT_OF_WIDTH if signed_for_floats else UINT_OF_WIDTH)[t.width]
    return DTYPES[t.type][0]
