#!/bin/bash
# test_emu_kubectl.sh - kubectl (the newest on the machine) against
# ordo-kube-emu: discovery, auth, create/get/describe/watch/patch/apply/
# delete of every kind Ordo reads, Table columns, the Job and JobSet
# controllers and the kubelet, binding, eviction, 409/410, bookmarks,
# pagination, selectors, garbage collection and the audit log.
# kubectl sends credentials only over TLS, hence --tls.
here=$(cd "$(dirname "$0")" && pwd)
. "${ORDO_SRCDIR:-$here/../..}/tests/cli/lib.sh"
. "$here/lib_emu.sh"
trap emu_cleanup EXIT
emu_find_kubectl
if [ -z "$KUBECTL" ] || ! command -v curl >/dev/null || ! command -v openssl >/dev/null; then
    echo "skipping: needs kubectl (/usr/lib/google-cloud-sdk/bin/kubectl.1.*), curl and openssl"
    echo "0 passed, 0 failed"
    exit 77
fi
data=$here/data
k() { "$KUBECTL" --request-timeout=20s "$@"; }
api() { curl -sk --max-time 20 -H "Authorization: Bearer $EMU_TOKEN" "$@"; }
cm() { printf '%s\n' "apiVersion: v1" "kind: ConfigMap" "metadata: {namespace: $1, name: $2}"; }
export -f cm

emu_start --tls --kubelet --controllers job,jobset --time-scale 1000 \
    --audit "$EMU_DIR/audit" --token sched-b:secret-b || exit 1

# ---- discovery and auth ----
check "no token: 401 Status" 0 '"message":"Unauthorized","reason":"Unauthorized","code":401' -- \
    sh -c 'curl -sk "$1/api/v1/pods"; echo' sh "$EMU_SERVER"
check "/version is public" 0 '"gitVersion":"v1.33.0"' -- curl -sk "$EMU_SERVER/version"
check "a wrong token: 401" 0 '"code":401' -- \
    curl -sk -H "Authorization: Bearer nope" "$EMU_SERVER/apis"
check "kubectl version" 0 "Server Version: v1.33.0" -- k version
check "api-resources: pods with short name" 0 "po " -- k api-resources
check "api-resources: kueue clusterqueues" 0 "kueue.x-k8s.io/v1beta2" -- k api-resources
check "api-resources: NRT short name" 0 "node-res-topo" -- k api-resources
check "protobuf only: 406" 0 '"code":406' -- \
    api -H "Accept: application/vnd.kubernetes.protobuf" "$EMU_SERVER/api/v1/pods"
check "openapi v3 index" 0 '"apis/kueue.x-k8s.io/v1beta2"' -- api "$EMU_SERVER/openapi/v3"
check "openapi v3 core document (the real one)" 0 '"io.k8s.api.core.v1.Pod"' -- \
    sh -c 'curl -sk -H "Authorization: Bearer $2" "$1/openapi/v3/api/v1" | head -c 2000000' \
    sh "$EMU_SERVER" "$EMU_TOKEN"

# ---- create (validated against the OpenAPI) and get ----
check "apply every kind" 0 "noderesourcetopology.topology.node.k8s.io/n1 created" -- \
    k apply -f "$data/all-kinds.yaml"
check "apply again: unchanged" 0 "clusterqueue.kueue.x-k8s.io/cq-a unchanged" -- \
    k apply -f "$data/all-kinds.yaml"
check "create strict validation passes" 0 "pod/p2 created" -- \
    sh -c 'printf "%s\n" "apiVersion: v1" "kind: Pod" "metadata: {name: p2, namespace: team-a, labels: {app: db}}" "spec: {containers: [{name: c, image: busybox}]}" | "$1" create -f -' sh "$KUBECTL"
check "create again: AlreadyExists" 1 'Error from server (AlreadyExists)' -- \
    sh -c 'printf "%s\n" "apiVersion: v1" "kind: Pod" "metadata: {name: p2, namespace: team-a}" "spec: {containers: [{name: c, image: busybox}]}" | "$1" create -f -' sh "$KUBECTL"
