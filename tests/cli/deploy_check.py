#!/usr/bin/env python3
"""deploy_check.py - what tests/cli/test_deploy.sh judges with (python3 and
python3-yaml):

  deploy_check.py served APPLIED.yaml SERVED.json
      every object of APPLIED (a multi-document YAML) is in SERVED (kubectl
      get -o json of them), each field applied served back unchanged
  deploy_check.py wiring APPLIED.yaml
      the manifests agree with one another (ports, probes, selectors, the
      ServiceAccount bound, the Role where the Lease is, the webhook's
      Service, the ServiceMonitor's port)
  deploy_check.py rbac RBAC.yaml AUDIT KUBE_PUT.c USER_AGENT
      the ClusterRole and Role of RBAC.yaml allow every write the scheduler
      (requests whose userAgent starts with USER_AGENT) made in the
      emulator's AUDIT, and list+watch on every path its informers read
      (the paths in sched/backend/kube/kube_put.c, and leases)
Prints one line per problem and exits 1 if there was any."""
import json
import re
import sys

import yaml


def subset(want, got, where, out):
    """Reports every part of want missing from got."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            out.append("%s: served %r, applied a map" % (where, got))
            return
        for k, v in want.items():
            if k not in got:
                out.append("%s.%s: not served" % (where, k))
            else:
                subset(v, got[k], where + "." + k, out)
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            out.append("%s: served %r, applied %r" % (where, got, want))
            return
        for i, (a, b) in enumerate(zip(want, got)):
            subset(a, b, "%s[%d]" % (where, i), out)
    elif want != got and str(want) != str(got):
        out.append("%s: served %r, applied %r" % (where, got, want))


def served(applied_path, served_path):
    docs = [d for d in yaml.safe_load_all(open(applied_path)) if d]
    items = json.load(open(served_path))
    items = items.get("items", [items])
    index = {}
    for o in items:
        m = o["metadata"]
        index[(o["kind"], m.get("namespace", ""), m["name"])] = o
    problems = []
    for d in docs:
        m = d["metadata"]
        key = (d["kind"], m.get("namespace", ""), m["name"])
        o = index.get(key)
        name = "%s %s" % (d["kind"], "/".join(k for k in key[1:] if k))
        if o is None:
            problems.append("%s: not served" % name)
            continue
        subset(d, o, name, problems)
    for p in problems:
        print(p)
    print("%d objects applied, %d served back" % (len(docs), len(index)))
    return 1 if problems else 0


# The audit's verbs for what RBAC calls them.
AUDIT_VERB = {"bind": ("create", "binding"), "evict": ("create", "eviction")}


def allowed(rules):
    """{(group, resource): set(verbs)} from RBAC rules."""
    out = {}
    for r in rules:
        for g in r.get("apiGroups", []):
            for res in r.get("resources", []):
                out.setdefault((g, res), set()).update(r.get("verbs", []))
    return out


def rbac(rbac_path, audit_path, put_c, agent):
    docs = [d for d in yaml.safe_load_all(open(rbac_path)) if d]
    rules = []
    for d in docs:
        if d["kind"] in ("ClusterRole", "Role"):
            rules += d.get("rules", [])
    allow = allowed(rules)
    problems, seen = [], set()
    # Reads: every informer path of the backend, and the Lease's.
    src = open(put_c).read()
    paths = re.findall(r'"(/apis?/[^"]+)"', src)
    prefix = re.search(r'#define KUEUE "([^"]+)"', src).group(1)
    paths += [prefix + p for p in re.findall(r'KUEUE "([a-z]+)"', src)]
    paths.append("/apis/coordination.k8s.io/v1/leases")
    for p in paths:
        parts = p.strip("/").split("/")
        if len(parts) != (3 if parts[0] == "api" else 4):
            continue  # a prefix, not a resource
        if parts[0] == "api":
            group, res = "", parts[2]
        else:
            group, res = parts[1], parts[3]
        for verb in ("list", "watch"):
            seen.add((verb, group, res))
            if verb not in allow.get((group, res), set()):
                problems.append("read %s: no %s on %s in group %r" %
                                (p, verb, res, group))
    # Writes: what the audit saw the scheduler do.
    group_of = {}
    for line in open(audit_path):
        a = json.loads(line)
        if not a.get("userAgent", "").startswith(agent):
            continue
        if a.get("code", 0) >= 400 and a.get("code") != 404 and \
                a.get("code") != 409:
            continue
        res = a["resource"]
        verb = a["verb"]
        sub = a.get("subresource") or ""
        if verb in AUDIT_VERB:
            verb, sub = AUDIT_VERB[verb]
        if res == "bindings":
            res, sub = "pods", "binding"
        group = group_of.get(res)
        if group is None:
            group = next((g for (g, r) in allow if r == res), None)
            group_of[res] = group
        full = res + ("/" + sub if sub else "")
        seen.add((verb, group, full))
        if group is None or verb not in allow.get((group, full), set()):
            problems.append("write: %s %s (%s) is not allowed" %
                            (verb, full, json.dumps(a)))
    for p in sorted(set(problems)):
        print(p)
    print("%d distinct requests checked" % len(seen))
    for s in sorted(seen, key=str):
        print("  %s %s %s" % s)
    return 1 if problems else 0


def wiring(applied_path):
    """The manifests agree with one another: probes and Services reach the
    ports the flags open, selectors pick the Deployment's pods, the RBAC
    binds the Deployment's ServiceAccount, the Role sits where the Lease is,
    the webhook's Service exists."""
    docs = [d for d in yaml.safe_load_all(open(applied_path)) if d]
    by = {}
    for d in docs:
        m = d["metadata"]
        by[(d["kind"], m.get("namespace", ""), m["name"])] = d
    problems = []
    dep = by[("Deployment", "ordo-system", "ordo-scheduler")]
    pod = dep["spec"]["template"]
    labels = pod["metadata"]["labels"]
    c = pod["spec"]["containers"][0]
    args = dict(a[2:].split("=", 1) if "=" in a else (a[2:], "")
                for a in c["args"])
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}

    def port_of(flag):
        return int(args.get(flag, ":0").rsplit(":", 1)[1])

    if ports.get("metrics") != port_of("listen"):
        problems.append("port metrics is not --listen's")
    if ports.get("webhook") != port_of("webhook-listen"):
        problems.append("port webhook is not --webhook-listen's")
    for probe, path in (("readinessProbe", "/readyz"),
                        ("livenessProbe", "/healthz")):
        g = c.get(probe, {}).get("httpGet", {})
        if g.get("path") != path or g.get("port") not in ports:
            problems.append("%s: want %s on a named port" % (probe, path))
    if dep["spec"]["selector"]["matchLabels"] != labels:
        problems.append("the Deployment's selector is not its pods' labels")
    for d in docs:
        sel = None
        if d["kind"] in ("Service",):
            sel = d["spec"]["selector"]
            for p in d["spec"]["ports"]:
                if p["targetPort"] not in ports:
                    problems.append("Service %s: targetPort %s is no port" %
                                    (d["metadata"]["name"], p["targetPort"]))
        elif d["kind"] == "PodDisruptionBudget":
            sel = d["spec"]["selector"]["matchLabels"]
        if sel is not None and any(labels.get(k) != v for k, v in sel.items()):
            problems.append("%s %s selects no pod of the Deployment" %
                            (d["kind"], d["metadata"]["name"]))
    sa = pod["spec"]["serviceAccountName"]
    if ("ServiceAccount", "ordo-system", sa) not in by:
        problems.append("no ServiceAccount %s" % sa)
    lease_ns = args.get("leader-elect-resource-namespace", "kube-system")
    for kind, ns in (("ClusterRoleBinding", ""), ("RoleBinding", lease_ns)):
        b = [d for d in docs if d["kind"] == kind and
             d["metadata"].get("namespace", "") == ns]
        if not any(s["kind"] == "ServiceAccount" and s["name"] == sa and
                   s["namespace"] == "ordo-system"
                   for d in b for s in d["subjects"]):
            problems.append("no %s in %r binds the ServiceAccount" %
                            (kind, ns))
    if not [d for d in docs if d["kind"] == "Role" and
            d["metadata"]["namespace"] == lease_ns]:
        problems.append("no Role where the Lease is (%s)" % lease_ns)
    for d in docs:
        if d["kind"] != "MutatingWebhookConfiguration":
            continue
        for w in d["webhooks"]:
            s = w["clientConfig"]["service"]
            svc = by.get(("Service", s["namespace"], s["name"]))
            if not svc or s["port"] not in [p["port"]
                                            for p in svc["spec"]["ports"]]:
                problems.append("webhook %s: no Service port %s/%s:%s" %
                                (w["name"], s["namespace"], s["name"],
                                 s["port"]))
            if w.get("failurePolicy") != "Ignore":
                problems.append("webhook %s: failurePolicy is not Ignore" %
                                w["name"])
    tls = "listen-cert" in args
    for probe in ("readinessProbe", "livenessProbe"):
        scheme = c.get(probe, {}).get("httpGet", {}).get("scheme", "HTTP")
        if scheme != ("HTTPS" if tls else "HTTP"):
            problems.append("%s: scheme %s, --listen is %s" %
                            (probe, scheme, "HTTPS" if tls else "HTTP"))
    problems += apiservice(docs, by, args, ports)
    smon = [d for d in docs if d["kind"] == "ServiceMonitor"]
    for m in smon:
        for e in m["spec"]["endpoints"]:
            if not any(p.get("name") == e["port"]
                       for d in docs if d["kind"] == "Service"
                       for p in d["spec"]["ports"]):
                problems.append("ServiceMonitor: no Service port %s" %
                                e["port"])
    for p in problems:
        print(p)
    print("wiring: %d problems" % len(problems))
    return 1 if problems else 0


