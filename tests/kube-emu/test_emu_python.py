#!/usr/bin/python3
"""test_emu_python.py - the official Kubernetes Python client (Debian's
python3-kubernetes) against ordo-kube-emu: list, create, watch from a
resourceVersion, patch, status, delete, binding (its ClusterQueue version
audited), eviction, 409, 410 and the Kueue kinds through CustomObjectsApi.
Prints "ok - ..." lines and the counts; exit 77 (skip) without the
client."""
import datetime
import os
import subprocess
import sys
import tempfile
import time

try:
    from kubernetes import client, config, watch
    from kubernetes.client.rest import ApiException
except ImportError:
    print("skipping: no python3-kubernetes (apt-get install python3-kubernetes)")
    print("0 passed, 0 failed")
    sys.exit(77)

BUILD = os.environ.get("ORDO_BUILDDIR", ".")
EMU = os.path.join(BUILD, "tests", "kube-emu", "ordo-kube-emu")
passed = failed = 0
generated = []  # names the server generated, looked for in the audit


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok - " + name)
    else:
        failed += 1
        print("not ok - %s %s" % (name, detail))


def start(tmp, *args):
    kc = os.path.join(tmp, "kubeconfig-%d" % len(os.listdir(tmp)))
    log = open(os.path.join(tmp, "emu.log"), "a")
    p = subprocess.Popen([EMU, "--listen", "127.0.0.1:0", "--kubeconfig-out", kc]
                         + list(args), stderr=log)
    # The kubeconfig appears once the server listens (bounded, not timed).
    for _ in range(200):
        if os.path.exists(kc) or p.poll() is not None:
            break
        time.sleep(0.05)
    if not os.path.exists(kc):
        raise SystemExit("ordo-kube-emu did not start")
    return p, config.new_client_from_config(config_file=kc)


def stop(p):
    p.terminate()
    check("the emulator exits 0 on SIGTERM", p.wait() == 0)


def pod(name, ns="default", labels=None, node=None):
    spec = client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox")])
    if node:
        spec.node_name = node
    return client.V1Pod(metadata=client.V1ObjectMeta(name=name, namespace=ns, labels=labels),
                        spec=spec)


def eventually(f, n=100):
    for _ in range(n):
        v = f()
        if v:
            return v
        time.sleep(0.1)
    return f()


def api_error(f):
    try:
        f()
    except ApiException as e:
        return e
    return None


def main(tmp):
    p, api = start(tmp, "--tls", "--kubelet", "--controllers", "job",
                   "--time-scale", "1000", "--audit", os.path.join(tmp, "audit"))
    try:
        core_tests(api)
        job_tests(api)
        kueue_tests(api)
    finally:
        stop(p)
    with open(os.path.join(tmp, "audit")) as f:
        audit = f.read()
    check("audit: the python client's bind is recorded",
          '"verb":"bind"' in audit and 'OpenAPI-Generator' in audit, audit[-400:])
    binds = [line for line in audit.splitlines()
             if '"verb":"bind"' in line and '"name":"a"' in line]
    check("audit: a bind names its ClusterQueue version (cqVersion), a refused one none",
          len(binds) == 2 and '"cqVersion":"77"' in binds[0] and '"code":201' in binds[0]
          and "cqVersion" not in binds[1], binds)
    want = '"verb":"create","resource":"pods","namespace":"py","name":"%s","resourceVersion"' % generated[0]
    check("audit: a generated name is the one recorded", want in audit, want)
    p, api = start(tmp, "--watch-window", "2")
    try:
        gone_tests(api)
    finally:
        stop(p)