check "create in a missing namespace: NotFound" 1 'namespaces "nowhere" not found' -- \
    bash -c 'cm nowhere cm1 | "$1" create -f -' sh "$KUBECTL"
check "a protobuf body (kubectl's generators): 415" 1 "the body of the request was in an unknown format" -- \
    k create configmap cm1 -n team-a
check "get pods: Table columns" 0 "NAME   READY   STATUS    RESTARTS   AGE" -- k get pods -n team-a
check "get pods -o wide: NODE column" 0 "NOMINATED NODE" -- k get pods -n team-a -o wide
check "get nodes: Table columns" 0 "n1     Ready    worker" -- k get nodes
check "get nodes: VERSION" 0 "v1.33.0" -- k get nodes
check "get namespaces" 0 "team-a            Active" -- k get ns
check "get jobs: Table columns" 0 "STATUS      COMPLETIONS   DURATION   AGE" -- k get jobs -n team-a
check "get leases" 0 "ordo-scheduler   ordo-0" -- k get leases -n kube-system
check "get priorityclasses" 0 "high   1000" -- k get pc
check "get clusterqueues: Kueue columns" 0 "NAME   COHORT   PENDING WORKLOADS" -- k get cq
check "get clusterqueues -o wide: STRATEGY, ADMITTED" 0 "STRATEGY" -- k get cq -o wide
check "get localqueues: Kueue columns" 0 "CLUSTERQUEUE   PENDING WORKLOADS   ADMITTED WORKLOADS" -- \
    k get localqueues -n team-a
check "get workloads: Kueue columns" 0 "QUEUE   RESERVED IN   ADMITTED   FINISHED   AGE" -- \
    k get workloads -n team-a
check "get resourceflavors (short name rf)" 0 "default-flavor" -- k get rf
check "get cohorts" 0 "all" -- k get cohorts
check "get workloadpriorityclasses" 0 "wpc-high   500" -- k get workloadpriorityclasses
check "get topologies" 0 "default" -- k get topologies.kueue.x-k8s.io
check "get admissionchecks" 0 "ac1" -- k get admissionchecks
check "get jobsets" 0 "SUSPENDED" -- k get jobsets -n team-a
check "get noderesourcetopologies (node-res-topo)" 0 "n1" -- k get node-res-topo
check "events.k8s.io Event read as core/v1" 0 "pod/p1   0/1 nodes are available" -- \
    k get events -n team-a
check "events.k8s.io Event as written" 0 '"note": "0/1 nodes are available' -- \
    k get events.events.k8s.io -n team-a p1.first -o json
check "core Event: involvedObject from regarding" 0 '"involvedObject"' -- \
    k get events.v1. -n team-a p1.first -o json
check "get -o json: defaults, uid, resourceVersion" 0 '"schedulerName": "default-scheduler"' -- \
    k get pod -n team-a p1 -o json
check "Priority admission: spec.priority from the class" 0 "1000" -- \
    k get pod -n team-a p1 -o 'jsonpath={.spec.priority}'
check "get a missing pod: NotFound" 1 'Error from server (NotFound): pods "nope" not found' -- \
    k get pod -n team-a nope
check "describe pod" 0 "Priority Class Name:  high" -- k describe pod -n team-a p1
uid=$(k get pod -n team-a p1 -o 'jsonpath={.metadata.uid}')
ev='{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"p1.second","namespace":"team-a"},"eventTime":"2026-01-01T00:00:01.000000Z","reportingController":"ordo-scheduler","reportingInstance":"ordo-0","action":"Scheduling","reason":"FailedScheduling","type":"Warning","note":"waiting for quota in cq-a","regarding":{"kind":"Pod","namespace":"team-a","name":"p1","uid":"'$uid'","apiVersion":"v1"}}'
api -X POST -H "Content-Type: application/json" -d "$ev" \
    "$EMU_SERVER/apis/events.k8s.io/v1/namespaces/team-a/events" >/dev/null
check "describe pod finds an events.k8s.io Event about it" 0 "waiting for quota in cq-a" -- \
    k describe pod -n team-a p1
check "describe clusterqueue" 0 "Cohort Name:  all" -- k describe cq cq-a
check "describe node" 0 "Non-terminated Pods:" -- k describe node n1

