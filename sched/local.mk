# sched/local.mk - the ordo-scheduler daemon, one convenience library per
# folder. Each library's include path names only the folders it may use,
# so that a file reaching past its layer does not build:
#
#   host/      plugin loading, registry, configuration, watchdog  core
#   cache/     the store: cluster, workloads, quota tree; no I/O   core
#   cycle/     decisions and the host table; no I/O               core, cache, host, the line
#   (sched/)   the line: scheduler.h/.c, events in, actions out   core, cache, host, cycle
#   backend/   the world: sim/ (simulator), kube/ (API server)     core, the line, cache (read)
#
# cache/ has what anyone may read (cluster.h, quota_tree.h); what changes
# the cache is in cache/private/ (store, workloads, queues, events), which
# only the cache, the line and the cycle name, with line/ (the definition
# of struct scheduler). A backend sees the line's scheduler.h: events in,
# actions out, the cluster to read (tests/cli/test_layers.sh checks it).
# Within cache/ calls go one way: quota_tree, history <- cluster (the store) <-
# workload, recover, queueing <- queues <- events <- the line.
#
# libordo-sched.la gathers them (each object once) for the program, the
# tests and benchmarks.
ORDO_DEFS = -D_GNU_SOURCE -I$(top_builddir) \
	-DORDO_PLUGIN_DIR='"$(pkglibdir)/plugins"' -DORDO_BUILD_DIR='"$(abs_top_builddir)"' \
	-DORDO_BUILD_PLUGIN_DIR='"$(abs_top_builddir)/plugins/.libs"'
INC_CORE = -I$(top_srcdir)/core
INC_ABI = -I$(top_srcdir)/core/include
INC_KUBE = -I$(top_srcdir)/core/kube
INC_HOST = -I$(top_srcdir)/sched/host
INC_CACHE = -I$(top_srcdir)/sched/cache
INC_CACHE_PRIVATE = -I$(top_srcdir)/sched/cache/private
INC_CYCLE = -I$(top_srcdir)/sched/cycle
INC_LINE = -I$(top_srcdir)/sched
INC_LINE_PRIVATE = -I$(top_srcdir)/sched/line
INC_OBS = -I$(top_srcdir)/sched/obs

noinst_LTLIBRARIES += sched/host/libordo-host.la
sched_host_libordo_host_la_SOURCES = \
	%reldir%/host/plugin_loader.c %reldir%/host/plugin_loader.h \
	%reldir%/host/sched_config.c %reldir%/host/sched_config.h \
	%reldir%/host/plugins.c %reldir%/host/plugins.h \
	%reldir%/host/watchdog.c %reldir%/host/watchdog.h
sched_host_libordo_host_la_CPPFLAGS = $(ORDO_DEFS) $(INC_CORE) $(INC_ABI) $(INC_HOST)

noinst_LTLIBRARIES += sched/cache/libordo-cache.la
sched_cache_libordo_cache_la_SOURCES = \
	%reldir%/cache/cluster.h %reldir%/cache/history.h %reldir%/cache/quota_tree.h \
	%reldir%/cache/quota_tree.c %reldir%/cache/qtree_share.c \
	%reldir%/cache/private/qtree_build.h %reldir%/cache/private/qtree_math.h \
	%reldir%/cache/cluster.c %reldir%/cache/nodes.c %reldir%/cache/removal.c \
	%reldir%/cache/private/store.h \
	%reldir%/cache/workload.c %reldir%/cache/queueing.c %reldir%/cache/history.c \
	%reldir%/cache/private/workload.h \
	%reldir%/cache/recover.c %reldir%/cache/private/recover.h \
	%reldir%/cache/queues.c %reldir%/cache/private/queues.h \
	%reldir%/cache/events.c %reldir%/cache/private/events.h \
	%reldir%/cache/changes.c %reldir%/cache/private/changes.h
sched_cache_libordo_cache_la_CPPFLAGS = $(ORDO_DEFS) $(INC_CORE) $(INC_CACHE) \
	$(INC_CACHE_PRIVATE)

