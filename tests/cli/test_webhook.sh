#!/usr/bin/env bash
# test_webhook.sh - Kueue's rule (podDefaulting) in the simulator: the
# kueue-style-defaulting scenario's report names what it leaves out
# (leftOut). Then the pod webhook (--webhook-listen) of ordo-scheduler
# against the API-server emulator: AdmissionReviews POSTed over TLS (curl,
# openssl-made certificates) for a labelled pod, a pod of a labelled Job
# whose pods are Ordo's, a pod of one whose pods are not, an unlabelled pod,
# a pod in a namespace the configured managedJobsNamespaceSelector does not
# select (namespace labels from the informers' cache), a labelled Job;
# malformed JSON answered 400, a body over the bound 413, GET 405, plain
# HTTP refused; the certificate rotated in place and served once read
# again; the reviews counted in /metrics; a clean SIGTERM. Bounded by
# ORDO_WEBHOOK_TIMEOUT seconds (default 120). Skips (77) without the
# emulator, kubectl, curl or openssl.
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
build=${ORDO_BUILDDIR:?ORDO_BUILDDIR not set}
plugins=${ORDO_BUILD_PLUGIN_DIR:?ORDO_BUILD_PLUGIN_DIR not set}
check_grep=-E
. "$(dirname "$0")/lib.sh"

src=${ORDO_SRCDIR:?ORDO_SRCDIR not set}
py=/usr/bin/python3
sc=$src/tests/scenarios/kueue-style-defaulting
rep=$(mktemp)
"$bin" --sim "$sc/input" --config "$sc/config.yaml" --plugin-dir "$plugins" \
    --no-progress --report "$rep" >/dev/null 2>&1
check "sim: leftOut names the two left out" 0 \
    '^Job team-a/gang main its spec.template.spec.schedulerName is "volcano"; Job legacy/old-report main its namespace legacy is not selected by managedJobsNamespaceSelector$' \
    -- "$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("; ".join("%s %s/%s %s %s" % (x["kind"], x["namespace"], x["name"],
      x["queue"], x["reason"]) for x in d["leftOut"]))' "$rep"
check "sim: the report without config leaves legacy in" 0 '^team-a/gang$' -- bash -c '
"$1" --sim "$2/input" --plugin-dir "$3" --no-progress --report "$4" >/dev/null 2>&1
"$5" -c "import json,sys; print(\" \".join(x[\"namespace\"]+\"/\"+x[\"name\"] for x in json.load(open(sys.argv[1]))[\"leftOut\"]))" "$4"' \
    _ "$bin" "$sc" "$plugins" "$rep" "$py"
rm -f "$rep"

emu=$build/tests/kube-emu/ordo-kube-emu
kubectl=${KUBECTL:-$(command -v kubectl || true)}
if [ ! -x "$emu" ] || [ -z "$kubectl" ] || ! command -v curl >/dev/null ||
    ! command -v openssl >/dev/null; then
    echo "SKIP: needs the emulator, kubectl, curl and openssl"
    exit 77