# ---- selectors and pagination ----
check "label selector =" 0 "p1" -- k get pods -n team-a -l app=web
check "label selector !=" 0 "!p1 " -- k get pods -n team-a -l 'app!=web'
check "label selector in" 0 "p2" -- k get pods -n team-a -l 'app in (db,x)'
check "label selector notin" 0 "!p2 " -- k get pods -n team-a -l 'app notin (db)'
check "label selector exists" 0 "p1" -- k get pods -n team-a -l app
check "label selector !exists" 0 "No resources found" -- k get pods -n team-a -l '!app'
check "field selector metadata.name" 0 "p2" -- k get pods -A --field-selector metadata.name=p2
check "field selector spec.nodeName (unbound)" 0 "p1" -- \
    k get pods -n team-a --field-selector spec.nodeName=
check "field selector status.phase" 0 "p2" -- \
    k get pods -n team-a --field-selector status.phase=Pending
check "field selector spec.schedulerName" 0 "p2" -- \
    k get pods -A --field-selector spec.schedulerName=default-scheduler
check "a bad selector: 400" 1 "unable to parse requirement" -- \
    k get pods -n team-a -l 'app in (a'
for i in 1 2 3 4 5; do cm team-a "page-$i" | k create -f - >/dev/null; done
check "pagination: kubectl --chunk-size=2 sees all" 0 "page-5" -- \
    k get configmaps -n team-a --chunk-size=2
check "pagination: limit=2 gives a continue token" 0 '"continue":"' -- \
    api "$EMU_SERVER/api/v1/namespaces/team-a/configmaps?limit=2"
cont=$(api "$EMU_SERVER/api/v1/namespaces/team-a/configmaps?limit=2" |
    sed 's/.*"continue":"\([^"]*\)".*/\1/')
check "pagination: the next page starts after" 0 '"name":"page-3"' -- \
    api -G "$EMU_SERVER/api/v1/namespaces/team-a/configmaps" --data-urlencode "limit=2" \
    --data-urlencode "continue=$cont"

# ---- patch ----
check "strategic merge patch (labels)" 0 "pod/p1 patched" -- \
    k patch pod -n team-a p1 -p '{"metadata":{"labels":{"tier":"front"}}}'
check "strategic merge: containers merge by name" 0 "busybox:2" -- \
    sh -c '"$1" patch pod -n team-a p1 -p "{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox:2\"}]}}" >/dev/null &&
        "$1" get pod -n team-a p1 -o "jsonpath={.spec.containers[*].name} {.spec.containers[*].image} {.spec.containers[0].resources.requests.cpu}"' sh "$KUBECTL"
check "strategic merge kept the other container fields" 0 "c busybox:2 1" -- echo "$last_out"
check "a pod's nodeName cannot be patched: 422" 1 "pod updates may not change fields" -- \
    k patch pod -n team-a p1 --type merge -p '{"spec":{"nodeName":"n1"}}'
check "merge patch on a CRD kind" 0 "clusterqueue.kueue.x-k8s.io/cq-a patched" -- \
    k patch cq cq-a --type merge -p '{"spec":{"queueingStrategy":"StrictFIFO"}}'
check "strategic merge on a CRD kind: 415" 1 "is not supported by kueue.x-k8s.io/v1beta2, Kind=ClusterQueue" -- \
    k patch cq cq-a -p '{"spec":{"queueingStrategy":"BestEffortFIFO"}}'
check "json patch" 0 "node/n1 patched" -- \
    k patch node n1 --type json -p '[{"op":"add","path":"/spec/unschedulable","value":true}]'
check "json patch shows in the Table" 0 "Ready,SchedulingDisabled" -- k get nodes
check "kubectl uncordon (strategic merge on spec)" 0 "node/n1 uncordoned" -- k uncordon n1
check "kubectl cordon" 0 "node/n1 cordoned" -- k cordon n1
check "json patch test op fails: 422" 1 "json patch operation 0 (test" -- \
    k patch node n1 --type json -p '[{"op":"test","path":"/spec/unschedulable","value":false}]'
check "status subresource patch" 0 "patched" -- \
    k patch cq cq-a --subresource=status --type merge -p '{"status":{"pendingWorkloads":3,"admittedWorkloads":1}}'