noinst_LTLIBRARIES += sched/cycle/libordo-cycle.la
sched_cycle_libordo_cycle_la_SOURCES = \
	%reldir%/cycle/cycle.c %reldir%/cycle/cycle.h \
	%reldir%/cycle/entry.c %reldir%/cycle/entry.h \
	%reldir%/cycle/fair_share.c %reldir%/cycle/fair_share.h \
	%reldir%/cycle/queue.c %reldir%/cycle/queue.h \
	%reldir%/cycle/place.c %reldir%/cycle/place.h \
	%reldir%/cycle/node_fit.c %reldir%/cycle/node_fit.h \
	%reldir%/cycle/preempt.c %reldir%/cycle/preempt.h \
	%reldir%/cycle/preempt_check.c \
	%reldir%/cycle/host_table.c %reldir%/cycle/host_table.h \
	%reldir%/cycle/host_kueue.c %reldir%/cycle/host_kueue.h \
	%reldir%/cycle/host_meta.c %reldir%/cycle/host_meta.h
sched_cycle_libordo_cycle_la_CPPFLAGS = $(ORDO_DEFS) $(INC_CORE) $(INC_ABI) \
	$(INC_CACHE) $(INC_CACHE_PRIVATE) $(INC_HOST) $(INC_CYCLE) $(INC_LINE) \
	$(INC_LINE_PRIVATE)

noinst_LTLIBRARIES += sched/libordo-line.la
sched_libordo_line_la_SOURCES = %reldir%/scheduler.c %reldir%/scheduler.h \
	%reldir%/line/scheduler_int.h
sched_libordo_line_la_CPPFLAGS = $(ORDO_DEFS) $(INC_CORE) $(INC_ABI) \
	$(INC_CACHE) $(INC_CACHE_PRIVATE) $(INC_HOST) $(INC_CYCLE) $(INC_LINE) \
	$(INC_LINE_PRIVATE)

noinst_LTLIBRARIES += sched/backend/sim/libordo-sim.la
sched_backend_sim_libordo_sim_la_SOURCES = \
	%reldir%/backend/sim/sim.c %reldir%/backend/sim/sim.h \
	%reldir%/backend/sim/sim_int.h %reldir%/backend/sim/sim_events.c \
	%reldir%/backend/sim/sim_load.c %reldir%/backend/sim/sim_copy.c \
	%reldir%/backend/sim/sim_pods.c %reldir%/backend/sim/sim_jobs.c \
	%reldir%/backend/sim/sim_check.c %reldir%/backend/sim/sim_report.c %reldir%/backend/sim/sim_report_hist.c \
	%reldir%/backend/sim/sim_explain.c %reldir%/backend/sim/sim_summary.c \
	%reldir%/backend/sim/sim_plot.c %reldir%/backend/sim/sim_plot_int.h \
	%reldir%/backend/sim/sim_plot_svg.c \
	%reldir%/backend/sim/sim_plot_usage.c \
	%reldir%/backend/sim/sim_plot_timeline.c
sched_backend_sim_libordo_sim_la_CPPFLAGS = $(ORDO_DEFS) $(INC_CORE) $(INC_ABI) \
	$(INC_CACHE) $(INC_HOST) $(INC_LINE) -I$(top_srcdir)/sched/backend/sim \
	$(INC_OBS)
sched_backend_sim_libordo_sim_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)

noinst_LTLIBRARIES += sched/backend/kube/libordo-kube-backend.la
sched_backend_kube_libordo_kube_backend_la_SOURCES = \
	%reldir%/backend/kube/kube_evict.c %reldir%/backend/kube/kube_evict.h \
	%reldir%/backend/kube/kube_json.c %reldir%/backend/kube/kube_json.h \
	%reldir%/backend/kube/kube_writes.c %reldir%/backend/kube/kube_writes.h \
	%reldir%/backend/kube/kube_workload.c %reldir%/backend/kube/kube_workload.h \
	%reldir%/backend/kube/kube_workload_name.c \
	%reldir%/backend/kube/kube_queue_status.c \
	%reldir%/backend/kube/kube_queue_status.h \
	%reldir%/backend/kube/kube_pod_status.c %reldir%/backend/kube/kube_pod_status.h \
	%reldir%/backend/kube/kube_events.c %reldir%/backend/kube/kube_events.h \
	%reldir%/backend/kube/kube_backend.c %reldir%/backend/kube/kube_backend.h \
	%reldir%/backend/kube/kube_bind.c %reldir%/backend/kube/kube_int.h \
	%reldir%/backend/kube/kube_put.c \
	%reldir%/backend/kube/kube_status.c %reldir%/backend/kube/kube_status.h \
	%reldir%/backend/kube/kube_daemon.c %reldir%/backend/kube/kube_daemon.h \
	%reldir%/backend/kube/kube_obs.c %reldir%/backend/kube/kube_obs.h \
	%reldir%/backend/kube/kube_leader.c %reldir%/backend/kube/kube_leader.h \
	%reldir%/backend/kube/kube_webhook.c %reldir%/backend/kube/kube_webhook.h
