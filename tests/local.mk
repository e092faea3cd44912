# tests/local.mk - `make check` (cmocka unit tests, command-line tests),
# `make fuzz` (libFuzzer targets, bounded time).
UNIT_TESTS = \
	tests/unit/test_grow \
	tests/unit/test_quantity \
	tests/unit/test_resources \
	tests/unit/test_labels \
	tests/unit/test_doc \
	tests/unit/test_doc_yaml \
	tests/unit/test_doc_json \
	tests/unit/test_decode \
	tests/unit/test_manifest \
	tests/unit/test_manifest_check \
	tests/unit/test_log \
	tests/unit/test_config \
	tests/unit/test_queue_rule \
	tests/unit/test_sim_output \
	tests/unit/test_sim_check \
	tests/unit/test_cluster_scale \
	tests/unit/test_quota_tree \
	tests/unit/test_kclient \
	tests/unit/test_kubeconfig \
	tests/unit/test_kube_evict \
	tests/unit/test_kube_status \
	tests/unit/test_kube_writes \
	tests/unit/test_kube_webhook \
	tests/unit/test_krequest \
	tests/unit/test_kinformer \
	tests/unit/test_klease \
	tests/unit/test_kube_leader \
	tests/unit/test_kube_backend \
	tests/unit/test_strmap \
	tests/unit/test_decode_limits \
	tests/unit/test_decode_time \
	tests/unit/test_validate_fields \
	tests/unit/test_events_nodes \
	tests/unit/test_events_jobs \
	tests/unit/test_events_queues \
	tests/unit/test_events_meta \
	tests/unit/test_events_async \
	tests/unit/test_events_checks \
	tests/unit/test_events_restart \
	tests/unit/test_history \
	tests/unit/test_sim_plot \
	tests/unit/test_metrics \
	tests/unit/test_lq_metrics
check_PROGRAMS += $(UNIT_TESTS)
UNIT_LDADD = core/libordo-core.la $(CMOCKA_LIBS)
UNIT_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_grow_SOURCES = tests/unit/test_grow.c
tests_unit_test_grow_LDADD = $(UNIT_LDADD)
tests_unit_test_grow_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_quantity_SOURCES = tests/unit/test_quantity.c
tests_unit_test_quantity_LDADD = $(UNIT_LDADD)
tests_unit_test_quantity_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_resources_SOURCES = tests/unit/test_resources.c
tests_unit_test_resources_LDADD = $(UNIT_LDADD)
tests_unit_test_resources_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_labels_SOURCES = tests/unit/test_labels.c
tests_unit_test_labels_LDADD = $(UNIT_LDADD)
tests_unit_test_labels_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_doc_SOURCES = tests/unit/test_doc.c tests/unit/doc_helpers.h
tests_unit_test_doc_LDADD = $(UNIT_LDADD)
tests_unit_test_doc_CFLAGS = $(UNIT_CFLAGS) $(YAML_CFLAGS) $(JSONC_CFLAGS)
tests_unit_test_doc_yaml_SOURCES = tests/unit/test_doc_yaml.c \
	tests/unit/doc_helpers.h
tests_unit_test_doc_yaml_LDADD = $(UNIT_LDADD)
tests_unit_test_doc_yaml_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_doc_json_SOURCES = tests/unit/test_doc_json.c \
	tests/unit/doc_helpers.h
tests_unit_test_doc_json_LDADD = $(UNIT_LDADD)
tests_unit_test_doc_json_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_decode_SOURCES = tests/unit/test_decode.c
tests_unit_test_decode_LDADD = $(UNIT_LDADD)
tests_unit_test_decode_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_manifest_SOURCES = tests/unit/test_manifest.c
tests_unit_test_manifest_LDADD = $(UNIT_LDADD)
tests_unit_test_manifest_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_manifest_check_SOURCES = tests/unit/test_manifest_check.c
tests_unit_test_manifest_check_LDADD = $(UNIT_LDADD)
tests_unit_test_manifest_check_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_metrics_SOURCES = tests/unit/test_metrics.c
tests_unit_test_metrics_LDADD = $(UNIT_LDADD)
tests_unit_test_metrics_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_strmap_SOURCES = tests/unit/test_strmap.c
tests_unit_test_strmap_LDADD = $(UNIT_LDADD)
tests_unit_test_strmap_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_decode_limits_SOURCES = tests/unit/test_decode_limits.c \
	tests/unit/decode_helpers.h
tests_unit_test_decode_limits_LDADD = $(UNIT_LDADD)
tests_unit_test_decode_limits_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_validate_fields_SOURCES = tests/unit/test_validate_fields.c
tests_unit_test_validate_fields_LDADD = $(UNIT_LDADD)
tests_unit_test_validate_fields_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_decode_time_SOURCES = tests/unit/test_decode_time.c \
	tests/unit/decode_helpers.h
tests_unit_test_decode_time_LDADD = $(UNIT_LDADD)
tests_unit_test_decode_time_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_log_SOURCES = tests/unit/test_log.c
tests_unit_test_log_LDADD = $(UNIT_LDADD)
tests_unit_test_log_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_queue_rule_SOURCES = tests/unit/test_queue_rule.c
tests_unit_test_queue_rule_LDADD = $(UNIT_LDADD)
tests_unit_test_queue_rule_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_config_SOURCES = tests/unit/test_config.c \
	sched/host/sched_config.c sched/host/sched_config.h
