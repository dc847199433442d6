# SPDX-License-Identifier: MIT
# A NumPy stand-in for the names adapters/ uses, so that CTest runs the adapters without the
# framework (tests/check/adapters_smoke.sh); it proves the adapters' logic, not the framework.
from numpy import *  # noqa
import numpy as _np
from . import lib, cuda  # noqa
__version__ = "0.0-fake"
def asarray(a): return _np.array(a, copy=True)
def asnumpy(a): return _np.asarray(a)