sched_backend_kube_libordo_kube_backend_la_CPPFLAGS = $(ORDO_DEFS) $(INC_CORE) \
	$(INC_KUBE) $(INC_ABI) $(INC_CACHE) $(INC_HOST) $(INC_LINE) \
	-I$(top_srcdir)/sched/backend/kube $(INC_OBS)
sched_backend_kube_libordo_kube_backend_la_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS) \
	$(CRYPTO_CFLAGS)

# obs/: what an operator sees (metrics, the HTTP endpoints, visibility);
# it reads the scheduler as a backend does.
noinst_LTLIBRARIES += sched/obs/libordo-obs.la
sched_obs_libordo_obs_la_SOURCES = \
	%reldir%/obs/sched_metrics.c %reldir%/obs/sched_metrics.h \
	%reldir%/obs/visibility.c %reldir%/obs/visibility.h \
	%reldir%/obs/http_server.c %reldir%/obs/http_server.h \
	%reldir%/obs/client_cert.c %reldir%/obs/client_cert.h \
	%reldir%/obs/lq_metrics.c %reldir%/obs/lq_metrics.h
sched_obs_libordo_obs_la_CPPFLAGS = $(ORDO_DEFS) $(INC_CORE) $(INC_ABI) \
	$(INC_CACHE) $(INC_HOST) $(INC_LINE) $(INC_OBS)
sched_obs_libordo_obs_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(MHD_CFLAGS)
# --listen-client-ca verifies client certificates with GnuTLS (the
# library under libmicrohttpd's TLS); without it the flag is refused.
if HAVE_GNUTLS
sched_obs_libordo_obs_la_CPPFLAGS += -DORDO_HAVE_GNUTLS
sched_obs_libordo_obs_la_CFLAGS += $(GNUTLS_CFLAGS)
sched_obs_libordo_obs_la_LIBADD = $(GNUTLS_LIBS)
endif

# Every source of the libraries above (the fuzz build compiles them with
# clang apart).
ORDO_SCHED_SRCS = $(sched_host_libordo_host_la_SOURCES) \
	$(sched_cache_libordo_cache_la_SOURCES) \
	$(sched_cycle_libordo_cycle_la_SOURCES) $(sched_libordo_line_la_SOURCES) \
	$(sched_backend_sim_libordo_sim_la_SOURCES) \
	$(sched_backend_kube_libordo_kube_backend_la_SOURCES) \
	$(sched_obs_libordo_obs_la_SOURCES)

noinst_LTLIBRARIES += sched/libordo-sched.la
sched_libordo_sched_la_SOURCES =
sched_libordo_sched_la_LIBADD = sched/backend/sim/libordo-sim.la \
	sched/backend/kube/libordo-kube-backend.la sched/obs/libordo-obs.la \
	sched/libordo-line.la \
	sched/cycle/libordo-cycle.la sched/cache/libordo-cache.la \
	sched/host/libordo-host.la core/kube/libordo-kube.la \
	core/libordo-core.la $(JSONC_LIBS) $(YAML_LIBS) $(CURL_LIBS) $(CRYPTO_LIBS) \
	$(MHD_LIBS) $(GNUTLS_LIBS)

bin_PROGRAMS += sched/ordo-scheduler
sched_ordo_scheduler_SOURCES = %reldir%/main.c
sched_ordo_scheduler_CPPFLAGS = $(ORDO_DEFS) $(INC_CORE) $(INC_ABI) $(INC_CACHE) \
	$(INC_KUBE) -I$(top_srcdir)/sched/backend/kube \
	$(INC_HOST) $(INC_CYCLE) $(INC_LINE) -I$(top_srcdir)/sched/backend/sim \
	$(INC_OBS)
sched_ordo_scheduler_LDADD = sched/libordo-sched.la $(LIBS)