tests_unit_test_config_LDADD = $(UNIT_LDADD)
tests_unit_test_config_CFLAGS = $(UNIT_CFLAGS)
# The fake API server (libmicrohttpd) the client tests talk to.
FAKE_API_SRCS = tests/lib/fake_apiserver.c tests/lib/fake_apiserver.h
tests_unit_test_kclient_SOURCES = tests/unit/test_kclient.c $(FAKE_API_SRCS)
tests_unit_test_kclient_LDADD = core/kube/libordo-kube.la $(UNIT_LDADD) $(CURL_LIBS) $(JSONC_LIBS) $(MHD_LIBS)
tests_unit_test_kclient_CFLAGS = $(UNIT_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS) $(MHD_CFLAGS)
tests_unit_test_kclient_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/lib
tests_unit_test_kubeconfig_SOURCES = tests/unit/test_kubeconfig.c $(FAKE_API_SRCS)
tests_unit_test_kubeconfig_LDADD = core/kube/libordo-kube.la $(UNIT_LDADD) $(CURL_LIBS) $(JSONC_LIBS) $(MHD_LIBS)
tests_unit_test_kubeconfig_CFLAGS = $(UNIT_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS) $(MHD_CFLAGS)
tests_unit_test_kubeconfig_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/lib -I$(top_srcdir)/core -I$(top_srcdir)/core/kube
if HAVE_GNUTLS
UNIT_TESTS += tests/unit/test_kubeconfig_tls
endif
tests_unit_test_kubeconfig_tls_SOURCES = tests/unit/test_kubeconfig_tls.c
tests_unit_test_kubeconfig_tls_LDADD = core/kube/libordo-kube.la $(UNIT_LDADD) $(CURL_LIBS) $(JSONC_LIBS) $(MHD_LIBS) $(GNUTLS_LIBS)
tests_unit_test_kubeconfig_tls_CFLAGS = $(UNIT_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS) $(MHD_CFLAGS) $(GNUTLS_CFLAGS)
tests_unit_test_kubeconfig_tls_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core/kube
KUBE_UNIT_LDADD = core/kube/libordo-kube.la $(UNIT_LDADD) $(CURL_LIBS) $(JSONC_LIBS) $(MHD_LIBS)
KUBE_UNIT_CFLAGS = $(UNIT_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS) $(MHD_CFLAGS)
tests_unit_test_krequest_SOURCES = tests/unit/test_krequest.c $(FAKE_API_SRCS)
tests_unit_test_krequest_LDADD = $(KUBE_UNIT_LDADD)
tests_unit_test_krequest_CFLAGS = $(KUBE_UNIT_CFLAGS)
tests_unit_test_krequest_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/lib
tests_unit_test_klease_SOURCES = tests/unit/test_klease.c
tests_unit_test_klease_LDADD = $(KUBE_UNIT_LDADD)
tests_unit_test_klease_CFLAGS = $(KUBE_UNIT_CFLAGS)
tests_unit_test_klease_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core/kube
tests_unit_test_kinformer_SOURCES = tests/unit/test_kinformer.c $(FAKE_API_SRCS)
tests_unit_test_kinformer_LDADD = $(KUBE_UNIT_LDADD)
tests_unit_test_kinformer_CFLAGS = $(KUBE_UNIT_CFLAGS)
tests_unit_test_kinformer_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/lib
tests_unit_test_kube_backend_SOURCES = tests/unit/test_kube_backend.c \
	tests/unit/events_helpers.h $(FAKE_API_SRCS)
tests_unit_test_kube_backend_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(CURL_LIBS) $(JSONC_LIBS) $(MHD_LIBS) $(LIBS)
tests_unit_test_kube_backend_CFLAGS = $(UNIT_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS) $(MHD_CFLAGS)
tests_unit_test_kube_backend_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/lib \
	-I$(top_srcdir)/sched/backend/kube
tests_unit_test_kube_leader_SOURCES = tests/unit/test_kube_leader.c $(FAKE_API_SRCS)
tests_unit_test_kube_leader_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(CURL_LIBS) $(JSONC_LIBS) $(MHD_LIBS) $(LIBS)
tests_unit_test_kube_leader_CFLAGS = $(UNIT_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS) $(MHD_CFLAGS)
tests_unit_test_kube_leader_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/lib \
	-I$(top_srcdir)/sched/backend/kube -I$(top_srcdir)/core/kube
tests_unit_test_kube_evict_SOURCES = tests/unit/test_kube_evict.c $(FAKE_API_SRCS)
tests_unit_test_kube_evict_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(CURL_LIBS) $(MHD_LIBS) $(LIBS)
tests_unit_test_kube_evict_CFLAGS = $(UNIT_CFLAGS) $(CURL_CFLAGS) $(MHD_CFLAGS)
tests_unit_test_kube_evict_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/lib
tests_unit_test_quota_tree_SOURCES = tests/unit/test_quota_tree.c
tests_unit_test_quota_tree_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_quota_tree_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sim_output_SOURCES = tests/unit/test_sim_output.c \
	sched/backend/sim/sim_report.c sched/backend/sim/sim_plot.c \
	sched/backend/sim/sim_plot_usage.c sched/backend/sim/sim_plot_timeline.c \
	sched/backend/sim/sim_plot_svg.c sched/backend/sim/sim_summary.c \
	sched/backend/sim/sim_plot_int.h sched/backend/sim/sim.h
