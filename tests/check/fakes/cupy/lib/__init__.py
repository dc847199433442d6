# SPDX-License-Identifier: MIT
# A NumPy stand-in for the names adapters/ uses, so that CTest runs the adapters without the
# framework (tests/check/adapters_smoke.sh); it proves the adapters' logic, not the framework.
from . import stride_tricks  # noqa