fi
limit=${ORDO_WEBHOOK_TIMEOUT:-120}
deadline=$((SECONDS + limit))
tmp=$(mktemp -d)
emu_pid= sched_pid=
cleanup() {
    [ -n "$sched_pid" ] && kill "$sched_pid" 2>/dev/null
    [ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

mkcert() { # DIR: a self-signed pair for 127.0.0.1
    mkdir -p "$1"
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1 \
        -keyout "$1/key.pem" -out "$1/cert.pem" >/dev/null 2>&1
}
mkcert "$tmp/a"
mkcert "$tmp/b"
cp "$tmp/a/cert.pem" "$tmp/cert.pem"
cp "$tmp/a/key.pem" "$tmp/key.pem"

cat >"$tmp/config.yaml" <<'Y'
apiVersion: ordo.dev/v1alpha1
kind: SchedulerConfiguration
podDefaulting:
  managedJobsNamespaceSelector:
    matchLabels: {ordo.dev/queues: "yes"}
Y
cat >"$tmp/objects.yaml" <<'Y'
apiVersion: v1
kind: Namespace
metadata: {name: ml, labels: {ordo.dev/queues: "yes"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: other}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: ours
  namespace: ml
  labels: {kueue.x-k8s.io/queue-name: team}
spec:
  suspend: true
  template:
    spec:
      schedulerName: ordo-scheduler
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: old
  namespace: ml
  labels: {kueue.x-k8s.io/queue-name: team}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
Y

"$emu" --listen 127.0.0.1:0 --kubeconfig-out "$tmp/kubeconfig" --tls \
    >"$tmp/emu.log" 2>&1 &
emu_pid=$!
until [ -s "$tmp/kubeconfig" ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done
k() { "$kubectl" --kubeconfig "$tmp/kubeconfig" "$@"; }
check "objects applied" 0 "created" -- k apply -f "$tmp/objects.yaml"

check "webhook without a key refused" 1 "webhook-cert and --webhook-key" -- \
    "$bin" --kubeconfig "$tmp/kubeconfig" --plugin-dir "$plugins" \
    --webhook-listen 127.0.0.1:0
check "a bad podDefaulting refused" 1 "podDefaulting.manageJobsWithoutQueueName" -- \
    "$bin" --validate --config <(printf '%s\n' \
    'apiVersion: ordo.dev/v1alpha1' 'kind: SchedulerConfiguration' \
    'podDefaulting: {manageJobsWithoutQueueName: maybe}') "$tmp/objects.yaml"

"$bin" --kubeconfig "$tmp/kubeconfig" --plugin-dir "$plugins" \
    --config "$tmp/config.yaml" --listen 127.0.0.1:0 \
    --webhook-listen 127.0.0.1:0 --webhook-cert "$tmp/cert.pem" \
    --webhook-key "$tmp/key.pem" -v 1 >"$tmp/sched.log" 2>&1 &
sched_pid=$!
wport= mport=
while { [ -z "$wport" ] || [ -z "$mport" ]; } && [ $SECONDS -lt $deadline ] &&
    kill -0 $sched_pid 2>/dev/null; do
    wport=$(sed -n 's/.*pod webhook on .* (port \([0-9]*\)) over TLS.*/\1/p' "$tmp/sched.log")
    mport=$(sed -n 's/.*serving \/metrics .* (port \([0-9]*\)).*/\1/p' "$tmp/sched.log")
    [ -n "$wport" ] && [ -n "$mport" ] || sleep 0.1
done
until grep -q "every informer synced" "$tmp/sched.log" || [ $SECONDS -ge $deadline ]; do
    sleep 0.1
done
check "informers synced" 0 "synced" -- grep "every informer synced" "$tmp/sched.log"
url=https://127.0.0.1:$wport/mutate

# review KIND NS OBJECT-JSON: the AdmissionReview of a CREATE.
review() {
    printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",'
    printf '"request":{"uid":"uid-%s","kind":{"group":"","version":"v1","kind":"%s"},' "$RANDOM" "$1"
    printf '"operation":"CREATE","namespace":"%s","object":%s}}' "$2" "$3"
}
# post FILE: "CODE PATCH": the HTTP code, then the decoded patch ("no
# patch" if none) or the message.
post() {
    curl -s --cacert "$tmp/cert.pem" -H 'Content-Type: application/json' \
        --data-binary "@$1" -o "$tmp/out" -w '%{http_code} ' "$url"
    "$py" - "$tmp/out" "$1" <<'PY'
import base64, json, sys
body = open(sys.argv[1]).read()
try:
    d = json.loads(body)
except ValueError:
    print(body.strip()); sys.exit(0)
req = json.load(open(sys.argv[2]))["request"]
r = d["response"]
assert d["kind"] == "AdmissionReview" and r["uid"] == req["uid"], d
assert r["allowed"] is True, d
if "patch" in r:
    assert r["patchType"] == "JSONPatch", d
    print(base64.b64decode(r["patch"]).decode())
else:
    print("no patch")
PY
}
ask() { # NAME KIND NS OBJECT: writes the review, posts it
    review "$2" "$3" "$4" >"$tmp/$1.json"
    post "$tmp/$1.json"
}
Q='"labels":{"kueue.x-k8s.io/queue-name":"team"}'
owner() { printf '"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"%s","uid":"u","controller":true}]' "$1"; }
set_pod='\[\{"op":"add","path":"/spec/schedulerName","value":"ordo-scheduler"\}\]'
check "labelled pod: schedulerName set" 0 "^200 $set_pod" -- \
    ask labelled Pod ml "{\"metadata\":{\"name\":\"p\",$Q},\"spec\":{}}"
check "pod of a labelled Job: set" 0 "^200 $set_pod" -- \
    ask ofjob Pod ml "{\"metadata\":{\"generateName\":\"ours-\",$(owner ours)},\"spec\":{}}"
check "pod of a Job whose pods are not Ordo's: unchanged" 0 "^200 no patch" -- \
    ask ofold Pod ml "{\"metadata\":{\"generateName\":\"old-\",$(owner old)},\"spec\":{}}"
check "unlabelled pod: unchanged" 0 "^200 no patch" -- \
    ask plain Pod ml '{"metadata":{"name":"q"},"spec":{}}'
check "namespace not selected: unchanged" 0 "^200 no patch" -- \
    ask otherns Pod other "{\"metadata\":{\"name\":\"p\",$Q},\"spec\":{}}"
check "another scheduler: unchanged" 0 "^200 no patch" -- \
    ask volcano Pod ml "{\"metadata\":{\"name\":\"v\",$Q},\"spec\":{\"schedulerName\":\"volcano\"}}"
check "labelled Job: template set" 0 '^200 \[\{"op":"add","path":"/spec/template/spec/schedulerName"' -- \
    ask job Job ml "{\"metadata\":{\"name\":\"j\",$Q},\"spec\":{\"template\":{\"spec\":{}}}}"
printf '{"apiVersion": "admission.k8s.io/v1", "kind": ' >"$tmp/bad.json"
check "malformed JSON: 400 and why" 0 "^400 not JSON" -- post "$tmp/bad.json"
printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x","kind":{"kind":"Pod"},"operation":"CREATE","namespace":"ml","object":{"metadata":{"labels":[]}}}}' >"$tmp/bad2.json"
check "labels not a map: 400 naming the field" 0 "^400 request.object.metadata.labels: expected a map" -- post "$tmp/bad2.json"
head -c $((5 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$tmp/big.json"
check "body over the bound: 413" 0 "^413" -- post "$tmp/big.json"
check "chunked body over the bound: 413" 0 "^413$" -- curl -s --cacert "$tmp/cert.pem" \
    -H 'Transfer-Encoding: chunked' --data-binary "@$tmp/big.json" \
    -o /dev/null -w '%{http_code}\n' "$url"
head -c $((9 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$tmp/huge.json"
cut_off() {
    ! curl -sf --cacert "$tmp/cert.pem" -H 'Transfer-Encoding: chunked' \
        --data-binary "@$tmp/huge.json" -o /dev/null "$url"
}
check "chunked body over twice the bound: cut off" 0 "" -- cut_off
check "GET: 405" 0 "^405$" -- curl -s --cacert "$tmp/cert.pem" -o /dev/null \
    -w '%{http_code}\n' "$url"
plain_refused() { ! curl -sf -o /dev/null --max-time 5 "$1"; }
check "no plain HTTP" 0 "" -- plain_refused "http://127.0.0.1:$wport/mutate"
check "still alive after the bad ones" 0 "^200 $set_pod" -- post "$tmp/labelled.json"
check "decisions logged" 0 "webhook: Pod ml/old-: left unchanged: its Job old's pods are not Ordo's" -- \
    cat "$tmp/sched.log"

# ---- rotation: new files in place are served once read again ------------
cp "$tmp/b/cert.pem" "$tmp/cert.pem.new" && cp "$tmp/b/key.pem" "$tmp/key.pem.new"
mv "$tmp/key.pem.new" "$tmp/key.pem" && mv "$tmp/cert.pem.new" "$tmp/cert.pem"
rotated() {
    curl -s --cacert "$tmp/b/cert.pem" -o /dev/null -w '%{http_code}' \
        --data-binary "@$tmp/plain.json" "$url" | grep -q '^200$'
}
until rotated || [ $SECONDS -ge $deadline ]; do sleep 0.5; done
check "rotated certificate served" 0 "^200 no patch" -- post "$tmp/plain.json"
old_refused() {
    ! curl -sf --cacert "$tmp/a/cert.pem" -o /dev/null \
        --data-binary "@$tmp/plain.json" "$url"
}
check "old certificate no longer served" 0 "" -- old_refused
check "rotation logged" 0 "certificate and key read again" -- cat "$tmp/sched.log"

check "reviews counted" 0 'ordo_webhook_admission_reviews_total\{result="patched"\} [1-9]' -- \
    curl -s "http://127.0.0.1:$mport/metrics"
check "errors counted" 0 'ordo_webhook_admission_reviews_total\{result="error"\} 2' -- \
    curl -s "http://127.0.0.1:$mport/metrics"

kill -TERM $sched_pid
wait $sched_pid
rc=$?
sched_pid=
check "SIGTERM: exit 0" 0 "^0$" -- echo $rc
check "no sanitizer report" 1 "" -- grep -E "Sanitizer|runtime error" "$tmp/sched.log"
check_done
