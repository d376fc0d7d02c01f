#!/usr/bin/env python3
"""Writes the benchmark's two archives, deterministically (fixed seed).

reference: the archive the speed target is stated for (126 fio runs with iostat, 24
  ladder levels; about 358 files, 4 MB): the storage sweep's 63 configurations on both
  arrays (raid10, adp), each a fio JSON with an `iostat -xm 1` log beside it (10 samples
  of five devices), the KV ladder for 2 variants x 2 runs x 6 levels (1-32 clients) with
  about 17 requests per client per level, the client's log and /metrics snapshots
  before and after each level, the servers' logs and the system outputs.
reference-full: the same with the procedure's full iostat logs (60 s at 1 s: 60 samples)
  and vLLM-sized /metrics snapshots (all histograms): about 15 MB.
large: about 10,000 fio results (a third json+ with about 2,500 latency bins per
  direction, a fifth with 40 jobs per file and no group_reporting) over 40 arrays, and
  200 ladder levels: about 1 GB.

The fio files start from real fio 3.33 output (tests/fixtures/fio), with their options and
numbers changed; the client logs from a real multi-turn client run. Nothing here is a
measurement: the numbers only need the shape and the size of real ones.

Usage: generate.py OUT [--only reference|large] [--scale F]
"""

import argparse
import copy
import json
import os
import random
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIX = os.path.join(ROOT, "tests", "fixtures")


def load(rel):
    with open(os.path.join(FIX, rel)) as f:
        return json.load(f)


PLAIN = load("fio/procedure/adp/randread-8k-j2-d4.json")
PLUS = load("fio/json-plus.json")
MULTI = load("fio/numjobs-no-group.json")
SWEEP = tomllib.load(open(os.path.join(ROOT, "reports", "storage-sweep.toml"), "rb"))
with open(os.path.join(FIX, "kv-ladder-client", "results", "adp-1-L1.log")) as f:
    CLIENT_LOG = f.read()

BS = {"8k": 8192, "16k": 16384, "1m": 1 << 20, "128k": 131072}


