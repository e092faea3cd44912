/* host_meta.h - the ABI 1.4 slots of the host table (host_meta.c), for
 * host_table.c to put in the table. Each host_<slot> is the ordo_host slot
 * of that name; ordo/plugin.h says what it answers and who owns what. */
#ifndef ORDO_HOST_META_H
#define ORDO_HOST_META_H

#include <ordo/plugin.h>

int host_config_quantity(const struct ordo_plugin *p, const char *key,
                         int64_t def, int64_t *ret_milli);
int host_config_duration(const struct ordo_plugin *p, const char *key,
                         int64_t def, int64_t *ret_ns);
int host_config_bool(const struct ordo_plugin *p, const char *key, bool def,
                     bool *ret);
int host_config_list(const struct ordo_plugin *p, const char *key,
                     const char **ret, uint32_t cap, uint32_t *ret_n);
int64_t host_now(const struct ordo_plugin *p);

const char *host_wl_namespace(const struct ordo_workload *wl);
const char *host_wl_object_name(const struct ordo_workload *wl);
const char *host_wl_kind(const struct ordo_workload *wl);
const char *host_wl_label(const struct ordo_workload *wl, const char *key);
uint32_t host_wl_n_labels(const struct ordo_workload *wl);
void host_wl_label_at(const struct ordo_workload *wl, uint32_t i,
                      const char **ret_key, const char **ret_value);
const char *host_wl_annotation(const struct ordo_workload *wl, const char *key);
uint32_t host_wl_n_annotations(const struct ordo_workload *wl);
void host_wl_annotation_at(const struct ordo_workload *wl, uint32_t i,
                           const char **ret_key, const char **ret_value);
int64_t host_wl_creation_time(const struct ordo_workload *wl);
bool host_wl_owner(const struct ordo_workload *wl, const char **ret_kind,
                   const char **ret_name);

const char *host_ps_label(const struct ordo_workload *wl, uint32_t ps,
                          const char *key);
uint32_t host_ps_n_labels(const struct ordo_workload *wl, uint32_t ps);
void host_ps_label_at(const struct ordo_workload *wl, uint32_t ps, uint32_t i,
                      const char **ret_key, const char **ret_value);
const char *host_ps_annotation(const struct ordo_workload *wl, uint32_t ps,
                               const char *key);
uint32_t host_ps_n_annotations(const struct ordo_workload *wl, uint32_t ps);
void host_ps_annotation_at(const struct ordo_workload *wl, uint32_t ps,
                           uint32_t i, const char **ret_key,
                           const char **ret_value);

#endif