tests_unit_test_sim_output_LDADD = $(UNIT_LDADD) $(JSONC_LIBS)
tests_unit_test_sim_output_CFLAGS = $(UNIT_CFLAGS) $(JSONC_CFLAGS)
tests_unit_test_sim_output_SOURCES += sched/backend/sim/sim_report_hist.c \
	sched/cache/history.c sched/cache/changes.c
# The pictures and the summary from hand-made histories.
tests_unit_test_sim_plot_SOURCES = tests/unit/test_sim_plot.c \
	sched/backend/sim/sim_plot.c sched/backend/sim/sim_plot_usage.c \
	sched/backend/sim/sim_plot_timeline.c sched/backend/sim/sim_plot_svg.c \
	sched/backend/sim/sim_summary.c
tests_unit_test_sim_plot_LDADD = $(UNIT_LDADD)
tests_unit_test_sim_plot_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sim_check_SOURCES = tests/unit/test_sim_check.c
tests_unit_test_sim_check_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_sim_check_CFLAGS = $(UNIT_CFLAGS)
# The events-in interface, through scheduler.h on an in-process scheduler
# with the real plugins (events_helpers.h).
EVENTS_TEST_SRCS = tests/unit/events_helpers.h tests/unit/test_helpers.h
KUBE_STATUS_CFLAGS = $(UNIT_CFLAGS) $(JSONC_CFLAGS)
tests_unit_test_kube_status_SOURCES = tests/unit/test_kube_status.c \
	tests/unit/kube_status_helpers.h $(EVENTS_TEST_SRCS)
tests_unit_test_kube_status_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_kube_status_CFLAGS = $(KUBE_STATUS_CFLAGS)
tests_unit_test_kube_webhook_SOURCES = tests/unit/test_kube_webhook.c
tests_unit_test_kube_webhook_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS) $(JSONC_LIBS)
tests_unit_test_kube_webhook_CFLAGS = $(KUBE_STATUS_CFLAGS)
tests_unit_test_kube_writes_SOURCES = tests/unit/test_kube_writes.c \
	tests/unit/kube_status_helpers.h $(EVENTS_TEST_SRCS)
tests_unit_test_kube_writes_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_kube_writes_CFLAGS = $(KUBE_STATUS_CFLAGS)
tests_unit_test_events_nodes_SOURCES = tests/unit/test_events_nodes.c \
	$(EVENTS_TEST_SRCS)
tests_unit_test_events_nodes_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_events_nodes_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_events_jobs_SOURCES = tests/unit/test_events_jobs.c \
	$(EVENTS_TEST_SRCS)
tests_unit_test_events_jobs_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_events_jobs_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_lq_metrics_SOURCES = tests/unit/test_lq_metrics.c \
	$(EVENTS_TEST_SRCS)
tests_unit_test_lq_metrics_CPPFLAGS = $(AM_CPPFLAGS) $(INC_OBS)
tests_unit_test_lq_metrics_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_lq_metrics_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_events_queues_SOURCES = tests/unit/test_events_queues.c \
	$(EVENTS_TEST_SRCS)
tests_unit_test_events_queues_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_events_queues_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_events_meta_SOURCES = tests/unit/test_events_meta.c \
	$(EVENTS_TEST_SRCS)
tests_unit_test_events_meta_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_events_meta_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_events_async_SOURCES = tests/unit/test_events_async.c \
	$(EVENTS_TEST_SRCS)
tests_unit_test_events_async_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_events_async_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_events_checks_SOURCES = tests/unit/test_events_checks.c \
	$(EVENTS_TEST_SRCS)
tests_unit_test_events_checks_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_events_checks_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_events_restart_SOURCES = tests/unit/test_events_restart.c \
	$(EVENTS_TEST_SRCS)
tests_unit_test_events_restart_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_events_restart_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_history_SOURCES = tests/unit/test_history.c
tests_unit_test_history_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_history_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_cluster_scale_SOURCES = tests/unit/test_cluster_scale.c
tests_unit_test_cluster_scale_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_unit_test_cluster_scale_CFLAGS = $(UNIT_CFLAGS)

# ---- plugin ABI rules ---------------------------------------------------
# One fixture plugin per loader rule (tests/abi/fixtures), built as real
# shared objects into tests/abi/.libs/<name>.so (-rpath makes libtool build
# a .so although nothing installs them), and the test that loads them.
ABI_FIXTURE_CPPFLAGS = -I$(top_srcdir)/core/include
ABI_FIXTURE_LINK = $(AM_LDFLAGS) -module -avoid-version -shared -rpath /nowhere

