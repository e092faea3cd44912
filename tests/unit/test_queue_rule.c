/* test_queue_rule.c - unit tests for core/queue_rule.c: the queue label up
 * the owner chain, manageJobsWithoutQueueName, the namespace selector (the
 * default and a configured one, namespaces known and not) and the
 * schedulerName. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "arena.h"
#include "queue_rule.h"
#include "strmap.h"

#define Q QUEUE_RULE_LABEL_QUEUE

static struct strmap map1(struct strmap_entry *e)
{
    return (struct strmap){.n = 1, .items = e};
}

static enum queue_rule_verdict decide(const struct queue_rule *r,
                                      const struct queue_rule_subject *s)
{
    struct queue_rule_result res;
    queue_rule_decide(r, s, &res);
    return res.verdict;
}

static void test_queue_on_pod(void **state)
{
    (void)state;
    struct strmap_entry e = {Q, "team-a"};
    struct strmap l = map1(&e);
    struct queue_rule_subject s = {.namespace_ = "default", .labels = {&l}};
    struct queue_rule_result res;
    queue_rule_decide(NULL, &s, &res);
    assert_int_equal(res.verdict, QUEUE_RULE_MANAGED);
    assert_string_equal(res.queue, "team-a");
    assert_int_equal(res.queue_from, 0);
    assert_false(res.already);
    s.scheduler_name = "default-scheduler";
    assert_int_equal(decide(NULL, &s), QUEUE_RULE_MANAGED);
    s.scheduler_name = "ordo-scheduler";
    queue_rule_decide(NULL, &s, &res);
    assert_int_equal(res.verdict, QUEUE_RULE_MANAGED);
    assert_true(res.already);
}

static void test_queue_on_owner(void **state)
{
    (void)state;
    struct strmap none = {0};
    struct strmap_entry ej = {Q, "from-job"}, es = {Q, "from-set"};
    struct strmap job = map1(&ej), set = map1(&es);
    struct queue_rule_subject s = {.namespace_ = "ml",
                                   .labels = {&none, &none, &set}};
    struct queue_rule_result res;
    queue_rule_decide(NULL, &s, &res);
    assert_int_equal(res.verdict, QUEUE_RULE_MANAGED);
    assert_string_equal(res.queue, "from-set");
    assert_int_equal(res.queue_from, 2);
    /* The nearest owner wins. */
    s.labels[1] = &job;
    queue_rule_decide(NULL, &s, &res);
    assert_string_equal(res.queue, "from-job");
    assert_int_equal(res.queue_from, 1);
    /* An owner not known stops the chain: the JobSet is not looked at. */
    s.labels[1] = NULL;
    assert_int_equal(decide(NULL, &s), QUEUE_RULE_NO_QUEUE);
}

static void test_without_queue_name(void **state)
{
    (void)state;
    struct strmap none = {0};
    struct queue_rule_subject s = {.namespace_ = "default", .labels = {&none}};
    assert_int_equal(decide(NULL, &s), QUEUE_RULE_NO_QUEUE);
    struct queue_rule r = {.manage_jobs_without_queue_name = true};
    struct queue_rule_result res;
    queue_rule_decide(&r, &s, &res);
    assert_int_equal(res.verdict, QUEUE_RULE_MANAGED);
    assert_null(res.queue);
    assert_int_equal(res.queue_from, -1);
    /* Still not in kube-system, as Kueue's default selector says. */
    s.namespace_ = "kube-system";
    assert_int_equal(decide(&r, &s), QUEUE_RULE_NAMESPACE);
}

/* Kueue's LocalQueueDefaulting: the namespace's LocalQueue "default". */
static void test_default_queue(void **state)
{
    (void)state;
    struct strmap none = {0};
    struct queue_rule_subject s = {
        .namespace_ = "ml", .labels = {&none}, .default_queue = true};
    struct queue_rule_result res;
    queue_rule_decide(NULL, &s, &res);
    assert_int_equal(res.verdict, QUEUE_RULE_MANAGED);
    assert_string_equal(res.queue, "default");
    assert_int_equal(res.queue_from, -1);
    /* A label wins over it. */
    struct strmap_entry e = {Q, "team"};
    struct strmap l = map1(&e);
    s.labels[0] = &l;
    queue_rule_decide(NULL, &s, &res);
    assert_string_equal(res.queue, "team");
    /* Not in a namespace the selector leaves out. */
    s.labels[0] = &none;
    s.namespace_ = "kube-system";
    assert_int_equal(decide(NULL, &s), QUEUE_RULE_NAMESPACE);
}