def apiservice(docs, by, args, ports):
    """The visibility APIService: Kueue's name, group and version, its
    Service exists with that port, which reaches the --listen port, served
    over TLS with the front-proxy CA required."""
    problems = []
    svcs = [d for d in docs if d["kind"] == "APIService"]
    if [d["metadata"]["name"] for d in svcs] != [
            "v1beta2.visibility.kueue.x-k8s.io"]:
        return ["want one APIService v1beta2.visibility.kueue.x-k8s.io"]
    spec = svcs[0]["spec"]
    if (spec.get("group"), spec.get("version")) != (
            "visibility.kueue.x-k8s.io", "v1beta2"):
        problems.append("APIService: not visibility.kueue.x-k8s.io/v1beta2")
    if not spec.get("groupPriorityMinimum") or not spec.get("versionPriority"):
        problems.append("APIService: no priorities")
    s = spec.get("service", {})
    svc = by.get(("Service", s.get("namespace"), s.get("name")))
    port = [p for p in (svc or {}).get("spec", {}).get("ports", [])
            if p["port"] == s.get("port", 443)]
    listen = int(args.get("listen", ":0").rsplit(":", 1)[1])
    if not port:
        problems.append("APIService: no Service port %s/%s:%s" %
                        (s.get("namespace"), s.get("name"), s.get("port")))
    elif ports.get(port[0]["targetPort"], port[0]["targetPort"]) != listen:
        problems.append("APIService: Service port %s is not --listen's" %
                        port[0]["port"])
    for flag in ("listen-cert", "listen-key", "listen-client-ca"):
        if flag not in args:
            problems.append("APIService: the Deployment has no --%s" % flag)
    names = {(d["kind"], d["roleRef"]["name"]) for d in docs
             if d["kind"] in ("RoleBinding", "ClusterRoleBinding")}
    for want in (("RoleBinding", "extension-apiserver-authentication-reader"),
                 ("ClusterRoleBinding", "system:auth-delegator")):
        if want not in names:
            problems.append("APIService: no %s to %s" % want)
    return problems


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "served":
        return served(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 3 and sys.argv[1] == "wiring":
        return wiring(sys.argv[2])
    if len(sys.argv) == 6 and sys.argv[1] == "rbac":
        return rbac(*sys.argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