check_LTLIBRARIES += tests/abi/good_queue.la
tests_abi_good_queue_la_SOURCES = tests/abi/fixtures/good_queue.c
tests_abi_good_queue_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_good_queue_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/good_place.la
tests_abi_good_place_la_SOURCES = tests/abi/fixtures/good_place.c
tests_abi_good_place_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_good_place_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/wrong_major.la
tests_abi_wrong_major_la_SOURCES = tests/abi/fixtures/wrong_major.c
tests_abi_wrong_major_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_wrong_major_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/newer_minor.la
tests_abi_newer_minor_la_SOURCES = tests/abi/fixtures/newer_minor.c
tests_abi_newer_minor_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_newer_minor_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/older_minor.la
tests_abi_older_minor_la_SOURCES = tests/abi/fixtures/older_minor.c
tests_abi_older_minor_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_older_minor_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/short_struct.la
tests_abi_short_struct_la_SOURCES = tests/abi/fixtures/short_struct.c
tests_abi_short_struct_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_short_struct_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/no_symbol.la
tests_abi_no_symbol_la_SOURCES = tests/abi/fixtures/no_symbol.c
tests_abi_no_symbol_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_no_symbol_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/unresolved.la
tests_abi_unresolved_la_SOURCES = tests/abi/fixtures/unresolved.c
tests_abi_unresolved_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_unresolved_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/bad_kind.la
tests_abi_bad_kind_la_SOURCES = tests/abi/fixtures/bad_kind.c
tests_abi_bad_kind_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_bad_kind_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/no_init.la
tests_abi_no_init_la_SOURCES = tests/abi/fixtures/no_init.c
tests_abi_no_init_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_no_init_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/missing_op.la
tests_abi_missing_op_la_SOURCES = tests/abi/fixtures/missing_op.c
tests_abi_missing_op_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_missing_op_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/two_tables.la
tests_abi_two_tables_la_SOURCES = tests/abi/fixtures/two_tables.c
tests_abi_two_tables_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_two_tables_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/bad_name.la
tests_abi_bad_name_la_SOURCES = tests/abi/fixtures/bad_name.c
tests_abi_bad_name_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_bad_name_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/duplicate_name.la
tests_abi_duplicate_name_la_SOURCES = tests/abi/fixtures/duplicate_name.c
tests_abi_duplicate_name_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_duplicate_name_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/init_fails.la
tests_abi_init_fails_la_SOURCES = tests/abi/fixtures/init_fails.c
tests_abi_init_fails_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_init_fails_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/init_int_min.la
tests_abi_init_int_min_la_SOURCES = tests/abi/fixtures/init_int_min.c
tests_abi_init_int_min_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_init_int_min_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/hostile_preempt.la
tests_abi_hostile_preempt_la_SOURCES = tests/abi/fixtures/hostile_preempt.c
tests_abi_hostile_preempt_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_hostile_preempt_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/abi13_queue.la
tests_abi_abi13_queue_la_SOURCES = tests/abi/fixtures/abi13_queue.c
tests_abi_abi13_queue_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_abi13_queue_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/args_queue.la
tests_abi_args_queue_la_SOURCES = tests/abi/fixtures/args_queue.c
tests_abi_args_queue_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_args_queue_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/bad_arg_default.la
tests_abi_bad_arg_default_la_SOURCES = tests/abi/fixtures/bad_arg_default.c
tests_abi_bad_arg_default_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_bad_arg_default_la_LDFLAGS = $(ABI_FIXTURE_LINK)
# Two 1.4 plugins that read workload and pod set metadata through the real
# host, in a directory of their own (a plugin directory loads every .so in
# it): tests/scenarios/abi-workload-metadata/plugin-dir.
check_LTLIBRARIES += tests/abi/meta/meta_place.la
tests_abi_meta_meta_place_la_SOURCES = tests/abi/fixtures/meta_place.c
tests_abi_meta_meta_place_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_meta_meta_place_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_LTLIBRARIES += tests/abi/meta/meta_queue.la
tests_abi_meta_meta_queue_la_SOURCES = tests/abi/fixtures/meta_queue.c
tests_abi_meta_meta_queue_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_meta_meta_queue_la_LDFLAGS = $(ABI_FIXTURE_LINK)
# A PLACE plugin that accepts every node and prefers the ones the host must
# refuse, alone in its directory: tests/scenarios/host-node-fit/plugin-dir.
check_LTLIBRARIES += tests/abi/greedy/greedy_place.la
tests_abi_greedy_greedy_place_la_SOURCES = tests/abi/fixtures/greedy_place.c
tests_abi_greedy_greedy_place_la_CPPFLAGS = $(ABI_FIXTURE_CPPFLAGS)
tests_abi_greedy_greedy_place_la_LDFLAGS = $(ABI_FIXTURE_LINK)
check_PROGRAMS += tests/abi/test_abi
# The loader, plugins.c (init) and watchdog.c, from the scheduler's library.
tests_abi_test_abi_SOURCES = tests/abi/test_abi.c
tests_abi_test_abi_LDADD = sched/libordo-sched.la $(CMOCKA_LIBS) $(LIBS)
tests_abi_test_abi_CFLAGS = $(UNIT_CFLAGS)

# ---- plugin unit tests --------------------------------------------------
# One binary per built-in plugin (each defines ordo_plugin), linking the
# plugin's source with the mock host of tests/lib.
PLUGIN_TESTS = \
	tests/plugins/test_strict_fifo \
	tests/plugins/test_best_effort_fifo \
	tests/plugins/test_kueue_quota \
	tests/plugins/test_resource_fit \
	tests/plugins/test_kueue_preempt
check_PROGRAMS += $(PLUGIN_TESTS)
PLUGIN_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/lib -I$(top_srcdir)/core
PLUGIN_TEST_LDADD = $(CMOCKA_LIBS)
MOCK_HOST_SRCS = tests/lib/mock_host.c tests/lib/mock_host.h \
	tests/lib/mock_host_meta.c tests/lib/mock_host_int.h \
	tests/lib/ordo/plugin-test.h core/quantity.c core/duration.c
