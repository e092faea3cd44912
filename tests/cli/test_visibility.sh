#!/usr/bin/env bash
# test_visibility.sh - Kueue's visibility API as the API server's
# aggregator reaches it: ordo-scheduler --listen over TLS with
# --listen-client-ca against the API-server emulator, read with kubectl
# get --raw and with Python's TLS client. Discovery (APIGroupList,
# APIGroup, APIResourceList) and the PendingWorkloadsSummary of a
# ClusterQueue and a LocalQueue with waiting workloads (positions,
# priorities, reasons); then the client certificate: none is 401, one of
# another CA 403, one of the CA 200 (403 with a common name not of
# --listen-client-name); the probes stay open; each refused
# peer is logged once; a standby replica answers 503 for pending
# workloads; the serving pair rotated in place is served once read
# again, the client CA still required. Bounded by ORDO_OBS_TIMEOUT seconds (default 120).
# Skips (77) without the emulator, kubectl, curl or openssl, or when the
# build has no GnuTLS (--listen-client-ca is refused then).
set -u
bin=${ORDO_SCHEDULER:?ORDO_SCHEDULER not set}
src=${ORDO_SRCDIR:?ORDO_SRCDIR not set}
build=${ORDO_BUILDDIR:?ORDO_BUILDDIR not set}
plugins=${ORDO_BUILD_PLUGIN_DIR:?ORDO_BUILD_PLUGIN_DIR not set}
check_grep=-E
. "$(dirname "$0")/lib.sh"

emu=$build/tests/kube-emu/ordo-kube-emu
py=/usr/bin/python3
kubectl=${KUBECTL:-$(command -v kubectl || true)}
if [ ! -x "$emu" ] || [ -z "$kubectl" ] || ! command -v curl >/dev/null ||
    ! command -v openssl >/dev/null; then
    echo "SKIP: needs the emulator, kubectl, curl and openssl"
    exit 77
