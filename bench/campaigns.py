#!/usr/bin/env python3
"""Writes N campaigns of one results folder's shape, for datasets at scale (the dataset
test and bench/dataset.py).

Campaign i is the template with every fio result under an `adp/` folder scaled by a
factor of its own (bandwidths, IOPS, their means, and the bytes and I/Os they come
from; 0.70 to 1.30, from a fixed seed),
so every campaign's ADP-over-RAID10 ratios differ, and a top-level manifest.json that
says when it started (one campaign a day from 2026-01-01) and at which of seven sites.
Every other file is a hard link to the template's. Nothing here is a measurement.

Usage: campaigns.py TEMPLATE OUT N [--seed S]
Prints one line of JSON per campaign: {"name", "factor", "started", "site"}.
"""

import argparse
import datetime
import json
import os
import random
import shutil

# What fio writes together is scaled together: it computes the bandwidth from the bytes
# and the runtime, and reprobench refuses a file where they disagree.
SCALED = ("bw", "bw_bytes", "iops", "bw_mean", "iops_mean", "bw_min", "bw_max",
          "io_bytes", "io_kbytes", "total_ios")


def scale(doc, f):
    for job in doc.get("jobs", []):
        for side in ("read", "write", "trim"):
            d = job.get(side)
            if not isinstance(d, dict):
                continue
            for k in SCALED:
                v = d.get(k)
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    d[k] = int(round(v * f)) if isinstance(v, int) else v * f
    return doc


def write_campaign(template, out, f):
    for dirpath, _, files in os.walk(template):
        rel = os.path.relpath(dirpath, template)
        dst = os.path.join(out, rel)
        os.makedirs(dst, exist_ok=True)
        in_adp = "adp" in rel.split(os.sep)
        for name in files:
            src = os.path.join(dirpath, name)
            to = os.path.join(dst, name)
            if name == "manifest.json" and rel == ".":
                continue
            if in_adp and name.endswith(".json"):
                try:
                    with open(src) as fh:
                        doc = json.load(fh)
                except ValueError:
                    doc = None
                if isinstance(doc, dict) and "jobs" in doc:
                    with open(to, "w") as fh:
                        json.dump(scale(doc, f), fh, indent=2)
                    continue
            try:
                os.link(src, to)
            except OSError:
                shutil.copy2(src, to)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("template")
    ap.add_argument("out")
    ap.add_argument("n", type=int)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    for i in range(a.n):
        name = f"campaign-{i:04d}"
        f = round(rng.uniform(0.70, 1.30), 4)
        started = (start + datetime.timedelta(days=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        site = f"site-{i % 7 + 1}"
        out = os.path.join(a.out, name)
        if os.path.exists(out):
            shutil.rmtree(out)
        write_campaign(a.template, out, f)
        with open(os.path.join(out, "manifest.json"), "w") as fh:
            json.dump({"started": started, "site": site, "generated": "bench/campaigns.py"}, fh)
        print(json.dumps({"name": name, "factor": f, "started": started, "site": site}))


if __name__ == "__main__":
    main()
