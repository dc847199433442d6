# SPDX-License-Identifier: MIT
# A NumPy stand-in for the names adapters/ uses, so that CTest runs the adapters without the
# framework (tests/check/adapters_smoke.sh); it proves the adapters' logic, not the framework.
def getDeviceProperties(i): return {"name": b"Fake GPU"}
def runtimeGetVersion(): return 12000