def core_tests(api):
    v1 = client.CoreV1Api(api)
    ns = v1.list_namespace()
    check("list namespaces", "default" in [n.metadata.name for n in ns.items])
    anon = client.Configuration(host=api.configuration.host)
    anon.ssl_ca_cert = api.configuration.ssl_ca_cert
    e = api_error(lambda: client.CoreV1Api(client.ApiClient(anon)).list_namespace())
    check("no token: 401", e is not None and e.status == 401, str(e))
    v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="py")))
    v1.create_node(client.V1Node(metadata=client.V1ObjectMeta(name="n1"),
                                 status=client.V1NodeStatus(capacity={"cpu": "4"})))
    created = v1.create_namespaced_pod("py", pod("a", "py", {"app": "x"}))
    check("create: uid, resourceVersion, creationTimestamp",
          created.metadata.uid and created.metadata.resource_version
          and created.metadata.creation_timestamp)
    check("create: status.phase Pending", created.status.phase == "Pending")
    gen = v1.create_namespaced_pod("py", client.V1Pod(
        metadata=client.V1ObjectMeta(generate_name="gen-"),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="b")])))
    generated.append(gen.metadata.name)
    check("create with generateName", gen.metadata.name.startswith("gen-")
          and len(gen.metadata.name) > 4, gen.metadata.name)
    e = api_error(lambda: v1.create_namespaced_pod("py", pod("a", "py")))
    check("create twice: 409 AlreadyExists", e is not None and e.status == 409
          and "AlreadyExists" in e.body, str(e))
    lst = v1.list_namespaced_pod("py")
    rv = lst.metadata.resource_version
    check("list pods", sorted(x.metadata.name for x in lst.items) == sorted(["a", gen.metadata.name]))
    check("list with a label selector",
          [x.metadata.name for x in v1.list_namespaced_pod("py", label_selector="app in (x,y)").items] == ["a"])
    check("list with a field selector",
          [x.metadata.name for x in v1.list_pod_for_all_namespaces(field_selector="metadata.name=a").items] == ["a"])
    for i in range(5):
        v1.create_namespaced_config_map("py", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cm%d" % i)))
    names, cont, pages = [], None, 0
    while True:
        page = v1.list_namespaced_config_map("py", limit=2, _continue=cont)
        names += [x.metadata.name for x in page.items]
        pages += 1
        cont = page.metadata._continue
        if not cont:
            break
    check("pagination: limit/continue in 3 pages", pages == 3 and names == ["cm%d" % i for i in range(5)],
          "%d %s" % (pages, names))

    # A watch from the list's resourceVersion sees every later change.
    v1.patch_namespaced_pod("a", "py", {"metadata": {"labels": {"seen": "1"}}})
    v1.create_namespaced_pod("py", pod("b", "py"))
    v1.delete_namespaced_pod("b", "py")
    w = watch.Watch()
    events = []
    for ev in w.stream(v1.list_namespaced_pod, "py", resource_version=rv, timeout_seconds=5):
        events.append((ev["type"], ev["object"].metadata.name))
        if ev["type"] == "DELETED":
            w.stop()
    check("watch from a resourceVersion: MODIFIED, ADDED, DELETED in order",
          events == [("MODIFIED", "a"), ("ADDED", "b"), ("DELETED", "b")], str(events))

    # Patches: strategic (the default for dicts), merge, json.
    p = v1.patch_namespaced_pod("a", "py", {"spec": {"containers": [{"name": "c", "image": "busybox:2"}]}})
    check("strategic merge patch", p.spec.containers[0].image == "busybox:2" and len(p.spec.containers) == 1)
    p = v1.patch_namespaced_pod("a", "py", [{"op": "replace", "path": "/metadata/labels/app", "value": "z"}])
    check("json patch (a list body)", p.metadata.labels["app"] == "z", str(p.metadata.labels))
    n = v1.patch_node_status("n1", {"status": {"allocatable": {"cpu": "3"}}})
    check("node status patch", n.status.allocatable == {"cpu": "3"}, str(n.status.allocatable))
    n = v1.patch_node("n1", {"status": {"allocatable": {"cpu": "1"}}})
    check("status ignored on the main resource", n.status.allocatable == {"cpu": "3"})

    # A scheduler's PodScheduled=False through pods/status: strategic merge
    # keeps the other conditions (merged by type).
    v1.patch_namespaced_pod_status("a", "py", {"status": {"conditions": [
        {"type": "Ready", "status": "False"}]}})
    st = v1.patch_namespaced_pod_status("a", "py", {"status": {"conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
         "message": "0/1 nodes are available"}]}}).status
    conds = {c.type: (c.status, c.reason) for c in st.conditions}
    check("pods/status: conditions merge by type",
          conds == {"Ready": ("False", None), "PodScheduled": ("False", "Unschedulable")}, str(conds))

    # resourceVersion preconditions.
    cur = v1.read_namespaced_pod("a", "py")
    stale = v1.read_namespaced_pod("a", "py")
    cur.metadata.labels["v"] = "1"
    v1.replace_namespaced_pod("a", "py", cur)
    stale.metadata.labels["v"] = "2"
    e = api_error(lambda: v1.replace_namespaced_pod("a", "py", stale))
    check("replace with a stale resourceVersion: 409 Conflict",
          e is not None and e.status == 409 and '"reason":"Conflict"' in e.body, str(e))

    # Binding, both ways; the second is a 409.
    body = client.V1Binding(metadata=client.V1ObjectMeta(name="a", annotations={
        "ordo.dev/flavor": "f1", "ordo.dev/cluster-queue-version": "77"}),
                            target=client.V1ObjectReference(kind="Node", name="n1", api_version="v1"))
    r = v1.create_namespaced_binding("py", body, _preload_content=False)
    check("create_namespaced_binding: 201", r.status == 201, str(r.status))
    a = v1.read_namespaced_pod("a", "py")
    check("bound: nodeName and the Binding's annotation",
          a.spec.node_name == "n1" and a.metadata.annotations.get("ordo.dev/flavor") == "f1")
    e = api_error(lambda: v1.create_namespaced_pod_binding("a", "py", body, _preload_content=False))
    check("bind again: 409 already assigned", e is not None and e.status == 409
          and "already assigned" in str(e.body), str(e))
    check("the kubelet runs the bound pod",
          eventually(lambda: v1.read_namespaced_pod("a", "py").status.phase == "Running"))

    # Eviction (policy/v1).
    ev = client.V1Eviction(metadata=client.V1ObjectMeta(name="a", namespace="py"))
    r = v1.create_namespaced_pod_eviction("a", "py", ev, _preload_content=False)
    check("eviction: 201", r.status == 201)
    e = api_error(lambda: v1.read_namespaced_pod("a", "py"))
    check("evicted pod is gone: 404", e is not None and e.status == 404)
    e = api_error(lambda: v1.create_namespaced_pod_eviction("a", "py", ev))
    check("evict a missing pod: 404", e is not None and e.status == 404)

    # Delete with preconditions.
    e = api_error(lambda: v1.delete_namespaced_config_map(
        "cm0", "py", body=client.V1DeleteOptions(preconditions=client.V1Preconditions(uid="nope"))))
    check("delete with a wrong uid precondition: 409", e is not None and e.status == 409)
    v1.delete_namespaced_config_map("cm0", "py")
    check("delete", "cm0" not in [x.metadata.name for x in v1.list_namespaced_config_map("py").items])

    # Events written as events.k8s.io are read as core/v1.
    evapi = client.EventsV1Api(api)
    evapi.create_namespaced_event("py", client.EventsV1Event(
        metadata=client.V1ObjectMeta(name="e1"), reason="Scheduled",
        event_time=datetime.datetime.now(datetime.timezone.utc),
        note="bound to n1", type="Normal", action="Binding",
        reporting_controller="ordo", reporting_instance="ordo-0",
        regarding=client.V1ObjectReference(kind="Pod", name="a", namespace="py")))
    core = v1.list_namespaced_event("py", field_selector="involvedObject.name=a")
    check("events.k8s.io Event read as core/v1", [x.message for x in core.items] == ["bound to n1"],
          str([x.message for x in core.items]))


