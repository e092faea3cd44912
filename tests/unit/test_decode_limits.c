/* test_decode_limits.c - input that Kubernetes (or Kueue) would reject is
 * rejected by the decoders, with the field named: negative quantities,
 * out-of-range integers, invalid names and labels; and what is not an error
 * but must not fail open (a Node's Ready condition). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "decode_helpers.h"

#define POD_HEAD                                                               \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\n"          \
    "spec:\n"

/* ---- negative quantities ------------------------------------------------ */

static void test_negative_pod_quantities(void **state)
{
    must_fail(POD_HEAD "  containers:\n"
                       "  - name: c\n"
                       "    resources:\n"
                       "      requests:\n"
                       "        cpu: \"-100\"\n",
              "t.yaml:9: Pod ns/p: spec.containers[0].resources.requests.cpu: "
              "must be non-negative, got \"-100\"");
    must_fail(POD_HEAD "  containers:\n"
                       "  - name: a\n"
                       "  - name: b\n"
                       "    resources: {limits: {memory: -1Gi}}\n",
              "spec.containers[1].resources.limits.memory: must be "
              "non-negative, got \"-1Gi\"");
    must_fail(POD_HEAD "  initContainers:\n"
                       "  - {name: i, resources: {requests: {cpu: -1m}}}\n"
                       "  containers: [{name: c}]\n",
              "spec.initContainers[0].resources.requests.cpu: must be "
              "non-negative, got \"-1m\"");
    /* Below a milli-unit it still counts: -0.1m rounds to -1m. */
    must_fail(POD_HEAD "  containers: [{name: c}]\n"
                       "  overhead: {cpu: -0.0001}\n",
              "t.yaml:6: Pod ns/p: spec.overhead.cpu: must be non-negative, "
              "got \"-0.0001\"");
    must_fail(POD_HEAD "  containers: [{name: c}]\n"
                       "  resources: {requests: {memory: -5}}\n",
              "spec.resources.requests.memory: must be non-negative");
    must_fail(POD_HEAD "  containers: [{name: c}]\n"
                       "  resources: {limits: {cpu: -2}}\n",
              "spec.resources.limits.cpu: must be non-negative, got \"-2\"");

    /* Zero, also written with a sign, is fine. */
    struct object *o = must_decode(POD_HEAD "  containers:\n"
                                            "  - name: c\n"
                                            "    resources: {requests: "
                                            "{cpu: '-0', memory: 0}}\n");
    assert_int_equal(resource_list_get(&o->u.pod.spec.requests, "cpu"), 0);
    object_free(o);
}

static void test_negative_template_quantities(void **state)
{
    must_fail("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n"
              "spec:\n  template:\n    spec:\n      containers:\n"
              "      - {name: c, resources: {requests: {nvidia.com/gpu: "
              "-8}}}\n",
              "t.yaml:8: Job default/j: spec.template.spec.containers[0]."
              "resources.requests.nvidia.com/gpu: must be non-negative, got "
              "\"-8\"");
    must_fail("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"
              "metadata: {name: js, namespace: ml}\n"
              "spec:\n  replicatedJobs:\n"
              "  - name: w\n    template:\n      spec:\n"
              "        template: {spec: {containers: [{name: w, resources: "
              "{limits: {cpu: '-1'}}}]}}\n",
              "JobSet ml/js: spec.replicatedJobs[0].template.spec.template."
              "spec.containers[0].resources.limits.cpu: must be "
              "non-negative, got \"-1\"");
}

static void test_negative_node_quantities(void **state)
{
    must_fail("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
              "status:\n  capacity: {cpu: '4', memory: -16Gi}\n",
              "t.yaml:5: Node n1: status.capacity.memory: must be "
              "non-negative, got \"-16Gi\"");
    must_fail("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
              "status:\n  capacity: {cpu: '4'}\n"
              "  allocatable:\n    cpu: -500m\n",
              "t.yaml:7: Node n1: status.allocatable.cpu: must be "
              "non-negative, got \"-500m\"");
}

