# core/local.mk - libordo-core: quantities, resources, selectors, document
# decoding, typed objects, logging. Everything else links against it.
noinst_LTLIBRARIES += core/libordo-core.la
core_libordo_core_la_SOURCES = \
	%reldir%/arena.c %reldir%/arena.h \
	%reldir%/err.c %reldir%/err.h \
	%reldir%/diag.c %reldir%/diag.h \
	%reldir%/suggest.c %reldir%/suggest.h \
	%reldir%/grow.c %reldir%/grow.h \
	%reldir%/strmap.c %reldir%/strmap.h \
	%reldir%/log.c %reldir%/log.h \
	%reldir%/resid.c %reldir%/resid.h \
	%reldir%/duration.c %reldir%/duration.h \
	%reldir%/satmath.h \
	%reldir%/quantity.c %reldir%/quantity.h \
	%reldir%/resources.c %reldir%/resources.h \
	%reldir%/kname.c %reldir%/kname.h \
	%reldir%/labels.c %reldir%/labels.h \
	%reldir%/doc.c %reldir%/doc.h %reldir%/doc_build.h \
	%reldir%/doc_yaml.c %reldir%/doc_json.c %reldir%/doc_load.c \
	%reldir%/objects.c %reldir%/objects.h \
	%reldir%/decode_field.c %reldir%/decode_field.h \
	%reldir%/decode_time.c \
	%reldir%/decode_names.c \
	%reldir%/decode_meta.c %reldir%/decode_kinds.h \
	%reldir%/decode_pod.c \
	%reldir%/decode_job.c \
	%reldir%/decode_kueue.c \
	%reldir%/decode_admission.c \
	%reldir%/decode.c %reldir%/decode.h \
	%reldir%/manifest.c %reldir%/manifest.h \
	%reldir%/manifest_check.c %reldir%/manifest_check.h \
	%reldir%/queue_rule.c %reldir%/queue_rule.h \
	%reldir%/metrics.c %reldir%/metrics.h
core_libordo_core_la_CPPFLAGS = $(ORDO_DEFS) -I$(top_srcdir)/core
core_libordo_core_la_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS) $(JSONC_CFLAGS)
core_libordo_core_la_LIBADD = $(YAML_LIBS) $(JSONC_LIBS)

# core/kube: the Kubernetes API client (HTTP over libcurl, JSON), its own
# library, shared by the scheduler's Kubernetes backend and the node agent.
noinst_LTLIBRARIES += core/kube/libordo-kube.la
core_kube_libordo_kube_la_SOURCES = %reldir%/kube/kclient.c %reldir%/kube/kclient.h \
	%reldir%/kube/krequest.c %reldir%/kube/krequest.h \
	%reldir%/kube/kinformer.c %reldir%/kube/kinformer.h \
	%reldir%/kube/klease.c %reldir%/kube/klease.h
core_kube_libordo_kube_la_SOURCES += %reldir%/kube/kclient_tls.c %reldir%/kube/kclient_tls.h \
	%reldir%/kube/kubeconfig.c %reldir%/kube/kubeconfig.h %reldir%/kube/kubeconfig_int.h \
	%reldir%/kube/kubeconfig_fields.c %reldir%/kube/kubeconfig_cred.c
core_kube_libordo_kube_la_CPPFLAGS = $(ORDO_DEFS) -I$(top_srcdir)/core -I$(top_srcdir)/core/kube
core_kube_libordo_kube_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(CURL_CFLAGS)
core_kube_libordo_kube_la_LIBADD = $(JSONC_LIBS) $(CURL_LIBS)

# The public plugin header and its pkg-config file.
ordoincludedir = $(includedir)/ordo
ordoinclude_HEADERS = %reldir%/include/ordo/plugin.h
pkgconfig_DATA += %reldir%/ordo-plugin.pc
EXTRA_DIST += %reldir%/ordo-plugin.pc.in