static void test_default_namespaces(void **state)
{
    (void)state;
    struct strmap_entry e = {Q, "q"};
    struct strmap l = map1(&e);
    struct queue_rule_subject s = {.namespace_ = "kube-system", .labels = {&l}};
    assert_int_equal(decide(NULL, &s), QUEUE_RULE_NAMESPACE);
    s.namespace_ = QUEUE_RULE_DEFAULT_NS;
    assert_int_equal(decide(NULL, &s), QUEUE_RULE_NAMESPACE);
    struct queue_rule r = {.namespace_ = "sched"};
    assert_int_equal(decide(&r, &s), QUEUE_RULE_MANAGED);
    s.namespace_ = "sched";
    assert_int_equal(decide(&r, &s), QUEUE_RULE_NAMESPACE);
}

static void test_selector(void **state)
{
    (void)state;
    struct strmap_entry me = {"ordo.dev/managed", "true"};
    struct label_selector sel = {.match_labels = map1(&me)};
    struct queue_rule r = {.namespace_selector = &sel};
    struct strmap_entry e = {Q, "q"};
    struct strmap l = map1(&e);
    struct strmap_entry ns_e[] = {{"kubernetes.io/metadata.name", "ml"},
                                  {"ordo.dev/managed", "true"}};
    struct strmap ns = {.n = 2, .items = ns_e};
    struct queue_rule_subject s = {
        .namespace_ = "ml", .ns_labels = &ns, .labels = {&l}};
    assert_int_equal(decide(&r, &s), QUEUE_RULE_MANAGED);
    ns.n = 1;
    assert_int_equal(decide(&r, &s), QUEUE_RULE_NAMESPACE);
    /* A namespace not known: only its name label. */
    s.ns_labels = NULL;
    assert_int_equal(decide(&r, &s), QUEUE_RULE_NAMESPACE);
    struct selector_requirement req = {.key = "kubernetes.io/metadata.name",
                                       .op = SELECTOR_OP_IN,
                                       .n_values = 1,
                                       .values = (const char *[]){"ml"}};
    struct label_selector by_name = {.n_exprs = 1, .exprs = &req};
    r.namespace_selector = &by_name;
    assert_int_equal(decide(&r, &s), QUEUE_RULE_MANAGED);
    /* A configured selector replaces the default: kube-system too. */
    struct label_selector all = {0};
    r.namespace_selector = &all;
    s.namespace_ = "kube-system";
    assert_int_equal(decide(&r, &s), QUEUE_RULE_MANAGED);
}

static void test_other_scheduler(void **state)
{
    (void)state;
    struct strmap_entry e = {Q, "q"};
    struct strmap l = map1(&e);
    struct queue_rule_subject s = {
        .namespace_ = "default", .labels = {&l}, .scheduler_name = "volcano"};
    struct queue_rule_result res;
    queue_rule_decide(NULL, &s, &res);
    assert_int_equal(res.verdict, QUEUE_RULE_OTHER_SCHEDULER);
    assert_string_equal(res.queue, "q");
    assert_false(res.already);
    assert_non_null(strstr(queue_rule_why(res.verdict), "another scheduler"));
    s.scheduler_name = "";
    assert_int_equal(decide(NULL, &s), QUEUE_RULE_MANAGED);
}

/* From typed objects: a Job's template decides; owners fill the chain. */
static void test_subject_of(void **state)
{
    (void)state;
    struct arena *a = arena_new();
    assert_non_null(a);
    struct object job = {.kind = OBJ_JOB};
    job.meta.name = "j";
    job.meta.namespace_ = "ml";
    assert_int_equal(strmap_set(&job.meta.labels, a, Q, "team"), 0);
    job.u.job.spec.template.spec.scheduler_name = "default-scheduler";
    struct object pod = {.kind = OBJ_POD};
    pod.meta.name = "j-x";
    pod.meta.namespace_ = "ml";
    pod.u.pod.spec.scheduler_name = "default-scheduler";
    struct object ns = {.kind = OBJ_NAMESPACE};
    ns.meta.name = "ml";
    struct queue_rule_subject s;
    queue_rule_subject_of(&pod, &ns, &job, NULL, &s);
    assert_string_equal(s.namespace_, "ml");
    assert_ptr_equal(s.ns_labels, &ns.meta.labels);
    assert_ptr_equal(s.labels[1], &job.meta.labels);
    assert_null(s.labels[2]);
    assert_int_equal(decide(NULL, &s), QUEUE_RULE_MANAGED);
    queue_rule_subject_of(&job, NULL, NULL, NULL, &s);
    assert_ptr_equal(s.scheduler_name,
                     job.u.job.spec.template.spec.scheduler_name);
    assert_int_equal(decide(NULL, &s), QUEUE_RULE_MANAGED);
    struct object node = {.kind = OBJ_NODE};
    assert_null(queue_rule_spec(&node));
    arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue_on_pod),
        cmocka_unit_test(test_queue_on_owner),
        cmocka_unit_test(test_without_queue_name),
        cmocka_unit_test(test_default_queue),
        cmocka_unit_test(test_default_namespaces),
        cmocka_unit_test(test_selector),
        cmocka_unit_test(test_other_scheduler),
        cmocka_unit_test(test_subject_of),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
