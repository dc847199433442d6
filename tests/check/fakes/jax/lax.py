# SPDX-License-Identifier: MIT
# A NumPy stand-in for the names adapters/ uses, so that CTest runs the adapters without the
# framework (tests/check/adapters_smoke.sh); it proves the adapters' logic, not the framework.
import numpy as _np
shift_left = _np.left_shift
shift_right_logical = _np.right_shift
def population_count(a):
    b = a.view(_np.uint8).reshape(a.shape + (a.itemsize,))
    return _np.unpackbits(b, axis=-1).sum(axis=-1).astype(a.dtype)