def dump(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        # fio's own layout: two-space indent, " : " between key and value.
        f.write(json.dumps(doc, indent=2).replace('": ', '" : '))
        f.write("\n")


def scale_dir(d, rng, iops, bs, runtime_ms):
    """Fills one direction of a job with consistent numbers."""
    if iops <= 0:
        for k in ("io_bytes", "io_kbytes", "bw_bytes", "bw", "total_ios"):
            d[k] = 0
        d["iops"] = 0.0
        d["runtime"] = 0
        return
    ios = int(iops * runtime_ms / 1000)
    d["io_bytes"] = ios * bs
    d["io_kbytes"] = d["io_bytes"] // 1024
    d["bw_bytes"] = int(d["io_bytes"] * 1000 / runtime_ms)
    d["bw"] = d["bw_bytes"] // 1024
    d["iops"] = iops
    d["runtime"] = runtime_ms
    d["total_ios"] = ios
    base = rng.uniform(80_000, 900_000)
    for block in ("clat_ns", "lat_ns"):
        if block not in d:
            continue
        b = d[block]
        b["mean"] = base
        b["min"] = int(base / 8)
        b["max"] = int(base * 40)
        b["N"] = ios
        if "percentile" in b:
            keys = list(b["percentile"].keys())
            for i, k in enumerate(keys):
                b["percentile"][k] = int(base * (0.3 + 2.5 * i / max(1, len(keys) - 1)))
        if "bins" in b:
            # A minute of json+ output at high IOPS holds about 2,500 latency bins per direction.
            bins = {}
            lo = int(base / 8)
            for i in range(2500):
                bins[str(lo + i * 512)] = rng.randint(1, 5000)
            b["bins"] = bins


def fio_doc(template, name, rw, bs, numjobs, iodepth, runtime, rng, ioengine="libaio", jobs=1):
    doc = copy.deepcopy(template)
    g = doc.setdefault("global options", {})
    g.update(
        {
            "rw": rw,
            "bs": bs,
            "numjobs": str(numjobs),
            "iodepth": str(iodepth),
            "size": SWEEP["size"],
            "runtime": str(runtime),
            "ioengine": ioengine,
            "direct": "1",
            "filename": "/dev/md126",
        }
    )
    if rw in ("randrw", "rw"):
        g["rwmixread"] = str(SWEEP["rwmixread"])
    base_job = doc["jobs"][0]
    doc["jobs"] = []
    nbytes = BS.get(bs, 8192)
    total = rng.uniform(20_000, 900_000) if nbytes < 100_000 else rng.uniform(2_000, 30_000)
    read_share = {"randread": 1.0, "read": 1.0, "randwrite": 0.0, "write": 0.0}.get(rw, 0.7)
    for j in range(jobs):
        job = copy.deepcopy(base_job)
        job["jobname"] = name
        job["job options"] = {"name": name}
        per = total / jobs
        scale_dir(job["read"], rng, per * read_share, nbytes, runtime * 1000)
        scale_dir(job["write"], rng, per * (1 - read_share), nbytes, runtime * 1000)
        job["usr_cpu"] = rng.uniform(1, 8)
        job["sys_cpu"] = rng.uniform(5, 40)
        job["job_runtime"] = runtime * 1000 * numjobs
        doc["jobs"].append(job)
    return doc


IOSTAT_HEADER = (
    "Device            r/s     rMB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wMB/s   "
    "wrqm/s  %wrqm w_await wareq-sz     d/s     dMB/s   drqm/s  %drqm d_await dareq-sz     "
    "f/s f_await  aqu-sz  %util"
)


def iostat_log(devices, samples, rng):
    out = ["Linux 6.1.0-27-amd64 (bench01) \t11/30/26 \t_x86_64_\t(64 CPU)", ""]
    for _ in range(samples + 1):
        u = rng.uniform(5, 60)
        s = rng.uniform(2, 30)
        out.append("avg-cpu:  %user   %nice %system %iowait  %steal   %idle")
        out.append(
            f"          {u:6.2f}    0.00  {s:6.2f}    {rng.uniform(0, 5):4.2f}    0.00  {100 - u - s:6.2f}"
        )
        out.append("")
        out.append(IOSTAT_HEADER)
        for d in devices:
            r = rng.uniform(0, 500_000)
            w = rng.uniform(0, 200_000)
            vals = [
                r, r * 8 / 1024, 0, 0, rng.uniform(0.05, 2), 8.0,
                w, w * 8 / 1024, 0, 0, rng.uniform(0.05, 3), 8.0,
                0, 0, 0, 0, 0, 0, 0, 0, rng.uniform(0, 64), rng.uniform(10, 100),
            ]
            out.append(f"{d:<13}" + " ".join(f"{v:8.2f}" for v in vals))
        out.append("")
        out.append("")
    return "\n".join(out) + "\n"


def sweep():
    """The 63 runs of reports/storage-sweep.toml: (name, rw, bs, numjobs, iodepth, engine)."""
    runs = []
    for bs in SWEEP["block_sizes"]:
        kinds = SWEEP["sequential"] if bs == "1m" else SWEEP["random"]
        for rw in kinds:
            for d in SWEEP["depth"]:
                writes = rw in ("randwrite", "write", "randrw", "rw")
                nj = d.get("writes_numjobs", d["numjobs"]) if writes else d["numjobs"]
                io = d.get("writes_iodepth", d["iodepth"]) if writes else d["iodepth"]
                runs.append((f"{rw}-{bs}-j{nj}-d{io}", rw, bs, nj, io, d.get("ioengine", "libaio")))
    return runs


PROM_METRICS = [
    "vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:gpu_cache_usage_perc",
    "vllm:prompt_tokens_total", "vllm:generation_tokens_total", "vllm:request_success_total",
    "vllm:num_preemptions_total",
]
HISTOGRAMS = [
    "vllm:time_to_first_token_seconds", "vllm:time_per_output_token_seconds",
    "vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds",
    "vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds",
    "vllm:request_prompt_tokens", "vllm:request_generation_tokens",
    "vllm:iteration_tokens_total", "vllm:request_inference_time_seconds",
]
BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
           7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0, "+Inf"]


