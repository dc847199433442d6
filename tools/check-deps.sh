#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The dependency rules of docs/layout.md: tools/check-deps.py, which checks the tree in one pass.
# Usage: tools/check-deps.sh [--cycles] [--overlay DIR] [SOURCE_DIR]   (exit 0: clean; 1: violations)
exec python3 "$(dirname "$0")/check-deps.py" "$@"