check "status shows in the Kueue columns" 0 "cq-a   all      3" -- k get cq
check "main resource ignores status" 0 "3" -- \
    sh -c '"$1" patch cq cq-a --type merge -p "{\"status\":{\"pendingWorkloads\":9}}" >/dev/null; "$1" get cq cq-a -o jsonpath={.status.pendingWorkloads}' sh "$KUBECTL"
check "status subresource ignores spec" 0 "all" -- \
    sh -c '"$1" patch cq cq-a --subresource=status --type merge -p "{\"spec\":{\"cohortName\":\"x\"}}" >/dev/null; "$1" get cq cq-a -o jsonpath={.spec.cohortName}' sh "$KUBECTL"
check "node status subresource" 0 "patched" -- \
    k patch node n1 --subresource=status --type merge -p '{"status":{"allocatable":{"cpu":"6"}}}'
check "apply with a change: configured" 0 "pod/p2 configured" -- \
    sh -c 'printf "%s\n" "apiVersion: v1" "kind: Pod" "metadata: {name: p2, namespace: team-a, labels: {app: db, v: \"2\"}}" "spec: {containers: [{name: c, image: busybox}]}" | "$1" apply -f -' sh "$KUBECTL"
check "apply over create: label there" 0 "v=2" -- k get pod -n team-a p2 --show-labels

check "server-side apply creates" 0 "pod/ssa serverside-applied" -- \
    sh -c 'printf "%s\n" "apiVersion: v1" "kind: Pod" "metadata: {name: ssa, namespace: team-a, labels: {a: \"1\"}}" "spec: {containers: [{name: c, image: busybox}]}" | "$1" apply --server-side -f -' sh "$KUBECTL"
check "server-side apply merges the applied fields" 0 "a=1,b=2" -- \
    sh -c 'printf "%s\n" "apiVersion: v1" "kind: Pod" "metadata: {name: ssa, namespace: team-a, labels: {b: \"2\"}}" "spec: {containers: [{name: c, image: busybox}]}" | "$1" apply --server-side -f - >/dev/null && "$1" get pod -n team-a ssa --show-labels' sh "$KUBECTL"
check "server-side dry run is refused, not written" 1 "dryRun is not supported" -- \
    bash -c 'cm team-a dry | "$1" create --dry-run=server -f -' sh "$KUBECTL"
check "... and nothing was written" 1 "NotFound" -- k get configmap -n team-a dry

# ---- resourceVersion preconditions ----
old=$(k get pod -n team-a p2 -o json)
k label pod -n team-a p2 bump=1 >/dev/null
check "replace with a stale resourceVersion: 409" 1 "the object has been modified" -- \
    sh -c 'printf "%s" "$2" | "$1" replace -f -' sh "$KUBECTL" "$old"
check "409 is a real Status" 0 '"reason":"Conflict","details":{"name":"p2","kind":"pods"}' -- \
    sh -c 'printf "%s" "$3" | curl -sk -X PUT -H "Authorization: Bearer $2" -H "Content-Type: application/json" --data-binary @- "$1/api/v1/namespaces/team-a/pods/p2"' \
    sh "$EMU_SERVER" "$EMU_TOKEN" "$old"

# ---- watch ----
k get pods -n team-a --watch --output-watch-events --request-timeout=30s \
    >"$EMU_DIR/watch.out" 2>&1 &