tests_plugins_test_strict_fifo_SOURCES = tests/plugins/test_strict_fifo.c \
	tests/plugins/fifo_cases.h plugins/queue/strict_fifo.c \
	plugins/queue/fifo_order.h $(MOCK_HOST_SRCS)
tests_plugins_test_strict_fifo_CPPFLAGS = $(PLUGIN_TEST_CPPFLAGS)
tests_plugins_test_strict_fifo_CFLAGS = $(UNIT_CFLAGS)
tests_plugins_test_strict_fifo_LDADD = $(PLUGIN_TEST_LDADD)
tests_plugins_test_best_effort_fifo_SOURCES = \
	tests/plugins/test_best_effort_fifo.c tests/plugins/fifo_cases.h \
	plugins/queue/best_effort_fifo.c plugins/queue/fifo_order.h \
	$(MOCK_HOST_SRCS)
tests_plugins_test_best_effort_fifo_CPPFLAGS = $(PLUGIN_TEST_CPPFLAGS)
tests_plugins_test_best_effort_fifo_CFLAGS = $(UNIT_CFLAGS)
tests_plugins_test_best_effort_fifo_LDADD = $(PLUGIN_TEST_LDADD)
tests_plugins_test_resource_fit_SOURCES = \
	tests/plugins/test_resource_fit.c plugins/place/resource_fit.c \
	$(MOCK_HOST_SRCS)
tests_plugins_test_resource_fit_CPPFLAGS = $(PLUGIN_TEST_CPPFLAGS)
tests_plugins_test_resource_fit_CFLAGS = $(UNIT_CFLAGS)
tests_plugins_test_resource_fit_LDADD = $(PLUGIN_TEST_LDADD)
tests_plugins_test_kueue_quota_SOURCES = \
	tests/plugins/test_kueue_quota.c plugins/quota/kueue_quota.c \
	$(MOCK_HOST_SRCS)
tests_plugins_test_kueue_quota_CPPFLAGS = $(PLUGIN_TEST_CPPFLAGS)
tests_plugins_test_kueue_quota_CFLAGS = $(UNIT_CFLAGS)
tests_plugins_test_kueue_quota_LDADD = $(PLUGIN_TEST_LDADD)
tests_plugins_test_kueue_preempt_SOURCES = \
	tests/plugins/test_kueue_preempt.c plugins/preempt/kueue_preempt.c \
	$(MOCK_HOST_SRCS)
tests_plugins_test_kueue_preempt_CPPFLAGS = $(PLUGIN_TEST_CPPFLAGS)
tests_plugins_test_kueue_preempt_CFLAGS = $(UNIT_CFLAGS)
tests_plugins_test_kueue_preempt_LDADD = $(PLUGIN_TEST_LDADD)

# The sample ABI 1.4 plugin of examples/plugins/shortest-job-first: its own
# unit test against the mock host, and the .so a scenario loads
# (tests/scenarios/example-shortest-job-first/plugin-dir).
PLUGIN_TESTS += tests/plugins/test_shortest_job_first
check_PROGRAMS += tests/plugins/test_shortest_job_first
tests_plugins_test_shortest_job_first_SOURCES = \
	examples/plugins/shortest-job-first/test_shortest_job_first.c \
	examples/plugins/shortest-job-first/shortest_job_first.c \
	$(MOCK_HOST_SRCS)
tests_plugins_test_shortest_job_first_CPPFLAGS = $(PLUGIN_TEST_CPPFLAGS)
tests_plugins_test_shortest_job_first_CFLAGS = $(UNIT_CFLAGS)
tests_plugins_test_shortest_job_first_LDADD = $(PLUGIN_TEST_LDADD)
check_LTLIBRARIES += examples/plugins/shortest-job-first/shortest_job_first.la
examples_plugins_shortest_job_first_shortest_job_first_la_SOURCES = \
	examples/plugins/shortest-job-first/shortest_job_first.c
examples_plugins_shortest_job_first_shortest_job_first_la_CPPFLAGS = \
	$(ABI_FIXTURE_CPPFLAGS)
examples_plugins_shortest_job_first_shortest_job_first_la_LDFLAGS = \
	$(ABI_FIXTURE_LINK)

# ---- the plugin test kit ---------------------------------------------------
# The mock host, installed for out-of-tree plugins: <ordo/plugin-test.h>,
# libordo-plugin-test.a and ordo-plugin-test.pc (docs/plugin-guide.md,
# "Testing a plugin"). Built without the sanitizers, so that a plugin's
# test links it with any compiler flags; -fPIC for shared objects too.
lib_LIBRARIES = tests/lib/libordo-plugin-test.a
tests_lib_libordo_plugin_test_a_SOURCES = tests/lib/mock_host.c \
	tests/lib/mock_host_meta.c tests/lib/mock_host_int.h \
	tests/lib/mock_host.h tests/lib/ordo/plugin-test.h \
	core/quantity.c core/quantity.h core/duration.c core/duration.h
tests_lib_libordo_plugin_test_a_CPPFLAGS = $(ORDO_DEFS) \
	-I$(top_srcdir)/core/include -I$(top_srcdir)/core -I$(top_srcdir)/tests/lib
tests_lib_libordo_plugin_test_a_CFLAGS = -fPIC \
	$(filter-out -fsanitize=% -fno-sanitize-recover=%,$(ORDO_CFLAGS))
