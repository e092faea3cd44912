#!/usr/bin/python3
"""obs_report.py REPORT METRICS MANIFEST_DIR - the metrics a --sim run
wrote (--metrics-out) against its report (--report): admissions, finishes,
evictions and preemptions per ClusterQueue must be the same counts. A pod
bound before the run (spec.nodeName in the manifests) was found running:
its first admission is the scheduler's adoption, which Kueue's counter
does not count either. Prints what differs and exits 1, else prints the
totals compared."""
import collections
import json
import os
import sys

import yaml

from prometheus_client.parser import text_string_to_metric_families as parse

report = json.load(open(sys.argv[1]))
samples = collections.defaultdict(float)
for fam in parse(open(sys.argv[2]).read()):
    for s in fam.samples:
        if s.name == "kueue_admitted_workloads_total":
            samples[("admitted", s.labels["cluster_queue"])] += s.value
        elif s.name == "kueue_finished_workloads_total":
            samples[("finished", s.labels["cluster_queue"])] += s.value
        elif s.name == "kueue_evicted_workloads_total":
            samples[("evicted", s.labels["cluster_queue"])] += s.value
        elif s.name == "kueue_preempted_workloads_total":
            samples[("preempted", s.labels["preempting_cluster_queue"],
                     s.labels["reason"])] += s.value

found_running = set()
for f in sorted(os.listdir(sys.argv[3])):
    if f.endswith((".yaml", ".yml")):
        for d in yaml.safe_load_all(open(os.path.join(sys.argv[3], f))):
            if d and d.get("kind") == "Pod" and d["spec"].get("nodeName"):
                m = d["metadata"]
                found_running.add("%s/%s" % (m.get("namespace", "default"),
                                             m["name"]))

want = collections.defaultdict(float)
by_name = {w["name"]: w for w in report["workloads"]}
for w in report["workloads"]:
    for i, a in enumerate(w["admissions"]):
        if i > 0 or w["name"] not in found_running:
            want[("admitted", a["cq"])] += 1
    if w["state"] == "finished":
        q = w["admissions"][-1]["cq"] if w["admissions"] else w["clusterQueue"]
        want[("finished", q)] += 1
    for h in w["history"]:
        if h["type"] == "evicted":
            want[("evicted", h["cq"])] += 1
            if h["by"] in by_name:
                pq = by_name[h["by"]]["clusterQueue"]
                want[("preempted", pq, h["detail"])] += 1

bad = [(k, want.get(k, 0), samples.get(k, 0))
       for k in sorted(set(want) | set(samples), key=str)
       if want.get(k, 0) != samples.get(k, 0)]
for k, w, got in bad:
    print("%s: report says %d, metrics %d" % (k, w, got))
if not want:
    print("nothing compared")
    sys.exit(1)
print("compared %d counts, %d admissions" % (
    len(want), sum(v for k, v in want.items() if k[0] == "admitted")))
sys.exit(1 if bad else 0)
