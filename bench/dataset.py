#!/usr/bin/env python3
"""The dataset at scale: 1,000 generated campaigns of the reference archive's shape
(bench/generate.py's reference archive, varied by bench/campaigns.py) added to a dataset
one `dataset add` at a time, each beside an `analyze` of the same campaign (interleaved,
the order alternating, so both see the same machine); then the queries of
docs/compare-and-datasets.md over the 1,000 campaigns in DuckDB, and in Spark and Polars
where their Pythons are given. Prints the time per
campaign of both and their ratio, the dataset's size, and each query's time (median of
--repeat runs, each on a fresh connection). Also one `dataset add` of all campaigns at
once.

Usage: python3 bench/dataset.py [--campaigns N] [--repeat R] [--python PY]
                                [--spark-python PY] [--polars-python PY]
  PY: a Python with the duckdb package (default: $REPROBENCH_DUCKDB_PYTHON or python3);
  with pyspark ($REPROBENCH_SPARK_PYTHON), with polars ($REPROBENCH_POLARS_PYTHON).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import run as bench_run  # noqa: E402  (the archives and the build, shared)


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def size(path):
    files, total = 0, 0
    for d, _, names in os.walk(path):
        for n in names:
            files += 1
            total += os.path.getsize(os.path.join(d, n))
    return files, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--campaigns", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--python", default=os.environ.get("REPROBENCH_DUCKDB_PYTHON", "python3"))
    ap.add_argument("--spark-python", default=os.environ.get("REPROBENCH_SPARK_PYTHON"),
                    help="a Python with pyspark: the queries in Spark SQL too")
    ap.add_argument("--polars-python", default=os.environ.get("REPROBENCH_POLARS_PYTHON"),
                    help="a Python with polars: the queries in Polars too")
    ap.add_argument("--all-engines-uncompacted", action="store_true",
                    help="also query the dataset as added (before compaction) in Spark and Polars")
    a = ap.parse_args()

    tgt = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/reprobench/target"))
    os.environ["CARGO_TARGET_DIR"] = tgt
    bench_run.sh(["cargo", "build", "--release", "--locked", "--bin", "reprobench"], cwd=ROOT)
    ours = os.path.join(tgt, "release", "reprobench")
    base = bench_run.archives(1.0, False)
    reference = os.path.join(base, "reference")
    gen = os.path.join(base, f"campaigns-{a.campaigns}")
    if not os.path.isdir(gen):
        print(f"generating {a.campaigns} campaigns in {gen} ...", file=sys.stderr)
        tmp = gen + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        with open(os.devnull, "w") as null:
            subprocess.run([sys.executable, os.path.join(HERE, "campaigns.py"), reference, tmp, str(a.campaigns)],
                           check=True, stdout=null)
        os.replace(tmp, gen)
    campaigns = sorted(os.path.join(gen, n) for n in os.listdir(gen))
    bench_run.warm(gen)
    files, total = size(campaigns[0])
    print(f"campaign shape: {files} files, {total / 1e6:.1f} MB (the reference archive, ADP fio results varied)")

    work = tempfile.mkdtemp(prefix="reprobench-dataset-bench-")
    ds = os.path.join(work, "fleet")
    t_analyze, t_add = [], []
    for i, c in enumerate(campaigns):
        an = lambda: timed([ours, "analyze", c, "--format", "json"])  # noqa: E731
        ad = lambda: timed([ours, "dataset", "add", ds, c])  # noqa: E731
        if i % 2 == 0:
            t_analyze.append(an())
            t_add.append(ad())
        else:
            t_add.append(ad())
            t_analyze.append(an())
    ma, md = statistics.median(t_analyze), statistics.median(t_add)
    print(f"per campaign (median of {len(campaigns)}, one process each): analyze {ma * 1000:.1f} ms, "
          f"dataset add {md * 1000:.1f} ms: {md / ma:.2f}x analyze")
    dfiles, dbytes = size(ds)
    print(f"dataset: {len(campaigns)} campaigns, {dfiles} files, {dbytes / 1e6:.1f} MB "
          f"({dbytes / len(campaigns) / 1e3:.1f} kB per campaign)")

    batch = os.path.join(work, "batch")
    tb = timed([ours, "dataset", "add", batch] + campaigns)
    ta = timed([ours, "analyze"] + campaigns + ["--format", "json"])
    print(f"all at once (one process): dataset add {tb:.2f} s ({tb / len(campaigns) * 1000:.1f} ms per campaign), "
          f"analyze {ta:.2f} s ({ta / len(campaigns) * 1000:.1f} ms per campaign): {tb / ta:.2f}x")

    engines = [("duckdb", a.python, "fresh connection each")]
    if a.spark_python:
        engines.append(("spark", a.spark_python, "one local[2] session, views registered anew each"))
    if a.polars_python:
        engines.append(("polars", a.polars_python, "scans made anew each"))

    def query(engine, py, how, what):
        out = subprocess.run([py, os.path.join(HERE, "queries.py"), os.path.join(ROOT, "docs", "compare-and-datasets.md"), ds,
                              "--engine", engine, "--repeat", str(a.repeat)], check=True, capture_output=True, text=True)
        q = json.loads(out.stdout)
        print(f"Documented queries in {engine} over {len(campaigns)} campaigns {what} (median of {a.repeat}; first run {how}):")
        for name, r in q.items():
            print(f"  {name}: {statistics.median(r['seconds']) * 1000:.0f} ms, first {r['seconds'][0] * 1000:.0f} ms "
                  f"({len(r['rows'])} rows)")
        return {name: r["rows"] for name, r in q.items()}

    # As added (a segment per campaign), in DuckDB only unless --all-engines-uncompacted
    # (Spark takes minutes over thousands of files); then compacted, in every engine.
    answers = {}
    for engine, py, how in engines:
        if engine == "duckdb" or a.all_engines_uncompacted:
            answers[engine] = query(engine, py, how, f"as added ({dfiles} files)")
    tc = timed([ours, "dataset", "compact", ds])
    cfiles, cbytes = size(ds)
    print(f"dataset compact: {tc:.2f} s; now {cfiles} files, {cbytes / 1e6:.1f} MB")
    tc2 = timed([ours, "dataset", "compact", ds])
    print(f"dataset compact again (nothing to do): {tc2 * 1000:.0f} ms")
    for engine, py, how in engines:
        got = query(engine, py, how, f"compacted ({cfiles} files)")
        if engine in answers:
            same = all(_close(got[k], answers[engine][k]) for k in answers[engine])
            print(f"  {engine}: the same answers as before compaction: {same}")
    shutil.rmtree(work, ignore_errors=True)


def _close(a, b):
    """Rows equal, numbers to 1e-9 relative (engines' medians differ in the last bit)."""
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return a == b


if __name__ == "__main__":
    main()
