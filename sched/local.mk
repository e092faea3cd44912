# sched/local.mk - the ordo-scheduler daemon: command line, plugin loading,
# and (as they land) workloads, queues, the cycle and the backends.
# Everything but main.c is a convenience library, so that tests and
# benchmarks drive the same code.
noinst_LTLIBRARIES += sched/libordo-sched.la
sched_libordo_sched_la_SOURCES = \
	%reldir%/plugin_loader.c %reldir%/plugin_loader.h \
	%reldir%/sched_config.c %reldir%/sched_config.h \
	%reldir%/plugins.c %reldir%/plugins.h \
	%reldir%/watchdog.c %reldir%/watchdog.h \
	%reldir%/host.c \
	%reldir%/cluster.c %reldir%/cluster.h \
	%reldir%/quota_tree.c %reldir%/quota_tree.h \
	%reldir%/workload.c %reldir%/workload.h \
	%reldir%/queue.c %reldir%/queue.h \
	%reldir%/cycle.c %reldir%/cycle.h %reldir%/scheduler.h \
	%reldir%/place.c %reldir%/place.h \
	%reldir%/preempt.c %reldir%/preempt.h %reldir%/preempt_check.c \
	%reldir%/sim.c %reldir%/sim.h %reldir%/sim_int.h \
	%reldir%/sim_jobs.c %reldir%/sim_check.c \
	%reldir%/kube_evict.c %reldir%/kube_evict.h \
	%reldir%/sim_report.c %reldir%/sim_plot.c
sched_libordo_sched_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(YAML_CFLAGS) $(CURL_CFLAGS)
sched_libordo_sched_la_LIBADD = core/libordo-core.la $(JSONC_LIBS)

bin_PROGRAMS += sched/ordo-scheduler
sched_ordo_scheduler_SOURCES = %reldir%/main.c
sched_ordo_scheduler_LDADD = sched/libordo-sched.la $(LIBS)