ordoinclude_HEADERS += tests/lib/ordo/plugin-test.h
pkgconfig_DATA += tests/lib/ordo-plugin-test.pc
EXTRA_DIST += tests/lib/ordo-plugin-test.pc.in

# ---- scenario tests -----------------------------------------------------
# Each directory under tests/scenarios is a small cluster run on the
# simulator and checked against its expect.yaml (tests/scenarios/README.md).
check_PROGRAMS += tests/scenarios/run_scenarios
tests_scenarios_run_scenarios_SOURCES = tests/scenarios/run_scenarios.c
tests_scenarios_run_scenarios_LDADD = $(UNIT_LDADD) $(JSONC_LIBS)
tests_scenarios_run_scenarios_CFLAGS = $(UNIT_CFLAGS) $(JSONC_CFLAGS)
TESTS += tests/scenarios/run_scenarios
EXTRA_DIST += tests/scenarios

CLI_TESTS = tests/cli/test_cli.sh tests/cli/test_example_plugin.sh \
	tests/cli/test_examples.sh tests/cli/test_quiet.sh \
	tests/cli/test_host_checks.sh tests/cli/test_layers.sh \
	tests/cli/test_backend_line.sh tests/cli/test_checks.sh \
	tests/cli/test_explain.sh tests/cli/test_validate.sh \
	tests/cli/test_kube_e2e.sh tests/cli/test_kube_cli.sh \
	tests/cli/test_kube_restart.sh tests/cli/test_obs.sh \
	tests/cli/test_kube_ha.sh tests/cli/test_webhook.sh
# The visibility API as the aggregator reaches it (TLS, client CA).
CLI_TESTS += tests/cli/test_visibility.sh
# examples/deploy on the emulator; RBAC and secrets against what it does.
CLI_TESTS += tests/cli/test_deploy.sh
# scripts/demo --kube on this build tree.
CLI_TESTS += tests/cli/test_demo_kube.sh
TESTS += $(UNIT_TESTS) tests/abi/test_abi $(PLUGIN_TESTS) $(CLI_TESTS)
EXTRA_DIST += $(CLI_TESTS) tests/cli/lib.sh tests/cli/kube_restart.py tests/cli/kube_ha.py tests/cli/obs_report.py tests/cli/deploy_check.py tests/data tests/fuzz tests/bench examples docs
AM_TESTS_ENVIRONMENT = \
	ORDO_TEST_DATA='$(abs_top_srcdir)/tests/data'; export ORDO_TEST_DATA; \
	ORDO_SCHEDULER='$(abs_top_builddir)/sched/ordo-scheduler'; export ORDO_SCHEDULER; \
	ORDO_SCENARIOS='$(abs_top_srcdir)/tests/scenarios'; export ORDO_SCENARIOS; \
	ORDO_ABI_FIXTURES='$(abs_top_builddir)/tests/abi/.libs'; export ORDO_ABI_FIXTURES; \
	ORDO_SRCDIR='$(abs_top_srcdir)'; export ORDO_SRCDIR; \
	ORDO_BUILDDIR='$(abs_top_builddir)'; export ORDO_BUILDDIR; \
	ORDO_BUILD_PLUGIN_DIR='$(abs_top_builddir)/plugins/.libs'; export ORDO_BUILD_PLUGIN_DIR; \
	ORDO_CC='$(CC)'; export ORDO_CC; \
	ORDO_SIM_CPPFLAGS='$(LAYERS_SIM_CPPFLAGS)'; export ORDO_SIM_CPPFLAGS; \
	ORDO_ALL_CPPFLAGS='$(LAYERS_ALL_CPPFLAGS)'; export ORDO_ALL_CPPFLAGS; \
	ASAN_OPTIONS=detect_leaks=1; export ASAN_OPTIONS; \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1; export UBSAN_OPTIONS;

# test_backend_line.sh compiles probes with the simulator's include path and
# with every folder's (the -D flags, which carry quotes, left out).
LAYERS_SIM_CPPFLAGS = \
	$(filter-out -D%,$(sched_backend_sim_libordo_sim_la_CPPFLAGS))
LAYERS_ALL_CPPFLAGS = $(filter-out -D%,$(AM_CPPFLAGS))

# ---- fuzzing ------------------------------------------------------------
# `make fuzz`: each target of tests/fuzz is built with clang's libFuzzer
# apart from the normal build and run for FUZZ_SECONDS on a scratch copy of
# its seed corpus and regression inputs (tests/fuzz/run_fuzz.sh). The core
# and sched sources are compiled once into tests/fuzz/libfuzz-ordo.a, the
# built-in plugins into tests/fuzz/plugins/ (fuzz_sim loads them). Every
# sanitizer report aborts (-fno-sanitize-recover=all) and fails `make fuzz`,
# which names the target and the input it kept under
# tests/fuzz/artifacts/<target>/; full logs are in tests/fuzz/logs/.
# FUZZ_TARGETS="sim decode" runs some.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = quantity doc decode config sim webhook
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_CFLAGS = -g -O1 $(FUZZ_SAN) $(AM_CPPFLAGS) -I$(top_builddir) \
	-DORDO_FUZZ_PLUGIN_DIR='"$(abs_top_builddir)/tests/fuzz/plugins"' \
	$(YAML_CFLAGS) $(JSONC_CFLAGS) $(CURL_CFLAGS) $(INC_OBS) $(MHD_CFLAGS)
