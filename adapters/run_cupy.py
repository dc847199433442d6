# SPDX-License-Identifier: MIT
"""CuPy: computes every case of a bitcts export with CuPy's ufuncs on the GPU, on strided views
of the buffers (cupy.lib.stride_tricks.as_strided, zero strides for broadcasts, out= the output
buffer's own view), and writes results for `bitcts check` (docs/check.md). Floats are
bit-cast to the unsigned integer of the same width; BIT_COUNT needs cupy.bitwise_count."""

import bitcts_export as bx

UFUNCS = bx.NUMPY_UFUNCS


class Runner:
    """CuPy runner for bitcts vector exports."""

    name = "cupy"

    def __init__(self, device):
        import cupy  # a missing CuPy makes every case not_supported with this error
        self.cp = cupy
        self.device = cupy.cuda.Device(int(device.split(":")[-1]) if device and ":" in device
                                       else 0)
        self.device.use()
        cupy.zeros(1).sum()  # fails here, once, without a working GPU

    def version(self):
        return self.cp.__version__

    def info(self):
        props = self.cp.cuda.runtime.getDeviceProperties(self.device.id)
        name = props["name"]
        return {"device": "cuda:%d" % self.device.id,
                "gpu": name.decode() if isinstance(name, bytes) else str(name),
                "cuda_runtime": str(self.cp.cuda.runtime.runtimeGetVersion()),
                "floats": "bit-cast to the unsigned integer of the same width"}

    def view(self, flat, t, dtype):
        cp = self.cp
        dt = cp.dtype(dtype)
        typed = flat[: (t.total_bytes // dt.itemsize) * dt.itemsize].view(dt)
        return cp.lib.stride_tricks.as_strided(typed, shape=t.sizes,
                                               strides=[s * dt.itemsize for s in t.strides])

    def compute(self, case, io):
        cp = self.cp
        fn = getattr(cp, UFUNCS[case.operator], None)
        if fn is None:
            raise bx.NotSupported("cupy %s has no cupy.%s" % (cp.__version__,
                                                             UFUNCS[case.operator]))
        flats = {role: cp.asarray(buf) for role, buf in io.buffers.items()
                 if role != "Output" or case.aliases is None}
        if case.aliases is not None:
            flats["Output"] = flats[case.aliases]
        args = [self.view(flats[t.role], t, bx.framework_type(case, t)) for t in case.inputs]
        out = self.view(flats["Output"], case.output, bx.framework_type(case, case.output))
        try:
            fn(*args, out=out)
        except TypeError as e:  # a type CuPy refuses for this ufunc
            raise bx.NotSupported("cupy: %s" % e)
        return cp.asnumpy(flats["Output"]), "buffer"


if __name__ == "__main__":
    bx.main(Runner)