watch_pid=$!
emu_eventually 100 grep -q p2 "$EMU_DIR/watch.out"
cm team-a trigger | k create -f - >/dev/null
sh -c 'printf "%s\n" "apiVersion: v1" "kind: Pod" "metadata: {name: p3, namespace: team-a}" "spec: {containers: [{name: c, image: busybox}]}" | "$1" create -f -' sh "$KUBECTL" >/dev/null
emu_eventually 100 grep -q "ADDED.*p3" "$EMU_DIR/watch.out"
check "kubectl get --watch sees a new pod" 0 "p3" -- cat "$EMU_DIR/watch.out"
k delete pod -n team-a p3 --wait=false >/dev/null
emu_eventually 100 grep -q "DELETED.*p3" "$EMU_DIR/watch.out"
check "kubectl get --watch sees the delete" 0 "DELETED" -- cat "$EMU_DIR/watch.out"
kill "$watch_pid" 2>/dev/null
wait "$watch_pid" 2>/dev/null
rv=$(api "$EMU_SERVER/api/v1/namespaces/team-a/pods" | sed 's/.*"metadata":{"resourceVersion":"\([0-9]*\)".*/\1/')
k label pod -n team-a p2 after=list >/dev/null
check "watch from a list's resourceVersion sees the later change" 0 '"type":"MODIFIED"' -- \
    api -N "$EMU_SERVER/api/v1/namespaces/team-a/pods?watch=1&resourceVersion=$rv&timeoutSeconds=1"
check "watch events are one JSON object a line" 0 '"after":"list"' -- echo "$last_out"

# ---- binding, eviction, PDB ----
bind='{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p2","annotations":{"ordo.dev/cq":"cq-a"}},"target":{"kind":"Node","name":"n1"}}'
check "bind: 201 Success" 0 '"status":"Success","details":{},"code":201' -- \
    api -X POST -H "Content-Type: application/json" -d "$bind" \
    "$EMU_SERVER/api/v1/namespaces/team-a/pods/p2/binding"
check "bound: nodeName, annotation, PodScheduled" 0 "n1 cq-a True" -- \
    k get pod -n team-a p2 -o 'jsonpath={.spec.nodeName} {.metadata.annotations.ordo\.dev/cq} {.status.conditions[?(@.type=="PodScheduled")].status}'
check "bind again: 409 already assigned" 0 'is already assigned to node \"n1\"' -- \
    api -X POST -H "Content-Type: application/json" -d "$bind" \
    "$EMU_SERVER/api/v1/namespaces/team-a/pods/p2/binding"
check "the kubelet runs the bound pod" 0 "Running" -- \
    emu_eventually 100 sh -c '"$1" get pod -n team-a p2 -o jsonpath={.status.phase} | grep -x Running' sh "$KUBECTL"
check "get pods: READY 1/1 Running" 0 "1/1     Running" -- k get pods -n team-a p2
check "field selector spec.nodeName=n1" 0 "p2" -- k get pods -A --field-selector spec.nodeName=n1
printf '%s\n' "apiVersion: policy/v1" "kind: PodDisruptionBudget" \
    "metadata: {name: pdb-db, namespace: team-a}" \
    "spec: {minAvailable: 1, selector: {matchLabels: {app: db}}}" | k create -f - >/dev/null
evict='{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p2","namespace":"team-a"}}'
check "eviction blocked by the PDB: 429" 0 '"code":429' -- \
    api -X POST -H "Content-Type: application/json" -d "$evict" \
    "$EMU_SERVER/api/v1/namespaces/team-a/pods/p2/eviction"
k delete pdb pdb-db -n team-a >/dev/null
check "eviction: 201" 0 '"status":"Success","details":{},"code":201' -- \
    api -X POST -H "Content-Type: application/json" -d "$evict" \
    "$EMU_SERVER/api/v1/namespaces/team-a/pods/p2/eviction"
check "evicted pod is gone" 1 "NotFound" -- k get pod -n team-a p2
check "bind a missing pod: 404" 0 '"code":404' -- \
    api -X POST -H "Content-Type: application/json" -d "$bind" \
    "$EMU_SERVER/api/v1/namespaces/team-a/pods/p2/binding"

# ---- controllers ----
check "suspended job: no pods" 0 "No resources found" -- \
    k get pods -n team-a -l job-name=j1
check "resume the job" 0 "job.batch/j1 patched" -- \
    k patch job -n team-a j1 --type merge -p '{"spec":{"suspend":false}}'
check "the job controller makes parallelism pods" 0 "2" -- \
    emu_eventually 100 sh -c '"$1" get pods -n team-a -l job-name=j1 -o name | wc -l | grep -x 2' sh "$KUBECTL"
check "job pods are owned by the job" 0 "Job j1" -- \
    k get pods -n team-a -l job-name=j1 -o 'jsonpath={.items[0].metadata.ownerReferences[0].kind} {.items[0].metadata.ownerReferences[0].name}'