FUZZ_LIB_SRCS = $(filter %.c,$(core_libordo_core_la_SOURCES) \
	$(ORDO_SCHED_SRCS))
FUZZ_OBJS = $(patsubst %.c,tests/fuzz/obj/%.o,$(FUZZ_LIB_SRCS))
FUZZ_BINS = $(addprefix tests/fuzz/fuzz_,$(FUZZ_TARGETS))
FUZZ_PLUGINS = $(patsubst plugins/%.la,tests/fuzz/plugins/%.so, \
	$(plugin_LTLIBRARIES))
FUZZ_HDRS = $(wildcard $(top_srcdir)/core/*.h $(top_srcdir)/core/kube/*.h \
	$(top_srcdir)/sched/*.h $(top_srcdir)/sched/*/*.h $(top_srcdir)/sched/backend/*/*.h \
	$(top_srcdir)/sched/cache/private/*.h \
	$(top_srcdir)/core/include/ordo/*.h $(top_srcdir)/plugins/*/*.h)

$(FUZZ_OBJS): tests/fuzz/obj/%.o: $(top_srcdir)/%.c $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(AM_V_at)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
tests/fuzz/libfuzz-ordo.a: $(FUZZ_OBJS)
	$(AM_V_at)rm -f $@ && $(AR) rcs $@ $(FUZZ_OBJS)
$(FUZZ_BINS): tests/fuzz/fuzz_%: $(top_srcdir)/tests/fuzz/fuzz_%.c \
		tests/fuzz/libfuzz-ordo.a
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< \
	  tests/fuzz/libfuzz-ordo.a $(YAML_LIBS) $(JSONC_LIBS) $(CURL_LIBS) \
	  $(CRYPTO_LIBS) $(LIBS) -o $@
