#!/usr/bin/env bash
# test_deploy.sh - examples/deploy on the API-server emulator: everything
# applied with kubectl (server-side, then client-side on top), every object
# served back as applied, the manifests wired to one another (ports,
# probes, selectors, bindings, the webhook's Service, the visibility
# APIService and its Service port); then the quickstart
# scheduled by ordo-scheduler at the highest verbosity with a known token
# and client key, and the emulator's audit compared with the ClusterRole
# (every write the scheduler made, list+watch on everything it reads) and
# its log searched for the secrets. Bounded by ORDO_E2E_TIMEOUT seconds (default 300). Skips (77)
# when the emulator is not built or kubectl, python3, python3-yaml or
# openssl is missing.
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
src=${ORDO_SRCDIR:?ORDO_SRCDIR not set}
build=${ORDO_BUILDDIR:?ORDO_BUILDDIR not set}
plugins=${ORDO_BUILD_PLUGIN_DIR:?ORDO_BUILD_PLUGIN_DIR not set}
. "$(dirname "$0")/lib.sh"
. "$src/tests/kube-emu/lib_quickstart.sh"

emu=$build/tests/kube-emu/ordo-kube-emu
if [ ! -x "$emu" ]; then
    echo "SKIP: $emu is not built"
    exit 77
fi
kubectl=$(qs_find_kubectl)
if [ -z "$kubectl" ] || ! python3 -c 'import yaml' 2>/dev/null ||
    ! command -v openssl >/dev/null; then
    echo "SKIP: needs kubectl, python3, python3-yaml and openssl"
    exit 77
fi
judge=$src/tests/cli/deploy_check.py
deploy=$src/examples/deploy
limit=${ORDO_E2E_TIMEOUT:-300}
tmp=$(mktemp -d)
emu_pid= sched_pid=
cleanup() {
    [ -n "$sched_pid" ] && kill "$sched_pid" 2>/dev/null
    [ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# A token no one else uses, and a client key, both findable in any log.
secret=ordo-test-secret-$RANDOM$RANDOM-token
"$emu" --listen 127.0.0.1:0 --kubeconfig-out "$tmp/kubeconfig" \
    --controllers job,jobset --kubelet --time-scale 600 --tls \
    --token "ordo:$secret" --audit "$tmp/audit.jsonl" \
    >"$tmp/emu.log" 2>&1 &
emu_pid=$!
for _ in $(seq 100); do
    [ -s "$tmp/kubeconfig" ] && break
    sleep 0.1
done
k() { "$kubectl" --kubeconfig "$tmp/kubeconfig" "$@"; }
check "emulator up" 0 "" -- k get namespaces

# Everything: kustomize's output and the ServiceMonitor.
"$kubectl" kustomize "$deploy" >"$tmp/deploy.yaml"
{
    echo "---"
    cat "$deploy/servicemonitor.yaml"
} >>"$tmp/deploy.yaml"
check "kubectl kustomize examples/deploy: CRDs, RBAC, Deployment, webhook" \
    0 "" -- bash -c "grep -c '^kind:' '$tmp/deploy.yaml' | grep -qx 27"
check "kubectl apply --server-side -k examples/deploy" 0 \
    "deployment.apps/ordo-scheduler serverside-applied" -- \
    k apply --server-side -k "$deploy"
check "the ServiceMonitor too" 0 "serverside-applied" -- \
    k apply --server-side -f "$deploy/servicemonitor.yaml"
check "client-side apply on top: nothing refused" 0 \
    "clusterrole.rbac.authorization.k8s.io/ordo-scheduler" -- \
    k apply -f "$tmp/deploy.yaml"
served() {
    k get -f "$tmp/deploy.yaml" -o json >"$tmp/served.json" &&
        python3 "$judge" served "$tmp/deploy.yaml" "$tmp/served.json"
}
check "every object served back as applied" 0 \
    "27 objects applied, 27 served back" -- served
check "the APIService served back, Kueue's name and group" 0 \
    "visibility.kueue.x-k8s.io v1beta2 ordo-system/ordo-scheduler-metrics:10259" -- \
    k get apiservice v1beta2.visibility.kueue.x-k8s.io -o \
    jsonpath='{.spec.group} {.spec.version} {.spec.service.namespace}/{.spec.service.name}:{.spec.service.port}'
check "... its Service exists, with that port" 0 "10259" -- \
    k -n ordo-system get service ordo-scheduler-metrics \
    -o jsonpath='{.spec.ports[0].port}'
python3 - "$tmp/deploy.yaml" >"$tmp/apisvc.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
for d in docs:
    if d["kind"] == "APIService":
        d["spec"]["service"]["port"] = 443
yaml.safe_dump_all(docs, sys.stdout)
PY
check "... and wiring says so of an APIService on a port no Service has" 1 \
    "APIService: no Service port" -- python3 "$judge" wiring "$tmp/apisvc.yaml"
check "the manifests agree (ports, probes, selectors, bindings, webhook)" 0 \
    "wiring: 0 problems" -- python3 "$judge" wiring "$tmp/deploy.yaml"
sed 's/--listen=0.0.0.0:10259/--listen=0.0.0.0:8080/' "$tmp/deploy.yaml" \
    >"$tmp/miswired.yaml"
check "... and say so of probes on a port nothing listens on" 1 \
    "port metrics is not --listen's" -- \
    python3 "$judge" wiring "$tmp/miswired.yaml"
check "kubectl get: Kueue's printer columns come with the CRDs" 0 \
    "Pending Workloads" -- \
    k get crd clusterqueues.kueue.x-k8s.io \
    -o jsonpath='{.spec.versions[0].additionalPrinterColumns[*].name}'
python3 - "$tmp/deploy.yaml" >"$tmp/scheduler.yaml" <<'PY'
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] == "ConfigMap" and d["metadata"]["name"] == "ordo-scheduler-config":
        sys.stdout.write(d["data"]["scheduler.yaml"])
PY
check "the ConfigMap's scheduler.yaml is a configuration ordo-scheduler takes" \
    0 "0 errors" -- "$bin" --config "$tmp/scheduler.yaml" \
    --plugin-dir "$plugins" --validate "$src/examples/quickstart"

# The scheduler as the ServiceAccount would run it, with the test's token
# and a client key in its kubeconfig.
openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=ordo -days 1 \
    -keyout "$tmp/client.key" -out "$tmp/client.crt" >/dev/null 2>&1
python3 - "$tmp/kubeconfig" "$tmp/client.crt" "$tmp/client.key" "$secret" \
    >"$tmp/sched.kubeconfig" <<'PY'
import base64, sys, yaml
kc = yaml.safe_load(open(sys.argv[1]))
b64 = lambda p: base64.b64encode(open(p, "rb").read()).decode()
user = {"token": sys.argv[4], "client-certificate-data": b64(sys.argv[2]),
        "client-key-data": b64(sys.argv[3])}
kc["users"] = [{"name": "ordo", "user": user}]
for c in kc["contexts"]:
    c["context"]["user"] = "ordo"
yaml.safe_dump(kc, sys.stdout)
PY
keyline=$(sed -n 2p "$tmp/client.key")
keyb64=$(base64 -w0 "$tmp/client.key" | cut -c 20-80)

qs=$tmp/quickstart
qs_prepare "$src/examples/quickstart" "$qs"
check "quickstart applied" 0 "created" -- k apply -f "$qs"
# The Deployment's own arguments, with the test's kubeconfig for --cluster,
# files of the test's for the mounted ones and any free ports: a flag the
# scheduler does not take, or a value it refuses, fails here.
python3 - "$tmp/deploy.yaml" "$tmp" <<'PY' >"$tmp/args"
import sys, yaml
tmp = sys.argv[2]
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] == "Deployment":
        c = d["spec"]["template"]["spec"]["containers"][0]
        for a in c["args"]:
            a = a.replace("/etc/ordo/config/scheduler.yaml", tmp + "/scheduler.yaml")
            a = a.replace("/etc/ordo/webhook/tls.crt", tmp + "/client.crt")
            a = a.replace("/etc/ordo/webhook/tls.key", tmp + "/client.key")
            a = a.replace("/etc/ordo/visibility/tls.crt", tmp + "/client.crt")
            a = a.replace("/etc/ordo/visibility/tls.key", tmp + "/client.key")
            a = a.replace("/etc/ordo/front-proxy/ca.crt", tmp + "/client.crt")
            a = a.replace("0.0.0.0:10259", "127.0.0.1:0").replace("0.0.0.0:9443", "127.0.0.1:0")
            print("--kubeconfig=" + tmp + "/sched.kubeconfig" if a == "--cluster" else a)
