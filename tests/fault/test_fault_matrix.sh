#!/usr/bin/env bash
# test_fault_matrix.sh - the fault matrix's quick version in make check
# (tests/fault/matrix.py --quick: a few cases, 160 pods, 3 kill runs; the
# full one is `make fault-matrix`). Skips (77) without python3-kubernetes
# or the emulator.
here=$(dirname "$0")
exec /usr/bin/python3 "$here/matrix.py" --quick ${ORDO_FAULT_ARGS:-}
