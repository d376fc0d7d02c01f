#!/usr/bin/env python3
"""Builds this sample from the procedure's published figures.

Every fio JSON file is a real fio 3.33 document (TEMPLATE below: a run made
with the procedure's helper) with its numbers replaced by the published ones. Run from
this folder: `python3 generate.py`. See README.md for what is published and what is not.
"""
import copy, json, os

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, "..", "..", "tests", "fixtures", "fio", "procedure", "raid10", "randread-8k-j2-d4.json")
RUNTIME_MS = 60000
DEV = {"raid10": "/dev/md126", "adp": "/dev/nvme4n1"}
DRIVES = ["nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"]

# name, rw, bs bytes, numjobs, iodepth, rwmixread, raid10 MB/s, adp MB/s, mean latency us (raid10, adp) or None
JOBS = [
    ("randread-8k-j32-d32", "randread", 8192, 32, 32, None, 16851, 19589, None),
    ("randrw-8k-j128-d8", "randrw", 8192, 128, 8, 70, 3162, 13224, None),
    ("randwrite-8k-j8-d8", "randwrite", 8192, 8, 8, None, 1082, 6934, (458, 71)),
    ("read-1m-j8-d4", "read", 1 << 20, 8, 4, None, 26192, 29510, None),
    ("write-1m-j8-d4", "write", 1 << 20, 8, 4, None, 5066, 7400, None),
]
# Queue depth 1 read: published as latency only (70 us vs 111 us); bandwidth follows from it.
QD1 = ("randread-8k-j1-d1", "randread", 8192, 1, 1, None, (70, 111))
# "ADP uses about half the host system CPU at the same IOPS" (random read).
RANDREAD_SYSTEM_CPU = {"raid10": 24.0, "adp": 24.0 * 0.5 * 19589 / 16851}


def fio_doc(template, array, name, rw, bs, numjobs, iodepth, mix, mb_s, lat_us):
    doc = copy.deepcopy(template)
    opts = {
        "random_generator": "tausworthe64", "per_job_logs": "0", "buffer_compress_chunk": "4096",
        "buffer_compress_percentage": "67", "refill_buffers": "1", "direct": "1",
        "group_reporting": "1", "randrepeat": "0", "norandommap": "1",
        "ioengine": "sync" if numjobs * iodepth == 1 else "libaio",
        "readwrite": rw, "bs": "8k" if bs == 8192 else "1m", "numjobs": str(numjobs),
        "iodepth": str(iodepth), "size": "3800000000000", "runtime": "60", "filename": DEV[array],
    }
    if mix is not None:
        opts["rwmixread"] = str(mix)
    doc["global options"] = opts
    job = doc["jobs"][0]
    job["jobname"] = name
    job["job options"] = {"name": name}
    job["job_runtime"] = RUNTIME_MS * numjobs
    job["elapsed"] = 61
    bw_total = mb_s * 1_000_000
    iops_total = bw_total / bs
    qd = numjobs * iodepth
    read_share = {"randread": 1.0, "read": 1.0, "randrw": (mix or 50) / 100}.get(rw, 0.0)
    for ddir, share in (("read", read_share), ("write", 1.0 - read_share)):
        d = job[ddir]
        bw = round(bw_total * share)
        ios = round(iops_total * share * RUNTIME_MS / 1000)
        d["io_bytes"] = ios * bs
        d["io_kbytes"] = ios * bs // 1024
        d["bw_bytes"] = bw
        d["bw"] = bw // 1024
        d["iops"] = round(iops_total * share, 6)
        d["runtime"] = RUNTIME_MS if share else 0
        d["total_ios"] = ios
        d["short_ios"] = d["drop_ios"] = 0
        # Mean latency: the published value where there is one, else Little's law
        # (queue depth / IOPS). No percentile is published for these runs: none is made up.
        mean_ns = 0.0
        if share:
            mean_ns = (lat_us[0 if array == "raid10" else 1] * 1000.0) if lat_us else qd / iops_total * 1e9
        for key in ("slat_ns", "clat_ns", "lat_ns"):
            blk = d[key]
            blk.pop("percentile", None)
            n = ios if share else 0
            part = 0.02 if key == "slat_ns" else (0.98 if key == "clat_ns" else 1.0)
            blk.update({"min": 0, "max": 0, "mean": round(mean_ns * part, 6), "stddev": 0.0, "N": n})
        for key in ("bw_min", "bw_max", "bw_agg", "bw_mean", "bw_dev", "bw_samples",
                    "iops_min", "iops_max", "iops_mean", "iops_stddev", "iops_samples"):
            d.pop(key, None)
    job["usr_cpu"] = 1.0
    job["sys_cpu"] = RANDREAD_SYSTEM_CPU[array] if name.startswith("randread-8k-j32") else 5.0
    job.pop("disk_util", None)
    doc["disk_util"] = []
    doc["timestamp"] = 0
    doc["timestamp_ms"] = 0
    doc["time"] = "published figures, not a run"
    return doc