def job_tests(api):
    batch = client.BatchV1Api(api)
    v1 = client.CoreV1Api(api)
    job = client.V1Job(
        metadata=client.V1ObjectMeta(name="j"),
        spec=client.V1JobSpec(parallelism=2, completions=2, template=client.V1PodTemplateSpec(
            metadata=client.V1ObjectMeta(annotations={"ordo.dev/sim-runtime": "5s"}),
            spec=client.V1PodSpec(restart_policy="Never", node_name="n1",
                                  containers=[client.V1Container(name="c", image="b")]))))
    batch.create_namespaced_job("py", job)
    done = eventually(lambda: (batch.read_namespaced_job_status("j", "py").status.succeeded or 0) == 2, 200)
    check("job runs to 2 succeeded", done)
    st = batch.read_namespaced_job_status("j", "py").status
    check("job condition Complete", any(c.type == "Complete" and c.status == "True" for c in st.conditions or []))
    batch.delete_namespaced_job("j", "py", propagation_policy="Background")
    check("deleting the job deletes its pods",
          not v1.list_namespaced_pod("py", label_selector="job-name=j").items)


def kueue_tests(api):
    co = client.CustomObjectsApi(api)
    g, v = "kueue.x-k8s.io", "v1beta2"
    co.create_cluster_custom_object(g, v, "clusterqueues", {
        "apiVersion": g + "/" + v, "kind": "ClusterQueue", "metadata": {"name": "cq"},
        "spec": {"cohortName": "all"}})
    co.create_namespaced_custom_object(g, v, "py", "workloads", {
        "apiVersion": g + "/" + v, "kind": "Workload", "metadata": {"name": "wl"},
        "spec": {"queueName": "lq"}, "status": {"ignored": True}})
    wl = co.get_namespaced_custom_object(g, v, "py", "workloads", "wl")
    check("CRD kind: status dropped on create", "status" not in wl, str(wl))
    wl = co.patch_namespaced_custom_object_status(g, v, "py", "workloads", "wl", {
        "status": {"conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                   "message": "ok", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})
    check("workload status subresource (merge patch)", wl["status"]["conditions"][0]["type"] == "QuotaReserved")
    cqs = co.list_cluster_custom_object(g, v, "clusterqueues")
    check("list clusterqueues", [x["metadata"]["name"] for x in cqs["items"]] == ["cq"])
    w = watch.Watch()
    seen = None
    rv = cqs["metadata"]["resourceVersion"]
    co.patch_cluster_custom_object(g, v, "clusterqueues", "cq", {"spec": {"cohortName": "other"}})
    for ev in w.stream(co.list_cluster_custom_object, g, v, "clusterqueues", resource_version=rv,
                       timeout_seconds=5):
        seen = (ev["type"], ev["object"]["spec"]["cohortName"])
        w.stop()
    check("watch a Kueue kind", seen == ("MODIFIED", "other"), str(seen))


def gone_tests(api):
    v1 = client.CoreV1Api(api)
    for i in range(5):
        v1.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="c%d" % i)))
    w = watch.Watch()
    got = None
    try:
        for ev in w.stream(v1.list_namespaced_config_map, "default", resource_version="1", timeout_seconds=5):
            got = ev
            w.stop()
    except ApiException as e:
        got = e
    ok = (isinstance(got, ApiException) and got.status == 410) or \
        (isinstance(got, dict) and got.get("type") == "ERROR" and got["raw_object"]["code"] == 410)
    check("watch from an expired resourceVersion: 410", ok, str(got))


if not os.access(EMU, os.X_OK):
    print("not ok - %s is not built" % EMU)
    print("0 passed, 1 failed")
    sys.exit(1)
with tempfile.TemporaryDirectory() as tmp:
    main(tmp)
    with open(os.path.join(tmp, "emu.log")) as f:
        log = f.read()
    check("no sanitizer report from the emulator",
          "Sanitizer" not in log and "runtime error" not in log, log[-2000:])
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
