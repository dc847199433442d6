# SPDX-License-Identifier: MIT
# A NumPy stand-in for the names adapters/ uses, so that CTest runs the adapters without the
# framework (tests/check/adapters_smoke.sh); it proves the adapters' logic, not the framework.
from . import runtime  # noqa
class Device:
    def __init__(self, i): self.id = i
    def use(self): pass
