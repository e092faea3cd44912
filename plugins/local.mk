# plugins/local.mk - the built-in policies, each an ordinary plugin .so
# installed into $(pkglibdir)/plugins. Plugins see only core/include.
PLUGIN_CPPFLAGS = -I$(top_srcdir)/core/include
PLUGIN_LINK_FLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -export-symbols-regex '^ordo_plugin$$'

plugin_LTLIBRARIES += plugins/queue_strict_fifo.la
plugins_queue_strict_fifo_la_SOURCES = %reldir%/queue/strict_fifo.c %reldir%/queue/fifo_order.h
plugins_queue_strict_fifo_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_queue_strict_fifo_la_LDFLAGS = $(PLUGIN_LINK_FLAGS)

plugin_LTLIBRARIES += plugins/queue_best_effort_fifo.la
plugins_queue_best_effort_fifo_la_SOURCES = %reldir%/queue/best_effort_fifo.c %reldir%/queue/fifo_order.h
plugins_queue_best_effort_fifo_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_queue_best_effort_fifo_la_LDFLAGS = $(PLUGIN_LINK_FLAGS)

plugin_LTLIBRARIES += plugins/place_resource_fit.la
plugins_place_resource_fit_la_SOURCES = %reldir%/place/resource_fit.c
plugins_place_resource_fit_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_place_resource_fit_la_LDFLAGS = $(PLUGIN_LINK_FLAGS)

plugin_LTLIBRARIES += plugins/preempt_kueue_preempt.la
plugins_preempt_kueue_preempt_la_SOURCES = %reldir%/preempt/kueue_preempt.c
plugins_preempt_kueue_preempt_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_preempt_kueue_preempt_la_LDFLAGS = $(PLUGIN_LINK_FLAGS)

plugin_LTLIBRARIES += plugins/quota_kueue_quota.la
plugins_quota_kueue_quota_la_SOURCES = %reldir%/quota/kueue_quota.c
plugins_quota_kueue_quota_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_quota_kueue_quota_la_LDFLAGS = $(PLUGIN_LINK_FLAGS)

# Plugins are loaded by dlopen, never linked: their libtool archives are
# of no use once installed.
install-data-hook:
	rm -f $(DESTDIR)$(plugindir)/*.la
