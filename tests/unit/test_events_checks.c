/* test_events_checks.c - unit tests for the events-in interface
 * (sched/scheduler.h) on AdmissionChecks: a ClusterQueue that names one is
 * inactive, as in Kueue, with "references missing AdmissionCheck(s)" while
 * it does not exist and "references inactive AdmissionCheck(s)" once it
 * does (Ordo runs no admission check controller); the AdmissionCheck
 * added, updated and deleted moves the reason, and what was admitted
 * before the ClusterQueue named one runs on. */
#include "events_helpers.h"
#include "manifest_check.h"

#define AC(name)                                                               \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\n"          \
    "metadata: {name: " name "}\n"                                             \
    "spec: {controllerName: kueue.x-k8s.io/provisioning-request}\n"
#define CHECKS(names)                                                          \
    "  admissionChecksStrategy:\n    admissionChecks: [" names "]\n"

static const struct cq *cq_of(struct fx *f, const char *name)
{
    const struct cq *q = cluster_get_cq(fx_c(f), name);
    assert_non_null(q);
    return q;
}

static void test_admission_check_added_deleted(void **state)
{
    struct fx *f = *state;
    fx_add(f, FX_RF("default", "pool: a")
                  FX_CQ("cq", CHECKS("{name: prov}"), "default", "4")
                      FX_LQ("ns", "lq", "cq") FX_NODE("n1", "8", "")
                          FX_POD("ns", "x", "lq", "1"));
    fx_run(f);
    /* Kueue: the ClusterQueue references a missing AdmissionCheck. */
    assert_false(cq_of(f, "cq")->active);
    assert_string_equal(cq_of(f, "cq")->inactive_reason,
                        "references missing AdmissionCheck(s): prov");
    assert_string_equal(fx_state(f, "ns/x"), "pending");
    assert_contains(fx_wl(f, "ns/x")->reason,
                    "ClusterQueue cq is inactive: references missing "
                    "AdmissionCheck(s): prov");
    /* Created: it exists but no controller makes it Active. */
    fx_add(f, AC("prov"));
    fx_run(f);
    assert_false(cq_of(f, "cq")->active);
    assert_contains(cq_of(f, "cq")->inactive_reason,
                    "references inactive AdmissionCheck(s): prov (Ordo runs "
                    "no admission check controller)");
    assert_string_equal(fx_state(f, "ns/x"), "pending");
    assert_contains(fx_wl(f, "ns/x")->reason,
                    "references inactive AdmissionCheck(s): prov");
    assert_int_equal(f->n_binds, 0);
    /* Updated: nothing changes. */
    fx_update(f, AC("prov"));
    fx_run(f);
    assert_contains(fx_wl(f, "ns/x")->reason,
                    "references inactive AdmissionCheck(s): prov");
    /* Deleted: missing again. */
    fx_delete(f, OBJ_ADMISSION_CHECK, "prov");
    fx_run(f);
    assert_null(cluster_get_object(fx_c(f), OBJ_ADMISSION_CHECK, "prov"));
    assert_contains(fx_wl(f, "ns/x")->reason,
                    "references missing AdmissionCheck(s): prov");
    /* A delete of one not there changes nothing. */
    fx_delete(f, OBJ_ADMISSION_CHECK, "prov");
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/x"), "pending");
    /* The ClusterQueue names none any more: active, x admitted. */
    fx_update(f, FX_CQ("cq", "", "default", "4"));
    fx_run(f);
    assert_true(cq_of(f, "cq")->active);
    assert_string_equal(fx_state(f, "ns/x"), "admitted");
}

static void test_missing_and_inactive(void **state)
{
    struct fx *f = *state;
    /* Both kinds at once, each list sorted as Kueue writes them. */
    fx_add(f, FX_RF("default", "pool: a") AC("prov") AC("alpha")
                  FX_CQ("cq",
                        CHECKS("{name: zeta}, {name: prov}, {name: beta}, "
                               "{name: alpha}"),
                        "default", "4"));
    fx_run(f);
    assert_string_equal(cq_of(f, "cq")->inactive_reason,
                        "references missing AdmissionCheck(s): beta,zeta, "
                        "references inactive AdmissionCheck(s): alpha,prov "
                        "(Ordo runs no admission check controller)");
    /* A missing flavor is said first (Kueue lists it before them). */
    fx_update(f, FX_CQ("cq", CHECKS("{name: prov}"), "spot", "4"));
    fx_run(f);
    assert_string_equal(cq_of(f, "cq")->inactive_reason,
                        "ResourceFlavor spot not found");
}

static void test_admitted_runs_on(void **state)
{
    struct fx *f = *state;
    fx_add(f,
           FX_QUEUES("4") FX_NODE("n1", "8", "") FX_POD("ns", "x", "lq", "2"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/x"), "admitted");
    /* The ClusterQueue now names an AdmissionCheck: inactive, nothing new
     * is admitted, but x keeps its quota and node (Kueue evicts
     * nothing). */
    fx_update(f, FX_CQ("cq", CHECKS("{name: prov}"), "default", "4"));
    fx_add(f, FX_POD("ns", "y", "lq", "1"));
    fx_run(f);
    assert_string_equal(fx_state(f, "ns/x"), "admitted");
    assert_int_equal(fx_usage(f, "cq", "default", "cpu"), 2000);
    assert_int_equal(f->n_evicts, 0);
    assert_string_equal(fx_state(f, "ns/y"), "pending");
    assert_contains(fx_wl(f, "ns/y")->reason,
                    "references missing AdmissionCheck(s): prov");
}

/* The checks across objects (core/) spell the cache's rules by hand. */
static void test_names_agree(void **state)
{
    assert_string_equal(MANIFEST_CHECK_SCHEDULER, ORDO_SCHEDULER_NAME);
    assert_string_equal(MANIFEST_CHECK_LABEL_QUEUE, LABEL_QUEUE_NAME);
    assert_string_equal(MANIFEST_CHECK_LABEL_WPC, LABEL_PRIORITY_CLASS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_admission_check_added_deleted,
                                        fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_missing_and_inactive, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_admitted_runs_on, fx_setup,
                                        fx_teardown),
        cmocka_unit_test(test_names_agree),
    };
    return cmocka_run_group_tests_name("events_checks", tests, NULL, NULL);
}