victim=$(k get pods -n team-a -l job-name=j1 -o 'jsonpath={.items[0].metadata.name}')
k delete pod -n team-a "$victim" --wait=false >/dev/null
check "a deleted job pod is replaced" 0 "2" -- \
    emu_eventually 100 sh -c '"$1" get pods -n team-a -l job-name=j1 -o name | grep -v "$2" | wc -l | grep -x 2' sh "$KUBECTL" "$victim"
check "suspending deletes active pods" 0 "No resources found" -- \
    sh -c '"$1" patch job -n team-a j1 --type merge -p "{\"spec\":{\"suspend\":true}}" >/dev/null; "$0" 100 sh -c "\"$1\" get pods -n team-a -l job-name=j1 2>&1 | grep -q \"No resources\"" ; "$1" get pods -n team-a -l job-name=j1' \
    emu_eventually "$KUBECTL"
cat >"$EMU_DIR/job2.yaml" <<'Y'
apiVersion: batch/v1
kind: Job
metadata: {name: j2, namespace: team-a}
spec:
  parallelism: 2
  completions: 3
  template:
    metadata:
      annotations: {ordo.dev/sim-runtime: 10s}
    spec:
      nodeName: n1
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
Y
k create -f "$EMU_DIR/job2.yaml" >/dev/null
check "a job runs to Complete (kubelet, sim-runtime / time-scale)" 0 "Complete" -- \
    emu_eventually 200 sh -c '"$1" get job -n team-a j2 -o "jsonpath={.status.conditions[?(@.type==\"Complete\")].type}" | grep -x Complete' sh "$KUBECTL"
check "kubectl wait for the job's Complete condition" 0 "job.batch/j2 condition met" -- \
    k wait --for=condition=complete job/j2 -n team-a --timeout=20s
check "kubectl get all lists pods and jobs" 0 "job.batch/j2" -- k get all -n team-a
check "job status: 3 succeeded" 0 "3" -- k get job -n team-a j2 -o 'jsonpath={.status.succeeded}'
check "get jobs: Complete 3/3" 0 "Complete   3/3" -- k get jobs -n team-a j2
check "succeeded pods show Completed" 0 "Succeeded" -- \
    k get pods -n team-a -l job-name=j2 -o 'jsonpath={.items[*].status.phase}'
check "jobset: child jobs with JobSet's labels" 0 "js1-workers-0 js1-workers-1" -- \
    k get jobs -n team-a -l 'jobset.sigs.k8s.io/jobset-name=js1,jobset.sigs.k8s.io/replicatedjob-name=workers' -o 'jsonpath={.items[*].metadata.name}'
check "jobset: suspend passed down" 0 "true true" -- \
    k get jobs -n team-a -l jobset.sigs.k8s.io/jobset-name=js1 -o 'jsonpath={.items[*].spec.suspend}'
k patch jobset -n team-a js1 --type merge -p '{"spec":{"suspend":false}}' >/dev/null
check "jobset: resumed child jobs make pods labelled as JobSet does" 0 "2" -- \
    emu_eventually 100 sh -c '"$1" get pods -n team-a -l jobset.sigs.k8s.io/jobset-name=js1,jobset.sigs.k8s.io/job-index -o name | wc -l | grep -x 2' sh "$KUBECTL"
check "jobset status: replicatedJobsStatus" 0 "workers" -- \
    k get jobset -n team-a js1 -o 'jsonpath={.status.replicatedJobsStatus[*].name}'

# ---- delete, garbage collection, finalizers ----
check "delete the jobset" 0 'jobset.jobset.x-k8s.io "js1" deleted' -- k delete jobset -n team-a js1
check "its jobs and pods went with it (ownerReferences)" 0 "No resources found" -- \
    k get jobs,pods -n team-a -l jobset.sigs.k8s.io/jobset-name=js1
check "delete with --wait watches until gone" 0 'pod "p1" deleted' -- k delete pod -n team-a p1
k patch workload -n team-a wl1 --type merge -p '{"metadata":{"finalizers":["kueue.x-k8s.io/resource-in-use"]}}' >/dev/null
check "delete a workload with a finalizer: kept, marked" 0 "deletionTimestamp" -- \
    sh -c '"$1" delete workload -n team-a wl1 --wait=false >/dev/null; "$1" get workload -n team-a wl1 -o json' sh "$KUBECTL"
