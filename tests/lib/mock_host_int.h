/* mock_host_int.h - what the two files of the mock host share: the ABI 1.4
 * functions of mock_host_meta.c, which mock_host.c puts in the table. Not
 * installed. */
#ifndef ORDO_MOCK_HOST_INT_H
#define ORDO_MOCK_HOST_INT_H

#include "ordo/plugin-test.h"

int mock_config_quantity(const struct ordo_plugin *p, const char *key,
                         int64_t def, int64_t *ret_milli);
int mock_config_duration(const struct ordo_plugin *p, const char *key,
                         int64_t def, int64_t *ret_ns);
int mock_config_bool(const struct ordo_plugin *p, const char *key, bool def,
                     bool *ret);
int mock_config_list(const struct ordo_plugin *p, const char *key,
                     const char **ret, uint32_t cap, uint32_t *ret_n);
int64_t mock_now(const struct ordo_plugin *p);
const char *mock_wl_namespace(const struct ordo_workload *wl);
const char *mock_wl_object_name(const struct ordo_workload *wl);
const char *mock_wl_kind(const struct ordo_workload *wl);
const char *mock_wl_label(const struct ordo_workload *wl, const char *key);
uint32_t mock_wl_n_labels(const struct ordo_workload *wl);
void mock_wl_label_at(const struct ordo_workload *wl, uint32_t i,
                      const char **ret_key, const char **ret_value);
const char *mock_wl_annotation(const struct ordo_workload *wl, const char *key);
uint32_t mock_wl_n_annotations(const struct ordo_workload *wl);
void mock_wl_annotation_at(const struct ordo_workload *wl, uint32_t i,
                           const char **ret_key, const char **ret_value);
int64_t mock_wl_creation_time(const struct ordo_workload *wl);
bool mock_wl_owner(const struct ordo_workload *wl, const char **ret_kind,
                   const char **ret_name);
const char *mock_ps_label(const struct ordo_workload *wl, uint32_t ps,
                          const char *key);
uint32_t mock_ps_n_labels(const struct ordo_workload *wl, uint32_t ps);
void mock_ps_label_at(const struct ordo_workload *wl, uint32_t ps, uint32_t i,
                      const char **ret_key, const char **ret_value);
const char *mock_ps_annotation(const struct ordo_workload *wl, uint32_t ps,
                               const char *key);
uint32_t mock_ps_n_annotations(const struct ordo_workload *wl, uint32_t ps);
void mock_ps_annotation_at(const struct ordo_workload *wl, uint32_t ps,
                           uint32_t i, const char **ret_key,
                           const char **ret_value);

#endif