fi
limit=${ORDO_OBS_TIMEOUT:-120}
deadline=$((SECONDS + limit))
data=$src/tests/data/obs
tmp=$(mktemp -d)
emu_pid= sched_pid= standby_pid=
cleanup() {
    [ -n "$sched_pid" ] && kill "$sched_pid" 2>/dev/null
    [ -n "$standby_pid" ] && kill "$standby_pid" 2>/dev/null
    [ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# ---- certificates: the serving pair, the front-proxy CA and a stranger --
ssl() { openssl "$@" >/dev/null 2>&1; }
ssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=ordo-visibility \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$tmp/srv.key" -out "$tmp/srv.pem"
echo "extendedKeyUsage=clientAuth" >"$tmp/client.ext"
# ca NAME: a CA; client CA NAME: a client pair it signs.
ca() { ssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=$1" \
    -keyout "$tmp/$1.key" -out "$tmp/$1.pem"; }
client() {
    ssl req -newkey rsa:2048 -nodes -subj "/CN=$2" -keyout "$tmp/$2.key" \
        -out "$tmp/$2.csr" &&
        ssl x509 -req -in "$tmp/$2.csr" -CA "$tmp/$1.pem" -CAkey "$tmp/$1.key" \
            -CAcreateserial -days 1 -extfile "$tmp/client.ext" -out "$tmp/$2.pem"
}
ca front-proxy-ca && client front-proxy-ca front-proxy-client
client front-proxy-ca other-name
ca other-ca && client other-ca intruder
check "certificates made" 0 "" -- ls "$tmp/front-proxy-client.pem" \
    "$tmp/intruder.pem" "$tmp/srv.pem"

echo "not a certificate" >"$tmp/garbage.pem"
garbage=$("$bin" --server https://127.0.0.1:1 --plugin-dir "$plugins" \
    --listen 127.0.0.1:0 --listen-cert "$tmp/srv.pem" \
    --listen-key "$tmp/srv.key" --listen-client-ca "$tmp/garbage.pem" 2>&1)
grc=$?
if grep -q "no GnuTLS" <<<"$garbage"; then
    echo "SKIP: built without GnuTLS"
    exit 77
fi
check "a client CA without a certificate refused (exit 1)" 0 \
    "^1 .*--listen-client-ca .*garbage.pem: no PEM certificate in it" \
    -- echo "$grc $garbage"
check "client CA needs TLS" 1 "needs --listen-cert" -- "$bin" \
    --server https://127.0.0.1:1 --plugin-dir "$plugins" \
    --listen 127.0.0.1:0 --listen-client-ca "$tmp/front-proxy-ca.pem"
check "client names need the client CA" 1 "needs --listen-client-ca" -- "$bin" \
    --server https://127.0.0.1:1 --plugin-dir "$plugins" \
    --listen 127.0.0.1:0 --listen-cert "$tmp/srv.pem" \
    --listen-key "$tmp/srv.key" --listen-client-name x

# ---- the emulator, and the scheduler with the client CA ------------------
"$emu" --listen 127.0.0.1:0 --kubeconfig-out "$tmp/kubeconfig" --tls \
    --controllers job --kubelet >"$tmp/emu.log" 2>&1 &
emu_pid=$!
until [ -s "$tmp/kubeconfig" ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done
k() { "$kubectl" --kubeconfig "$tmp/kubeconfig" "$@"; }
check "queues applied" 0 "created" -- k apply -f "$data/queue.yaml"
check "jobs applied" 0 "created" -- k apply -f "$data/jobs.yaml"

"$bin" --kubeconfig "$tmp/kubeconfig" --plugin-dir "$plugins" \
    --listen 127.0.0.1:0 --listen-cert "$tmp/srv.pem" \
    --listen-key "$tmp/srv.key" --listen-client-name aggregator,front-proxy-client \
    --listen-client-ca "$tmp/front-proxy-ca.pem" >"$tmp/sched.log" 2>&1 &
sched_pid=$!
lport=
while [ -z "$lport" ] && [ $SECONDS -lt $deadline ] && kill -0 $sched_pid 2>/dev/null; do
    lport=$(sed -n 's/.*serving .* (port \([0-9]*\)) over TLS.*/\1/p' "$tmp/sched.log" 2>/dev/null)
    [ -n "$lport" ] || sleep 0.1
done
check "listening with client certificates" 0 "client certificates of --listen-client-ca required" \
    -- cat "$tmp/sched.log"
url=https://127.0.0.1:$lport
vis=/apis/visibility.kueue.x-k8s.io/v1beta2
# code PATH [CERT]: the HTTP code and body, with client pair CERT if given.
code() {
    local a=()
    [ -n "${2:-}" ] && a=(--cert "$tmp/$2.pem" --key "$tmp/$2.key")
    curl -s --cacert "$tmp/srv.pem" "${a[@]}" -w '\n%{http_code}\n' "$url$1"
}
# status PATH [CERT] [PORT]: the HTTP code alone.
status() {
    local a=()
    [ -n "${2:-}" ] && a=(--cert "$tmp/$2.pem" --key "$tmp/$2.key")
    curl -s -o /dev/null -w '%{http_code}' --cacert "$tmp/srv.pem" "${a[@]}" \
        "https://127.0.0.1:${3:-$lport}$1"
}
pending() {
    code "$vis/clusterqueues/q/pendingworkloads" front-proxy-client |
        grep -o '"positionInClusterQueue"' | wc -l
}
until [ "$(pending)" = 3 ] || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
check "three waiting in q" 0 "^3$" -- pending

# ---- kubectl get --raw, as the aggregator's discovery reads it -----------
cat >"$tmp/ordo.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: ordo
  cluster:
    server: $url
    certificate-authority: $tmp/srv.pem
users:
- name: front-proxy
  user:
    client-certificate: $tmp/front-proxy-client.pem
    client-key: $tmp/front-proxy-client.key
contexts:
- name: ordo
  context: {cluster: ordo, user: front-proxy}
current-context: ordo
KC
raw() { "$kubectl" --kubeconfig "$tmp/ordo.kubeconfig" get --raw "$1"; }
shape() { "$py" -c "$1" 2>&1; }
raw /apis/visibility.kueue.x-k8s.io >"$tmp/group.json" 2>&1
check "kubectl: APIGroup" 0 "^ok$" -- shape "
import json
g = json.load(open('$tmp/group.json'))
gv = 'visibility.kueue.x-k8s.io/v1beta2'
assert g['kind'] == 'APIGroup' and g['name'] == 'visibility.kueue.x-k8s.io', g
assert g['versions'] == [{'groupVersion': gv, 'version': 'v1beta2'}], g
assert g['preferredVersion'] == {'groupVersion': gv, 'version': 'v1beta2'}, g
print('ok')"
raw $vis >"$tmp/res.json" 2>&1
check "kubectl: APIResourceList" 0 "^ok$" -- shape "
import json
r = json.load(open('$tmp/res.json'))
assert r['kind'] == 'APIResourceList', r
assert r['groupVersion'] == 'visibility.kueue.x-k8s.io/v1beta2', r
got = {x['name']: (x['namespaced'], x['kind'], x['verbs']) for x in r['resources']}
assert got == {
    'clusterqueues/pendingworkloads': (False, 'PendingWorkloadsSummary', ['get']),
    'localqueues/pendingworkloads': (True, 'PendingWorkloadsSummary', ['get']),
}, got
print('ok')"
raw /apis >"$tmp/groups.json" 2>&1
check "kubectl: APIGroupList" 0 "^ok$" -- shape "
import json
l = json.load(open('$tmp/groups.json'))
assert l['kind'] == 'APIGroupList', l
assert [g['name'] for g in l['groups']] == ['visibility.kueue.x-k8s.io'], l
print('ok')"
# name:priority:positionInClusterQueue:positionInLocalQueue:lq per item.
cat >"$tmp/items.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "PendingWorkloadsSummary", d
assert d["apiVersion"] == "visibility.kueue.x-k8s.io/v1beta2", d
assert all(i["reason"] and i["metadata"]["namespace"] == "team"
           for i in d["items"]), d
print(" ".join("%s:%d:%d:%d:%s" % (i["metadata"]["name"], i["priority"],
    i["positionInClusterQueue"], i["positionInLocalQueue"], i["localQueueName"])
    for i in d["items"]))
PY
raw $vis/clusterqueues/q/pendingworkloads >"$tmp/cq.json" 2>&1
check "kubectl: ClusterQueue q in priority order" 0 \
    "^j-high:[0-9]+:0:0:lq-b j-mid:[0-9]+:1:0:lq-a j-low:[0-9]+:2:1:lq-a$" \
    -- "$py" "$tmp/items.py" "$tmp/cq.json"
order=$last_out
check "priorities descend" 0 "^ok$" -- "$py" -c "
p = [int(x.split(':')[1]) for x in '$order'.split()]
print('ok' if p == sorted(p, reverse=True) and p[0] > p[-1] else p)"
raw $vis/namespaces/team/localqueues/lq-a/pendingworkloads >"$tmp/lq.json" 2>&1
check "kubectl: LocalQueue team/lq-a" 0 \
    "^j-mid:[0-9]+:1:0:lq-a j-low:[0-9]+:2:1:lq-a$" \
    -- "$py" "$tmp/items.py" "$tmp/lq.json"
check "kubectl: an unknown ClusterQueue is NotFound" 1 "NotFound|not found" \
    -- raw $vis/clusterqueues/nope/pendingworkloads

# ---- Python's TLS client with the front-proxy pair -----------------------
check "python: discovery and the LocalQueue" 0 "^ok$" -- "$py" - "$url" "$tmp" <<'PY'
import json, ssl, sys, urllib.request
url, tmp = sys.argv[1:]
ctx = ssl.create_default_context(cafile=tmp + "/srv.pem")
ctx.load_cert_chain(tmp + "/front-proxy-client.pem", tmp + "/front-proxy-client.key")
def get(path):
    with urllib.request.urlopen(url + path, context=ctx, timeout=10) as r:
        assert r.headers["Content-Type"] == "application/json", r.headers
        return json.load(r)
g = get("/apis/visibility.kueue.x-k8s.io/")
assert g["preferredVersion"]["version"] == "v1beta2", g
r = get("/apis/visibility.kueue.x-k8s.io/v1beta2/")
assert sorted(x["name"] for x in r["resources"]) == [
    "clusterqueues/pendingworkloads", "localqueues/pendingworkloads"], r
lq = get("/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/team/"
         "localqueues/lq-a/pendingworkloads?limit=1&offset=1")
assert [i["metadata"]["name"] for i in lq["items"]] == ["j-low"], lq
print("ok")
PY

# ---- the client certificate ---------------------------------------------
check "no certificate: 401" 0 "^401$" -- status $vis
check "401 says what is needed" 0 "client certificate signed by --listen-client-ca is required" \
    -- code $vis
check "another CA's certificate: 403" 0 "^403$" -- \
    status $vis/clusterqueues/q/pendingworkloads intruder
check "403 says why" 0 "not accepted by --listen-client-ca" -- code $vis intruder
check "the CA's, another common name: 403" 0 \
    'common name "other-name" is not one of --listen-client-name' -- \
    code $vis other-name
check "the CA's certificate: 200" 0 "^200$" -- status $vis front-proxy-client
check "/metrics needs it too" 0 "^401$" -- status /metrics
check "/metrics with it" 0 "kueue_pending_workloads" -- code /metrics front-proxy-client
check "/queues needs it too" 0 "403" -- code /queues intruder
check "healthz open" 0 "^ok$" -- curl -s --cacert "$tmp/srv.pem" "$url/healthz"
check "readyz open" 0 "^ok$" -- curl -s --cacert "$tmp/srv.pem" "$url/readyz"
check "kubectl without the pair: refused" 1 "must be logged in" -- \
    "$kubectl" --kubeconfig /dev/null --server "$url" --token none \
    --certificate-authority "$tmp/srv.pem" get --raw $vis
check "refusals logged once per peer" 0 "^1$" -- grep -c "refused 127.0.0.1" "$tmp/sched.log"
check "the log names the stranger or none" 0 "no certificate|CN=intruder" -- \
    grep "refused 127.0.0.1" "$tmp/sched.log"
check "no key in the log" 1 "" -- grep -F -e "PRIVATE KEY" -e "$(sed -n 2p "$tmp/front-proxy-client.key")" "$tmp/sched.log"

# ---- rotation: a new serving pair in place, the client CA still required
ssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=ordo-visibility-2 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$tmp/srv2.key" -out "$tmp/srv2.pem"
cp "$tmp/srv.pem" "$tmp/srv1.pem"
cp "$tmp/srv2.key" "$tmp/key.new" && mv "$tmp/key.new" "$tmp/srv.key"
cp "$tmp/srv2.pem" "$tmp/cert.new" && mv "$tmp/cert.new" "$tmp/srv.pem"
rotated() { curl -s -o /dev/null --cacert "$tmp/srv2.pem" "$url/healthz"; }
until rotated || [ $SECONDS -ge $deadline ]; do sleep 0.5; done
check "rotated pair served" 0 "^ok$" -- curl -s --cacert "$tmp/srv2.pem" "$url/healthz"
old_refused() { ! curl -sf -o /dev/null --cacert "$tmp/srv1.pem" "$url/healthz"; }
check "the old one no longer" 0 "" -- old_refused
check "rotation logged" 0 "--listen: certificate and key read again" -- cat "$tmp/sched.log"
# srv.pem is srv2.pem now.
check "after rotation: no certificate 401" 0 "^401$" -- status $vis
check "after rotation: the CA's certificate 200" 0 "^200$" -- \
    status $vis front-proxy-client

# A second replica stands by: its view lacks the leader's admissions, so
# it answers 503 for pending workloads, discovery still.
"$bin" --kubeconfig "$tmp/kubeconfig" --plugin-dir "$plugins" \
    --listen 127.0.0.1:0 --listen-cert "$tmp/srv.pem" \
    --listen-key "$tmp/srv.key" \
    --listen-client-ca "$tmp/front-proxy-ca.pem" >"$tmp/standby.log" 2>&1 &
standby_pid=$!
until grep -q "standing by" "$tmp/standby.log" || [ $SECONDS -ge $deadline ]; do
    sleep 0.1
done
sport=$(sed -n 's/.*serving .* (port \([0-9]*\)) over TLS.*/\1/p' "$tmp/standby.log")
scode() {
    curl -s --cacert "$tmp/srv.pem" --cert "$tmp/front-proxy-client.pem" \
        --key "$tmp/front-proxy-client.key" -w '\n%{http_code}\n' \
        "https://127.0.0.1:$sport$1"
}
check "standby: pending workloads 503, naming the leader" 0 \
    "stands by: pending workloads are answered by the leader \([^)]+\)" -- \
    scode $vis/clusterqueues/q/pendingworkloads
check "standby: 503" 0 "^503$" -- status \
    $vis/namespaces/team/localqueues/lq-a/pendingworkloads front-proxy-client "$sport"
check "standby: discovery 200" 0 "^200$" -- status $vis front-proxy-client "$sport"
kill -TERM $standby_pid
wait $standby_pid
rc=$?
standby_pid=
check "standby: exit 0" 0 "^0$" -- echo $rc

kill -TERM $sched_pid
wait $sched_pid
rc=$?
sched_pid=
check "SIGTERM: exit 0" 0 "^0$" -- echo $rc
check "no sanitizer report" 1 "" -- grep -E "Sanitizer|runtime error" "$tmp/sched.log"
check_done