def iostat_log(array, rw, mb_s, mix, w_await_ms, system_cpu, samples=10):
    lines = ["Linux 6.8.0-published (reference-setup) \t01/01/26 \t_x86_64_\t(64 CPU)", ""]
    header = ("Device            r/s     rMB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wMB/s   wrqm/s  %wrqm "
              "w_await wareq-sz     d/s     dMB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util")
    read_share = {"randread": 1.0, "read": 1.0, "randrw": (mix or 50) / 100}.get(rw, 0.0)
    # Throughput per drive, spread evenly over the four drives. RAID10 writes every block
    # twice; the published figures do not say how the card writes, so ADP's drive writes
    # equal the host's.
    write_factor = 2.0 if array == "raid10" else 1.0
    r_mb = mb_s * read_share / len(DRIVES) / 1.048576
    w_mb = mb_s * (1 - read_share) * write_factor / len(DRIVES) / 1.048576
    for block in range(samples + 1):
        since_boot = block == 0
        cpu = 0.5 if since_boot else system_cpu
        lines += ["avg-cpu:  %user   %nice %system %iowait  %steal   %idle",
                  f"{1.0:15.2f}{0.0:8.2f}{cpu:8.2f}{0.0:8.2f}{0.0:8.2f}{99.0 - cpu:8.2f}", "", header]
        f = 0.01 if since_boot else 1.0
        rows = [(d, r_mb * f, w_mb * f) for d in DRIVES]
        if array == "raid10":
            rows.append(("md126", r_mb * 4 * f, w_mb * 4 / write_factor * f))
        for dev, r, w in rows:
            rs, ws = r * 128, w * 128
            wa = w_await_ms if w else 0.0
            vals = [rs, r, 0, 0, 0.1, 8, ws, w, 0, 0, wa, 8, 0, 0, 0, 0, 0, 0, 0, 0, 1, 90 if not since_boot else 1]
            lines.append(f"{dev:<12}" + " ".join(f"{v:9.2f}" for v in vals))
        lines.append("")
        lines.append("")
    return "\n".join(lines)


# What `cat /proc/mdstat` prints for the RAID10 array (the procedure's check before fio
# runs); it is what says which drives are the array's members.
MDSTAT = """Personalities : [raid10]
md126 : active raid10 nvme3n1[3] nvme2n1[2] nvme1n1[1] nvme0n1[0]
      7501211648 blocks super 1.2 512K chunks 2 near-copies [4/4] [UUUU]
      bitmap: 0/56 pages [0KB], 65536KB chunk

unused devices: <none>
"""


def main():
    template = json.load(open(TEMPLATE))
    os.makedirs(os.path.join(HERE, "results", "system"), exist_ok=True)
    with open(os.path.join(HERE, "results", "system", "mdstat.txt"), "w") as f:
        f.write(MDSTAT)
    for i, array in enumerate(("raid10", "adp")):
        out = os.path.join(HERE, "results", array)
        os.makedirs(os.path.join(out, "iostat"), exist_ok=True)
        jobs = [(n, rw, bs, nj, d, mix, (mb_r, mb_a)[i], lat) for n, rw, bs, nj, d, mix, mb_r, mb_a, lat in JOBS]
        name, rw, bs, nj, d, mix, lat = QD1
        jobs.append((name, rw, bs, nj, d, mix, bs / (lat[i] * 1e-6) / 1e6, lat))
        for name, rw, bs, nj, d, mix, mb_s, lat in jobs:
            doc = fio_doc(template, array, name, rw, bs, nj, d, mix, mb_s, lat)
            with open(os.path.join(out, f"{name}.json"), "w") as f:
                f.write(json.dumps(doc, indent=2, separators=(",", " : ")) + "\n")
            w_await = (lat[i] / 1000.0) if (lat and rw == "randwrite") else 0.1
            cpu = RANDREAD_SYSTEM_CPU[array] if name.startswith("randread-8k-j32") else 5.0
            with open(os.path.join(out, "iostat", f"{name}.iostat"), "w") as f:
                f.write(iostat_log(array, rw, mb_s, mix, w_await, cpu))


if __name__ == "__main__":
    main()