# Plugins get coverage too (fuzzer-no-link); fuzz_sim keeps them loaded.
$(FUZZ_PLUGINS): tests/fuzz/plugins/%.so: $(FUZZ_HDRS) \
		$(wildcard $(top_srcdir)/plugins/*/*.c)
	@mkdir -p $(@D)
	$(AM_V_at)$(CLANG) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link -fPIC \
	  -shared $(PLUGIN_CPPFLAGS) \
	  $(addprefix $(top_srcdir)/,$(filter %.c,$(plugins_$*_la_SOURCES))) \
	  -o $@
fuzz-build: $(FUZZ_BINS) $(FUZZ_PLUGINS)
	@:

fuzz:
	@if test -z "$(CLANG)"; then \
	  echo "make fuzz needs clang: apt-get install clang libclang-rt-14-dev"; exit 1; fi
	@echo "  FUZZ     building $(FUZZ_TARGETS) with $(CLANG)"
	@$(MAKE) $(AM_MAKEFLAGS) --no-print-directory fuzz-build
	@rc=0; for t in $(FUZZ_TARGETS); do \
	  $(SHELL) $(top_srcdir)/tests/fuzz/run_fuzz.sh $$t tests/fuzz/fuzz_$$t \
	    $(top_srcdir)/tests/fuzz $(FUZZ_SECONDS) tests/fuzz || rc=1; \
	done; \
	if test $$rc -ne 0; then echo "make fuzz: a target failed (see above)"; fi; \
	exit $$rc
fuzz-clean:
	rm -rf tests/fuzz/obj tests/fuzz/plugins tests/fuzz/logs \
	  tests/fuzz/artifacts tests/fuzz/libfuzz-ordo.a
clean-local: fuzz-clean
.PHONY: fuzz fuzz-build fuzz-clean
CLEANFILES += $(addprefix tests/fuzz/fuzz_,$(FUZZ_TARGETS))

# ---- fuzz replay ----------------------------------------------------------
# make check runs each target's LLVMFuzzerTestOneInput, built with the
# normal compiler and the check build's sanitizers (tests/fuzz/replay_main.c),
# over its seed corpus and every input that ever crashed it
# (tests/fuzz/regress/<target>/): a regression fails the suite without
# clang. `make fuzz-pending` replays tests/fuzz/pending/<target>/, inputs
# whose bug is not fixed yet; once it passes, move them to regress/.
FUZZ_REPLAY = tests/fuzz/replay_quantity tests/fuzz/replay_doc \
	tests/fuzz/replay_decode tests/fuzz/replay_config tests/fuzz/replay_sim \
	tests/fuzz/replay_webhook
check_PROGRAMS += $(FUZZ_REPLAY)
TESTS += $(FUZZ_REPLAY)
FUZZ_REPLAY_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_SRCDIR='"$(abs_top_srcdir)"'
FUZZ_REPLAY_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS) $(JSONC_CFLAGS)
tests_fuzz_replay_quantity_SOURCES = tests/fuzz/replay_main.c \
	tests/fuzz/fuzz_quantity.c
tests_fuzz_replay_quantity_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) \
	-DFUZZ_TARGET='"quantity"'
tests_fuzz_replay_quantity_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_quantity_LDADD = core/libordo-core.la
tests_fuzz_replay_doc_SOURCES = tests/fuzz/replay_main.c tests/fuzz/fuzz_doc.c
tests_fuzz_replay_doc_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_TARGET='"doc"'
tests_fuzz_replay_doc_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_doc_LDADD = core/libordo-core.la
tests_fuzz_replay_decode_SOURCES = tests/fuzz/replay_main.c \
	tests/fuzz/fuzz_decode.c
tests_fuzz_replay_decode_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) \
	-DFUZZ_TARGET='"decode"'
tests_fuzz_replay_decode_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_decode_LDADD = core/libordo-core.la
tests_fuzz_replay_config_SOURCES = tests/fuzz/replay_main.c \
	tests/fuzz/fuzz_config.c
tests_fuzz_replay_config_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) \
	-DFUZZ_TARGET='"config"'
tests_fuzz_replay_config_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_config_LDADD = sched/libordo-sched.la $(LIBS)
tests_fuzz_replay_sim_SOURCES = tests/fuzz/replay_main.c tests/fuzz/fuzz_sim.c
tests_fuzz_replay_sim_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) -DFUZZ_TARGET='"sim"'
tests_fuzz_replay_sim_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_sim_LDADD = sched/libordo-sched.la $(LIBS)
tests_fuzz_replay_webhook_SOURCES = tests/fuzz/replay_main.c \
	tests/fuzz/fuzz_webhook.c
tests_fuzz_replay_webhook_CPPFLAGS = $(FUZZ_REPLAY_CPPFLAGS) \
	-DFUZZ_TARGET='"webhook"'
tests_fuzz_replay_webhook_CFLAGS = $(FUZZ_REPLAY_CFLAGS)
tests_fuzz_replay_webhook_LDADD = sched/libordo-sched.la $(LIBS) $(JSONC_LIBS)
fuzz-pending: $(FUZZ_REPLAY) $(plugin_LTLIBRARIES)
	@rc=0; for t in $(FUZZ_TARGETS); do \
	  for f in $(top_srcdir)/tests/fuzz/pending/$$t/*; do \
	    test -f "$$f" || continue; \
	    out=$$( ($(AM_TESTS_ENVIRONMENT) ./tests/fuzz/replay_$$t "$$f") 2>&1); \
	    if test $$? -eq 0; then echo "  PASS     $$f: move it to regress/$$t/"; \
	    else rc=1; echo "  FAIL     $$f"; \
	      echo "$$out" | grep -m 2 -E 'runtime error|ERROR: |invariant violated|broken promise|fuzz_sim:' | sed 's/^/    /'; \
	    fi; \
	  done; \
	done; exit $$rc
.PHONY: fuzz-pending

# ---- benchmarks -----------------------------------------------------------
# `make bench`: figures, never assertions on time. Meaningful in a build
# without sanitizers (build/release).
EXTRA_PROGRAMS = tests/bench/bench_cycle tests/bench/bench_kueue_baseline \
	tests/bench/bench_scale
tests_bench_bench_cycle_SOURCES = tests/bench/bench_cycle.c
tests_bench_bench_cycle_LDADD = sched/libordo-sched.la $(LIBS)
tests_bench_bench_kueue_baseline_SOURCES = tests/bench/bench_kueue_baseline.c
tests_bench_bench_kueue_baseline_LDADD = sched/libordo-sched.la $(JSONC_LIBS) $(LIBS)
tests_bench_bench_kueue_baseline_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_bench_bench_scale_SOURCES = tests/bench/bench_scale.c
tests_bench_bench_scale_LDADD = sched/libordo-sched.la $(JSONC_LIBS) $(LIBS)
CLEANFILES += tests/bench/bench_cycle tests/bench/bench_kueue_baseline \
	tests/bench/bench_scale
# BENCH_SCALE_ARGS: e.g. "cqs 100000" or "completions 100000 100" (see
# tests/bench/bench_scale.c).
bench: tests/bench/bench_cycle tests/bench/bench_kueue_baseline \
		tests/bench/bench_scale $(plugin_LTLIBRARIES)
	./tests/bench/bench_cycle $(BENCH_ARGS)
	./tests/bench/bench_kueue_baseline $(BENCH_BASELINE_ARGS)
	./tests/bench/bench_scale $(BENCH_SCALE_ARGS)
.PHONY: bench

# ---- long random runs -----------------------------------------------------
# Random but valid clusters run on the simulator with --sim-check
# (invariants after every instant). make check runs seeds 1-20;
# `make stress STRESS_ARGS="N FIRST"` runs more; a seed that once failed
# becomes a regress-* scenario.
check_PROGRAMS += tests/stress/random_runs
tests_stress_random_runs_SOURCES = tests/stress/random_runs.c
TESTS += tests/stress/random_runs
stress: tests/stress/random_runs sched/ordo-scheduler $(plugin_LTLIBRARIES)
	ORDO_SCHEDULER='$(abs_top_builddir)/sched/ordo-scheduler' ./tests/stress/random_runs $(STRESS_ARGS)
.PHONY: stress
EXTRA_DIST += tests/stress

# ---- restart under load ------------------------------------------------
# test_kube_restart.sh (SIGKILL while binding, a second scheduler takes
# over) with more pods: `make restart-stress RESTART_PODS=N RESTART_SEED=S`.
RESTART_PODS = 2000
RESTART_SEED = 1
restart-stress: sched/ordo-scheduler tests/kube-emu/ordo-kube-emu \
		$(plugin_LTLIBRARIES)
	$(AM_TESTS_ENVIRONMENT) ORDO_RESTART_PODS=$(RESTART_PODS) \
	ORDO_RESTART_SEED=$(RESTART_SEED) \
	$(SHELL) $(srcdir)/tests/cli/test_kube_restart.sh
.PHONY: restart-stress
