# tests/kube-emu/local.mk - ordo-kube-emu, the Kubernetes API-server
# emulator the kube tests talk to (kubectl, the Python client, Ordo), and
# its tests.
check_PROGRAMS += tests/kube-emu/ordo-kube-emu
tests_kube_emu_ordo_kube_emu_SOURCES = tests/kube-emu/emu.h \
	tests/kube-emu/emu_main.c tests/kube-emu/emu_http.c \
	tests/kube-emu/emu_api.c tests/kube-emu/emu_store.c \
	tests/kube-emu/emu_watch.c tests/kube-emu/emu_select.c \
	tests/kube-emu/emu_patch.c tests/kube-emu/emu_table.c \
	tests/kube-emu/emu_discovery.c tests/kube-emu/emu_ctrl.c \
	tests/kube-emu/emu_kubelet.c tests/kube-emu/emu_audit.c \
	tests/kube-emu/emu_util.c tests/kube-emu/emu_fault.c
tests_kube_emu_ordo_kube_emu_CPPFLAGS = $(AM_CPPFLAGS) \
	-DEMU_OPENAPI_DIR='"$(abs_top_srcdir)/tests/kube-emu/openapi"'
tests_kube_emu_ordo_kube_emu_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(MHD_CFLAGS)
tests_kube_emu_ordo_kube_emu_LDADD = core/libordo-core.la $(JSONC_LIBS) \
	$(MHD_LIBS) $(LIBS) -lpthread

KUBE_EMU_TESTS = tests/kube-emu/test_emu_kubectl.sh \
	tests/kube-emu/test_emu_python.py tests/kube-emu/test_emu_faults.py
TESTS += $(KUBE_EMU_TESTS)
EXTRA_DIST += $(KUBE_EMU_TESTS) tests/kube-emu/lib_emu.sh \
	tests/kube-emu/lib_quickstart.sh \
	tests/kube-emu/openapi tests/kube-emu/data
# The selectors, patches and store on their own, and emu_proc.[ch], how a
# C test runs the emulator as a child process (for the kube backend's
# tests: link tests/kube-emu/emu_proc.c).
check_PROGRAMS += tests/kube-emu/test_emu_units
TESTS += tests/kube-emu/test_emu_units
tests_kube_emu_test_emu_units_SOURCES = tests/kube-emu/test_emu_units.c \
	tests/kube-emu/emu.h tests/kube-emu/emu_select.c \
	tests/kube-emu/emu_patch.c tests/kube-emu/emu_store.c \
	tests/kube-emu/emu_discovery.c tests/kube-emu/emu_util.c \
	tests/kube-emu/emu_proc.c tests/kube-emu/emu_proc.h
tests_kube_emu_test_emu_units_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) \
	$(CMOCKA_CFLAGS)
tests_kube_emu_test_emu_units_LDADD = $(JSONC_LIBS) $(CMOCKA_LIBS) \
	$(LIBS) -lpthread
