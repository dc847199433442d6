# SPDX-License-Identifier: MIT
"""PyTorch: computes every case of a bitcts export with torch.bitwise_* on torch.as_strided
views of the buffers (zero strides for broadcasts, out= the output buffer's own view), on the
CPU or a CUDA device (--device cuda), and writes results for `bitcts check` (docs/check.md).
Floats are bit-cast to the signed integer of the same width. PyTorch's unsigned 16/32/64-bit
types are missing or partial: where PyTorch refuses one, AND, OR, XOR, NOT and the left shift
run on the signed integer of the same width (the same bits), the right shift (arithmetic on
signed types) is not_supported with PyTorch's own error. PyTorch has no popcount: BIT_COUNT is
not_supported."""

import numpy as np

import bitcts_export as bx

FUNCS = {"bit_and": "bitwise_and", "bit_or": "bitwise_or", "bit_xor": "bitwise_xor",
         "bit_not": "bitwise_not", "bit_shift_left": "bitwise_left_shift",
         "bit_shift_right": "bitwise_right_shift"}


class Runner:
    """PyTorch runner for bitcts vector exports."""

    name = "torch"

    def __init__(self, device):
        import torch  # a missing PyTorch makes every case not_supported with this error
        self.torch = torch
        self.device = torch.device(device or "cpu")
        if self.device.type == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        torch.zeros(1, device=self.device)  # fails here, once, on a device that does not work
        self.dtypes = {n: getattr(torch, n, None) for n in (
            "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64")}

    def version(self):
        return self.torch.__version__

    def info(self):
        t = self.torch
        info = {"device": str(self.device), "floats": "bit-cast to the signed integer of the "
                "same width", "cuda": str(t.version.cuda or "")}
        if self.device.type == "cuda":
            info["gpu"] = t.cuda.get_device_name(self.device)
        return info

    def tensor_dtype(self, case, t, signed):
        name = bx.framework_type(case, t, signed_for_floats=True)
        if signed and name.startswith("uint") and name != "uint8":
            name = name[1:]
        dt = self.dtypes.get(name)
        if dt is None:
            raise bx.NotSupported("torch %s has no torch.%s" % (self.torch.__version__, name))
        return dt, np.dtype(name).itemsize

    def strided(self, flat_bytes, t, dtype, itemsize):
        """torch.as_strided over the tensor's buffer, reinterpreted as dtype (no copy)."""
        typed = flat_bytes[: (t.total_bytes // itemsize) * itemsize].view(dtype)
        return self.torch.as_strided(typed, t.sizes, t.strides)

    def compute(self, case, io):
        if case.operator not in FUNCS:
            raise bx.NotSupported("torch has no popcount operator (BIT_COUNT)")
        try:
            return self.run(case, io, signed=False)
        except bx.NotSupported:
            if case.operator == "bit_shift_right" or case.input_type == "uint8":
                raise  # a signed right shift is arithmetic: not the same bits
            return self.run(case, io, signed=True)

    def run(self, case, io, signed):
        torch = self.torch
        fn = getattr(torch, FUNCS[case.operator])
        flats = {role: torch.from_numpy(buf.copy()).to(self.device)
                 for role, buf in io.buffers.items() if role != "Output" or case.aliases is None}
        if case.aliases is not None:
            flats["Output"] = flats[case.aliases]
        args = []
        for t in case.inputs:
            dt, size = self.tensor_dtype(case, t, signed)
            args.append(self.strided(flats[t.role], t, dt, size))
        dt, size = self.tensor_dtype(case, case.output, signed)
        out = self.strided(flats["Output"], case.output, dt, size)
        try:
            fn(*args, out=out)
        except (RuntimeError, TypeError, NotImplementedError) as e:
            text = str(e).splitlines()[0] if str(e) else type(e).__name__
            if "not implemented for" in text or "not supported" in text:
                raise bx.NotSupported("torch: %s" % text)
            raise
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        return flats["Output"].cpu().numpy(), "buffer"


if __name__ == "__main__":
    bx.main(Runner)
