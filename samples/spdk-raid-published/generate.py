#!/usr/bin/env python3
"""Builds this sample from the SPDK RAID article's published tables (reports/spdk-raid.toml).

Nothing here was measured. Each run is a real fio 3.33 JSON document (a run made with
fio here, used as a template) with the published IOPS / GB/s, average and p99.9 latency
put in, and options as the article's job files set them (ioengine=spdk_bdev, [global]).
SPDK configs are written by `reprobench spdk config` (set REPROBENCH to the binary).
Run from this folder: `python3 generate.py`.
"""
import copy, json, os, subprocess, tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
TEMPLATE = os.path.join(ROOT, "tests", "fixtures", "fio", "procedure", "raid10", "randread-8k-j2-d4.json")
REF = tomllib.load(open(os.path.join(ROOT, "reports", "spdk-raid.toml"), "rb"))
ADDRS = ["0000:02:00.0", "0000:45:00.0", "0000:03:00.0", "0000:81:00.0", "0000:84:00.0", "0000:41:00.0",
         "0000:46:00.0", "0000:44:00.0", "0000:43:00.0", "0000:82:00.0", "0000:48:00.0", "0000:47:00.0",
         "0000:83:00.0", "0000:42:00.0", "0000:01:00.0", "0000:04:00.0"]
BIN = os.environ.get("REPROBENCH", os.path.join(ROOT, "target", "debug", "reprobench"))
# The article's job files: small random I/O runs 900 s, full-stripe runs 60 s.
SMALL_RUNTIME_MS, STRIPE_RUNTIME_MS = 900000, 60000


def size(bs):
    return int(bs[:-1]) * 1024


def job_name(rw, bs, nj, qd, mix):
    return f"{rw}{mix if rw == 'randrw' else ''}-{bs}-j{nj}-d{qd}"


def fio_doc(t, array, drives, rw, bs, nj, qd, mix, sides, error=0):
    doc = copy.deepcopy(t)
    filename = ":".join(f"nvme{i}n1" for i in range(drives)) if array == "raw" else "raid5"
    opts = {"ioengine": "spdk_bdev", "spdk_json_conf": f"/home/xinnor/spdk/{array}-{drives}/config.json",
            "thread": "1", "group_reporting": "1", "direct": "1", "verify": "0", "time_based": "1",
            "ramp_time": "0", "runtime": "900" if rw.startswith("rand") else "60", "iodepth": str(qd),
            "rw": rw, "bs": bs, "norandommap": "", "random_generator": "tausworthe64", "numjobs": str(nj)}
    if mix is not None:
        opts["rwmixread"] = str(mix)
    if rw in ("read", "write"):
        opts["offset_increment"] = "15%"
    doc["global options"] = opts
    j = doc["jobs"][0]
    name = job_name(rw, bs, nj, qd, mix)
    j["jobname"] = name
    j["job options"] = {"filename": filename}
    j["error"] = error
    runtime_ms = SMALL_RUNTIME_MS if rw.startswith("rand") else STRIPE_RUNTIME_MS
    j["job_runtime"] = runtime_ms * nj
    for ddir in ("read", "write"):
        d = j[ddir]
        iops, avg_us, p999_us = sides.get(ddir, (0, None, None))
        ios = round(iops * runtime_ms / 1000)
        d.update({"io_bytes": ios * size(bs), "io_kbytes": ios * size(bs) // 1024,
                  "bw_bytes": round(iops * size(bs)), "bw": round(iops * size(bs)) // 1024,
                  "iops": float(iops), "runtime": runtime_ms if iops else 0, "total_ios": ios,
                  "short_ios": 0, "drop_ios": 0})
        for key in ("slat_ns", "clat_ns", "lat_ns"):
            blk = d[key]
            blk.pop("percentile", None)
            mean = (avg_us or 0) * 1000.0
            blk.update({"min": 0, "max": 0, "mean": round(mean * (0.02 if key == "slat_ns" else 0.98 if key == "clat_ns" else 1.0), 3),
                        "stddev": 0.0, "N": ios})
        if p999_us:
            d["clat_ns"]["percentile"] = {"99.900000": int(p999_us * 1000)}
        for k in ("bw_min", "bw_max", "bw_agg", "bw_mean", "bw_dev", "bw_samples", "iops_min", "iops_max",
                  "iops_mean", "iops_stddev", "iops_samples"):
            d.pop(k, None)
    doc["disk_util"] = []
    doc["timestamp"] = doc["timestamp_ms"] = 0
    doc["time"] = "published figures, not a run"
    return name, doc


def write(rel, text):
    p = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


def main():
    t = json.load(open(TEMPLATE))
    arrays = set()
    for r in REF["row"]:
        arrays.add((r["array"], r["drives"]))
        if "gbps" in r:
            iops = r["gbps"] * 1e9 / size(r["bs"])
            sides = {"read" if r["rw"] == "read" else "write": (iops, None, None)}
        else:
            sides = {"write" if r["rw"] == "randwrite" else "read": (r["iops"], r.get("avg_us"), r.get("p999_us"))}
            if r["rw"] == "randrw":
                sides["write"] = (r["write_iops"], r.get("write_avg_us"), r.get("write_p999_us"))
        name, doc = fio_doc(t, r["array"], r["drives"], r["rw"], r["bs"], r["numjobs"], r["iodepth"], r.get("rwmixread"), sides)
        write(f"spdk/{r['array']}-{r['drives']}/{name}.json", json.dumps(doc, indent=2, separators=(",", " : ")) + "\n")
    # raid5f refuses sub-stripe writes: the article prints "-"; fio's real behaviour is
    # error 5 with nothing written and its io_u error lines before the JSON.
    for drives, stripe in ((8, "448k"), (16, "960k")):
        name, doc = fio_doc(t, "raid5f", drives, "randwrite", "8k", 16, 32, None, {}, error=5)
        lines = "".join(f"fio: io_u error on file raid5: Input/output error: write offset={o * 8192}, buflen=8192\n" for o in range(3))
        write(f"spdk/raid5f-{drives}/{name}.json", lines + json.dumps(doc, indent=2, separators=(",", " : ")) + "\n")
    # Degraded raid5f (2023): detaching one drive stopped all I/O.
    for rw, bs, nj, qd in (("randread", "8k", 16, 32), ("read", "448k", 1, 16)):
        name, doc = fio_doc(t, "raid5f", 8, rw, bs, nj, qd, None, {}, error=5)
        lines = f"fio: io_u error on file raid5: Input/output error: read offset=0, buflen={size(bs)}\n"
        write(f"spdk/raid5f-8/degraded/{name}.json", lines + json.dumps(doc, indent=2, separators=(",", " : ")) + "\n")
    for array, drives in sorted(arrays):
        raid = {"raw": "none", "raid5f": "raid5f", "xinnor": "xinnor:5"}[array]
        out = os.path.join(HERE, f"spdk/{array}-{drives}/config.json")
        subprocess.run([BIN, "spdk", "config", "--pcie", ",".join(ADDRS[:drives]), "--raid", raid, "-o", out], check=True)
    # The article's bdev_raid_get_bdevs listing (raid5f, 16 drives, 2023 format).
    listing = [{"name": "raid5", "strip_size_kb": 64, "state": "online", "raid_level": "raid5f",
                "num_base_bdevs": 16, "num_base_bdevs_discovered": 16,
                "base_bdevs_list": [f"nvme{i}n1" for i in range(16)]}]
    write("spdk/raid5f-16/bdev_raid_get_bdevs.json", json.dumps(listing, indent=2) + "\n")


if __name__ == "__main__":
    main()