def prom(counters, model, rng, histograms=None):
    """A /metrics snapshot (vLLM's size with all histograms)."""
    lab = f'engine="0",model_name="{model}"'
    out = []
    for m in PROM_METRICS:
        out.append(f"# HELP {m} {m}.")
        out.append(f"# TYPE {m} counter")
        out.append(f"{m}{{{lab}}} {rng.uniform(0, 1e6):.1f}")
    for name, value in counters.items():
        out.append(f"# HELP {name} Prefix cache counter.")
        out.append(f"# TYPE {name} counter")
        out.append(f"{name}{{{lab}}} {value:.1f}")
    for h in HISTOGRAMS[:histograms]:
        out.append(f"# HELP {h} Histogram.")
        out.append(f"# TYPE {h} histogram")
        c = 0
        for b in BUCKETS:
            c += rng.randint(0, 50)
            out.append(f'{h}_bucket{{{lab},le="{b}"}} {c:.1f}')
        out.append(f"{h}_sum{{{lab}}} {rng.uniform(0, 1e4):.3f}")
        out.append(f"{h}_count{{{lab}}} {c:.1f}")
    return "\n".join(out) + "\n"


def ladder_level(root, variant, run, clients, rng, totals, histograms=None):
    base = os.path.join(root, "results", f"{variant}-{run}-L{clients}")
    os.makedirs(os.path.dirname(base), exist_ok=True)
    per_client = 17
    t = rng.uniform(1e5, 1e6)
    records = []
    for c in range(clients):
        start = t + rng.uniform(0, 500)
        for i in range(per_client):
            lat = rng.uniform(2000, 30000)
            records.append(
                {
                    "ttft_ms": rng.uniform(100, 4000),
                    "tpot_ms": rng.uniform(8, 60),
                    "latency_ms": lat,
                    "start_time_ms": start,
                    "input_num_turns": 2 * i + 1,
                    "input_num_tokens": rng.randint(8000, 120000),
                    "output_num_tokens": rng.randint(100, 400),
                    "output_num_chunks": 100,
                    "output_num_first_chunk_tokens": 1,
                    "approx_cached_percent": rng.uniform(0, 100),
                    "conversation_id": f"CONV_ID_{c}_{i}",
                    "client_id": c,
                }
            )
            start += lat + rng.uniform(0, 200)
    with open(base + ".json", "w") as f:
        json.dump(records, f, indent=2)
    log = CLIENT_LOG.replace("num_clients=1", f"num_clients={clients}")
    done = "".join(
        f"30-11-2026 00:30:19 [INFO] - \x1b[96mClient {c} is done (num_successes={per_client}, num_failures=0)\x1b[0m\n"
        for c in range(1, clients)
    )
    with open(base + ".log", "w") as f:
        f.write(log + done)
    names = [
        "vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total",
        "vllm:external_prefix_cache_queries_total", "vllm:external_prefix_cache_hits_total",
    ]
    for n in names:
        totals.setdefault(n, rng.uniform(1e6, 1e7))
    with open(base + ".pre.prom", "w") as f:
        f.write(prom(totals, "glm-5.3", rng, histograms))
    q = clients * per_client * 60000.0
    totals["vllm:prefix_cache_queries_total"] += q
    totals["vllm:prefix_cache_hits_total"] += q * 0.8
    totals["vllm:external_prefix_cache_queries_total"] += q * 0.2
    totals["vllm:external_prefix_cache_hits_total"] += q * 0.15 if variant == "adp" else 0
    with open(base + ".post.prom", "w") as f:
        f.write(prom(totals, "glm-5.3", rng, histograms))


