# SPDX-License-Identifier: MIT
"""Shared by the nightly tests: tools/nightly.py run as a program, and a count of failed checks."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NIGHTLY = os.path.join(HERE, "..", "..", "tools", "nightly.py")
FAILED = [0]  # checks failed so far


def check(cond, what):
    if not cond:
        FAILED[0] += 1
        print("FAIL: " + what, flush=True)


def nightly(*args, env=None, show=False):
    """(exit code, stdout and stderr) of tools/nightly.py ARGS; printed when show."""
    p = subprocess.run([sys.executable, NIGHTLY, *args], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, check=False, env=env)
    text = p.stdout.decode("utf-8", "replace")
    if show:
        print(f"$ nightly.py {' '.join(args[:1])} ... -> {p.returncode}\n{text.rstrip()}",
              flush=True)
    return p.returncode, text


def finish():
    """The exit code: 0 when every check held."""
    print("ok" if FAILED[0] == 0 else f"{FAILED[0]} checks failed")
    return 1 if FAILED[0] else 0