check "removing the finalizer deletes it" 1 "NotFound" -- \
    sh -c '"$1" patch workload -n team-a wl1 --type json -p "[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]" >/dev/null; "$1" get workload -n team-a wl1' sh "$KUBECTL"
check "delete with a uid precondition that does not match: 409" 0 '"reason":"Conflict"' -- \
    api -X DELETE -H "Content-Type: application/json" -d '{"preconditions":{"uid":"x"}}' \
    "$EMU_SERVER/api/v1/namespaces/team-a/configmaps/page-1"
check "delete the namespace: its objects go" 0 'namespace "team-a" deleted' -- k delete ns team-a
check "nothing left in it" 0 "No resources found" -- k get configmaps -n team-a

# ---- audit ----
check "audit: a bind line with node and user" 0 '"verb":"bind","resource":"pods","subresource":"binding","namespace":"team-a","name":"p2"' -- \
    cat "$EMU_DIR/audit"
check "audit: the node of the bind" 0 '"node":"n1","code":201,"user":"admin","userAgent":"curl' -- cat "$EMU_DIR/audit"
check "audit: kubectl's writes name kubectl" 0 '"userAgent":"kubectl' -- cat "$EMU_DIR/audit"
EMU_TOKEN=secret-b
api -X POST -H "Content-Type: application/json" -d '{"metadata":{"name":"from-b"}}' \
    "$EMU_SERVER/api/v1/namespaces/default/configmaps" >/dev/null
check "audit: a second token is told apart" 0 '"name":"from-b","resourceVersion"' -- \
    grep '"user":"sched-b"' "$EMU_DIR/audit"
check "kubeconfig: a context per token" 0 "sched-b" -- k config get-contexts
emu_stop
check "exit status 0 on SIGTERM" 0 "" -- test "$EMU_RC" -eq 0

# ---- an emulator with a small window: 410, bookmarks ----
emu_start --watch-window 3 --bookmark-ms 100 || exit 1
for i in 1 2 3 4 5 6; do
    api -X POST -H "Content-Type: application/json" -d "{\"metadata\":{\"name\":\"c$i\"}}" \
        "$EMU_SERVER/api/v1/namespaces/default/configmaps" >/dev/null
done
check "watch from an expired version: ERROR 410" 0 '"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version' -- \
    api -N "$EMU_SERVER/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=2"
check "expired continue token: 410" 0 '"code":410' -- \
    api "$EMU_SERVER/api/v1/namespaces/default/configmaps?limit=1&continue=2/default/c1"
check "bookmarks when asked" 0 '"type":"BOOKMARK"' -- \
    api -N "$EMU_SERVER/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=0&timeoutSeconds=1"
check "watch from 0 starts with the current objects" 0 '"type":"ADDED","object":{"metadata":{"name":"c6"' -- echo "$last_out"
check "sendInitialEvents ends with the initial-events-end bookmark" 0 '"k8s.io/initial-events-end":"true"' -- \
    api -N "$EMU_SERVER/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1"
check "a watch is chunked JSON" 0 "Transfer-Encoding: chunked" -- \
    sh -c 'curl -sv --max-time 20 -H "Authorization: Bearer $2" "$1/api/v1/namespaces?watch=1&timeoutSeconds=1" 2>&1' \
    sh "$EMU_SERVER" "$EMU_TOKEN"
check "plain HTTP works for a client that sends the token" 0 '"kind":"ConfigMapList"' -- \
    api "$EMU_SERVER/api/v1/configmaps"
emu_stop

check "bad command line: usage" 2 "usage: ordo-kube-emu" -- "$EMU_BIN" --listen nowhere
check "unknown controller named" 2 "--controllers cronjob" -- \
    "$EMU_BIN" --listen 127.0.0.1:0 --kubeconfig-out "$EMU_DIR/x" --controllers cronjob
check "the emulator stopped cleanly, sanitizers silent" 0 "" -- emu_clean
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