SYSTEM = {
    "lsblk.txt": "NAME     SIZE TYPE MODEL\nnvme0n1  3.5T disk SAMSUNG MZQL23T8HCLS\n",
    "nvme-list.txt": "Node  SN  Model\n/dev/nvme0n1  S64  SAMSUNG MZQL23T8HCLS\n",
    "uname.txt": "Linux bench01 6.1.0-27-amd64 #1 SMP x86_64 GNU/Linux\n",
    "lscpu.txt": "Architecture: x86_64\nCPU(s): 64\n",
    "free.txt": "Mem: 1007 12 990\n",
    "fio-version.txt": "fio-3.33\n",
    "sysstat-version.txt": "sysstat version 12.6.1\n",
}


def reference(out, rng, samples=10, histograms=2):
    for name, text in SYSTEM.items():
        os.makedirs(os.path.join(out, "system"), exist_ok=True)
        with open(os.path.join(out, "system", name), "w") as f:
            f.write(text)
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    for variant in ("adp", "gpu-only"):
        with open(os.path.join(out, "logs", f"{variant}-vllm.log"), "w") as f:
            f.write(
                "INFO 11-29 10:00:01 [api_server.py:1831] vLLM API server version 0.28.0\n"
                "INFO 11-29 10:00:01 [utils.py:326] non-default args: {'model': '/models/GLM-5.3-FP8', "
                "'served_model_name': ['glm-5.3'], 'tensor_parallel_size': 8, 'max_model_len': 256000}\n"
                "(EngineCore pid=412) INFO 11-29 10:02:11 [kv_cache_utils.py:1147] GPU KV cache size: "
                "545,536 tokens, Maximum concurrency for 256,000 tokens per request: 2.13x\n"
            )
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"model": "glm-5.3", "note": "benchmark archive, not a measurement"}, f)
    for array, devices in (
        ("raid10", ["nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1", "md126"]),
        ("adp", ["nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1", "pliops0"]),
    ):
        d = os.path.join(out, "results", array)
        for name, rw, bs, nj, io, engine in sweep():
            dump(os.path.join(d, name + ".json"), fio_doc(PLAIN, name, rw, bs, nj, io, 60, rng, engine))
            os.makedirs(os.path.join(d, "iostat"), exist_ok=True)
            with open(os.path.join(d, "iostat", name + ".iostat"), "w") as f:
                f.write(iostat_log(devices, samples, rng))
    for variant in ("adp", "gpu-only"):
        for run in (1, 2):
            totals = {}
            for clients in (1, 2, 4, 8, 16, 32):
                ladder_level(out, variant, run, clients, rng, totals, histograms)


def large(out, rng, scale):
    files = int(10_000 * scale)
    arrays = 40
    per = max(1, files // arrays)
    shapes = sweep()
    for a in range(arrays):
        d = os.path.join(out, "results", f"array{a:02d}")
        for i in range(per):
            name, rw, bs, nj, io, engine = shapes[i % len(shapes)]
            name = f"{name}-r{i // len(shapes)}"
            kind = rng.random()
            if kind < 0.33:
                doc = fio_doc(PLUS, name, rw, bs, nj, io, 60, rng, engine)
            elif kind < 0.53:
                doc = fio_doc(MULTI, name, rw, bs, nj, io, 60, rng, engine, jobs=40)
                doc["global options"].pop("group_reporting", None)
            else:
                doc = fio_doc(PLAIN, name, rw, bs, nj, io, 60, rng, engine)
            dump(os.path.join(d, name + ".json"), doc)
    levels = int(200 * scale)
    n = 0
    for variant in ("adp", "gpu-only", "lmcache", "adp2", "gpu-only2"):
        for run in range(1, 100):
            totals = {}
            for clients in (1, 2, 4, 8, 16, 32, 64, 128):
                if n >= levels:
                    return
                ladder_level(out, variant, run, clients, rng, totals)
                n += 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--only", choices=["reference", "reference-full", "large"])
    p.add_argument("--scale", type=float, default=1.0)
    a = p.parse_args()
    if a.only in (None, "reference"):
        reference(os.path.join(a.out, "reference"), random.Random(1))
    if a.only in (None, "reference-full"):
        reference(os.path.join(a.out, "reference-full"), random.Random(1), 60, None)
    if a.only in (None, "large"):
        large(os.path.join(a.out, "large"), random.Random(2), a.scale)


if __name__ == "__main__":
    main()