PY
check "the Deployment's arguments: leader election, endpoints, webhook" 0 \
    "--webhook-listen" -- cat "$tmp/args"
mapfile -t deploy_args <"$tmp/args"
"$bin" "${deploy_args[@]}" --plugin-dir "$plugins" -v 10 \
    >"$tmp/sched.log" 2>&1 &
sched_pid=$!
deadline=$((SECONDS + limit))
until qs_all_done >/dev/null 2>&1 || [ $SECONDS -ge $deadline ]; do
    sleep 1
done
check "every workload finished within ${limit}s" 0 "" -- qs_all_done
check "as the Deployment runs it: it led, served the endpoints and the webhook" \
    0 "" -- bash -c "grep -q 'serving /metrics' '$tmp/sched.log' &&
        grep -q 'webhook' '$tmp/sched.log' && grep -q 'became leader' '$tmp/sched.log'"
kill -TERM "$sched_pid"
wait "$sched_pid"
rc=$?
sched_pid=
check "SIGTERM stops it cleanly" 0 "stopping" -- \
    bash -c "cat '$tmp/sched.log'; exit $rc"
check "it bound pods as the test's user" 0 "" -- \
    grep -q '"verb":"bind".*"user":"ordo"' "$tmp/audit.jsonl"
check "the ClusterRole allows every request it made" 0 \
    "distinct requests checked" -- \
    python3 "$judge" rbac "$deploy/ordo/rbac.yaml" "$tmp/audit.jsonl" \
    "$src/sched/backend/kube/kube_put.c" ordo-scheduler
sed '/pods\/binding, pods\/eviction/s/pods\/binding, //' \
    "$deploy/ordo/rbac.yaml" >"$tmp/rbac-less.yaml"
check "... and would say so of a ClusterRole without pods/binding" 1 \
    "write: create pods/binding" -- \
    python3 "$judge" rbac "$tmp/rbac-less.yaml" "$tmp/audit.jsonl" \
    "$src/sched/backend/kube/kube_put.c" ordo-scheduler

# Secrets never logged, at any verbosity: not the token, not the key.
check "the log is verbose" 0 "" -- \
    bash -c "[ \$(wc -l <'$tmp/sched.log') -gt 50 ]"
check "the token is in no log line" 1 "" -- \
    grep -F -e "$secret" "$tmp/sched.log"
check "the client key is in no log line" 1 "" -- \
    grep -F -e "$keyline" -e "$keyb64" "$tmp/sched.log"
check "the emulator's audit names the user, not the token" 1 "" -- \
    grep -F -e "$secret" "$tmp/audit.jsonl" "$tmp/emu.log"
check_done
