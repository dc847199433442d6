# SPDX-License-Identifier: MIT
"""NumPy: computes every case of a bitcts export with NumPy's ufuncs on strided views of the
buffers (as_strided, zero strides for broadcasts, out= the output buffer's own view), and writes
results for `bitcts check` (docs/check.md). Floats are bit-cast to the unsigned integer of the
same width; BIT_COUNT needs np.bitwise_count (NumPy 2)."""

import numpy as np

import bitcts_export as bx

UFUNCS = bx.NUMPY_UFUNCS


class Runner:
    """NumPy runner for bitcts vector exports."""

    name = "numpy"

    def __init__(self, device):
        if device not in (None, "cpu"):
            raise ValueError("NumPy runs on the CPU only, not %r" % device)

    def version(self):
        return np.__version__

    def info(self):
        return {"device": "cpu", "floats": "bit-cast to the unsigned integer of the same width"}

    def compute(self, case, io):
        fn = getattr(np, UFUNCS[case.operator], None)
        if fn is None:
            raise bx.NotSupported("numpy %s has no np.%s" % (np.__version__,
                                                            UFUNCS[case.operator]))
        args = [io.view(t.role, bx.framework_type(case, t)) for t in case.inputs]
        out = io.view("Output", bx.framework_type(case, case.output))
        try:
            fn(*args, out=out)
        except TypeError as e:  # a type NumPy refuses for this ufunc
            raise bx.NotSupported("numpy: %s" % e)
        return io.buffers["Output"], "buffer"


if __name__ == "__main__":
    bx.main(Runner)
