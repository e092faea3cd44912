# tests/fault/local.mk - the fault matrix: ordo-scheduler against
# ordo-kube-emu's injected faults, judged from the audit
# (tests/fault/judge.py). make check runs the judge's own test and the
# quick matrix; `make fault-matrix` the full one (FAULT_PODS pods, default
# 2000; FAULT_KILL_RUNS kill -9 runs, default 20; FAULT_DOWN_S seconds of
# API server down, default 60; FAULT_SEED; FAULT_CASES: --case NAME...).
FAULT_TESTS = tests/fault/test_judge.py tests/fault/test_fault_matrix.sh
TESTS += $(FAULT_TESTS)
EXTRA_DIST += $(FAULT_TESTS) tests/fault/judge.py tests/fault/load.py \
	tests/fault/matrix.py
FAULT_PODS = 2000
FAULT_KILL_RUNS = 20
FAULT_DOWN_S = 60
FAULT_SEED = 1
FAULT_CASES =
fault-matrix: sched/ordo-scheduler tests/kube-emu/ordo-kube-emu \
		$(plugin_LTLIBRARIES)
	$(AM_TESTS_ENVIRONMENT) /usr/bin/python3 $(srcdir)/tests/fault/matrix.py \
	--pods $(FAULT_PODS) --kill-runs $(FAULT_KILL_RUNS) \
	--down-s $(FAULT_DOWN_S) --seed $(FAULT_SEED) $(FAULT_CASES)
.PHONY: fault-matrix
