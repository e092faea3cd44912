# plugins/local.mk - the built-in policies, each an ordinary plugin .so
# installed into $(pkglibdir)/plugins, named as the plugin is (strict-fifo
# in strict_fifo.so). Plugins see only core/include.
PLUGIN_CPPFLAGS = -I$(top_srcdir)/core/include
PLUGIN_LINK_FLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -export-symbols-regex '^ordo_plugin$$'

plugin_LTLIBRARIES += plugins/strict_fifo.la
plugins_strict_fifo_la_SOURCES = %reldir%/queue/strict_fifo.c %reldir%/queue/fifo_order.h
plugins_strict_fifo_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_strict_fifo_la_LDFLAGS = $(PLUGIN_LINK_FLAGS)

plugin_LTLIBRARIES += plugins/best_effort_fifo.la
plugins_best_effort_fifo_la_SOURCES = %reldir%/queue/best_effort_fifo.c %reldir%/queue/fifo_order.h
plugins_best_effort_fifo_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_best_effort_fifo_la_LDFLAGS = $(PLUGIN_LINK_FLAGS)

plugin_LTLIBRARIES += plugins/resource_fit.la
plugins_resource_fit_la_SOURCES = %reldir%/place/resource_fit.c
plugins_resource_fit_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_resource_fit_la_LDFLAGS = $(PLUGIN_LINK_FLAGS)

plugin_LTLIBRARIES += plugins/kueue_preempt.la
plugins_kueue_preempt_la_SOURCES = %reldir%/preempt/kueue_preempt.c
plugins_kueue_preempt_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_kueue_preempt_la_LDFLAGS = $(PLUGIN_LINK_FLAGS)

plugin_LTLIBRARIES += plugins/kueue_quota.la
plugins_kueue_quota_la_SOURCES = %reldir%/quota/kueue_quota.c
plugins_kueue_quota_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugins_kueue_quota_la_LDFLAGS = $(PLUGIN_LINK_FLAGS)

# Plugins are loaded by dlopen, never linked: their libtool archives are
# of no use once installed.
install-data-hook:
	rm -f $(DESTDIR)$(plugindir)/*.la