#define CQ_QUOTA(fields)                                                       \
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"                 \
    "metadata: {name: cq}\nspec:\n  cohortName: all\n  resourceGroups:\n"      \
    "  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"               \
    "      resources:\n      - {name: cpu, " fields "}\n"

/* Kueue's CRD: nominalQuota, borrowingLimit and lendingLimit are >= 0. */
static void test_negative_kueue_quota(void **state)
{
    const char *pfx = "spec.resourceGroups[0].flavors[0].resources[0].";
    char want[256];
    snprintf(want, sizeof(want), "%snominalQuota: must be >= 0", pfx);
    must_fail(CQ_QUOTA("nominalQuota: -1"), want);
    snprintf(want, sizeof(want), "%sborrowingLimit: must be >= 0", pfx);
    must_fail(CQ_QUOTA("nominalQuota: 1, borrowingLimit: -1m"), want);
    snprintf(want, sizeof(want), "%slendingLimit: must be >= 0", pfx);
    must_fail(CQ_QUOTA("nominalQuota: 1, lendingLimit: '-1'"), want);
    must_fail("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\n"
              "metadata: {name: c}\nspec:\n  parentName: root\n"
              "  resourceGroups:\n  - coveredResources: [cpu]\n"
              "    flavors: [{name: f, resources: [{name: cpu, nominalQuota: "
              "1, lendingLimit: -3}]}]\n",
              "lendingLimit: must be >= 0");
    struct object *o = must_decode(
        CQ_QUOTA("nominalQuota: 0, borrowingLimit: 0, lendingLimit: 0"));
    object_free(o);
}

/* ---- a Node's Ready condition ------------------------------------------- */

static bool ready_of(const char *status)
{
    char yaml[1024];
    snprintf(yaml, sizeof(yaml),
             "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n%s", status);
    struct object *o = must_decode(yaml);
    bool ready = o->u.node.ready;
    object_free(o);
    return ready;
}

static void test_node_ready(void **state)
{
    /* no conditions at all: hand-written for the simulator, Ready */
    assert_true(ready_of(""));
    assert_true(ready_of("status: {capacity: {cpu: '1'}}\n"));
    assert_true(ready_of("status: {conditions: null}\n"));
    assert_true(ready_of("status:\n  conditions:\n"
                         "  - {type: MemoryPressure, status: 'False'}\n"
                         "  - {type: Ready, status: 'True'}\n"));
    /* anything but Ready=True is not Ready */
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: Unknown}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: 'False'}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: 'true'}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: ''}\n"));
    /* a list without a Ready condition */
    assert_false(ready_of("status: {conditions: []}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: DiskPressure, status: 'False'}\n"));
    /* the first Ready condition counts */
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: Unknown}\n"
                          "  - {type: Ready, status: 'True'}\n"));
}

/* Malformed conditions are not an error but not Ready either. */
static void test_node_ready_malformed(void **state)
{
    assert_false(ready_of("status: {conditions: {type: Ready, status: "
                          "'True'}}\n"));
    assert_false(ready_of("status: {conditions: Ready}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: 'True'}\n"
                          "  - [Ready, 'True']\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - Ready\n  - {type: Ready, status: 'True'}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: [True]}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: {name: Ready}, status: 'True'}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: null}\n"));
    assert_false(ready_of("status:\n  conditions:\n"
                          "  - {type: Ready, status: 'True'}\n"
                          "  - {status: 'True'}\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_negative_pod_quantities),
        cmocka_unit_test(test_negative_template_quantities),
        cmocka_unit_test(test_negative_node_quantities),
        cmocka_unit_test(test_negative_kueue_quota),
        cmocka_unit_test(test_node_ready),
        cmocka_unit_test(test_node_ready_malformed),
    };
    return cmocka_run_group_tests_name("decode_limits", tests, NULL, NULL);
}
