# SPDX-License-Identifier: MIT
# A NumPy stand-in for the names adapters/ uses, so that CTest runs the adapters without the
# framework (tests/check/adapters_smoke.sh); it proves the adapters' logic, not the framework.
import numpy as _np
from . import numpy, lax  # noqa
__version__ = "0.0-fake"
class _Config:
    def update(self, k, v): pass
config = _Config()
class _Dev:
    platform = "cpu"; device_kind = "fake"
def devices(kind=None): return [_Dev()]
def device_put(x, d): return _np.array(x)
def jit(f): return f
