"""An independent computation of the numbers the verdicts stand on, written from the
procedures' text (not from reprobench's code), for the differential test.

  python3 independent.py ladder DIR   -> JSON {"variant/clients": {metric: median}}
  python3 independent.py storage DIR  -> JSON {"raid10/job vs adp/job": ratio}

Ladder (test 2, "Read the results"): per level file results/<variant>-<run>-L<n>.json,
output tok/s = output tokens over the wall time from the first request's start to the
last one's end; TTFT p50 = median ttft_ms / 1000; gen tok/s = 1000 / median tpot_ms;
GPU hit = prefix-cache hits over queries between .pre.prom and .post.prom (none when a
counter fell: Prometheus counters only rise, so the server restarted). A level whose
client log shows failed requests, a traceback or an early stop feeds no median; medians
are statistics.median over the remaining runs.

Storage ("Read the storage results" and the pass criteria): MB/s = (read + write)
bw_bytes / 1e6 of the job, the ratio is adp over raid10 for each of the five headline
jobs the procedure names.
"""
import json, os, re, statistics, sys


def counters(path):
    s = {}
    if not os.path.exists(path):
        return None
    for line in open(path, errors="replace"):
        m = re.match(r'(vllm:prefix_cache_(?:queries|hits)_total)\{[^}]*\} (\S+)', line)
        if m:
            s[m[1]] = s.get(m[1], 0) + float(m[2])
    return s


def clean(log):
    if not os.path.exists(log):
        return True
    text = open(log, errors="replace").read()
    fails = sum(int(n) for n in re.findall(r"num_failures=(\d+)", text))
    return fails == 0 and "Traceback (most recent call last)" not in text \
        and "Sending termination signal to clients" not in text


def ladder(d):
    levels = {}
    res = os.path.join(d, "results")
    for f in sorted(os.listdir(res)):
        m = re.match(r"(.+)-(\d+)-L(\d+)\.json$", f)
        if not m or f.endswith(".pre.json"):
            continue
        variant, _, n = m[1], m[2], int(m[3])
        base = os.path.join(res, f[:-5])
        if not clean(base + ".log"):
            continue
        try:
            r = json.load(open(os.path.join(res, f)))
        except Exception:
            continue
        if not r:
            continue
        t0 = min(x["start_time_ms"] for x in r)
        t1 = max(x["start_time_ms"] + x["latency_ms"] for x in r)
        row = {
            "output_tok_s": sum(x["output_num_tokens"] for x in r) / ((t1 - t0) / 1000),
            "ttft_p50_s": statistics.median(x["ttft_ms"] for x in r) / 1000,
            "gen_tok_s": 1000 / statistics.median(x["tpot_ms"] for x in r),
        }
        pre, post = counters(base + ".pre.prom"), counters(base + ".post.prom")
        if pre is not None and post is not None:
            q = post.get("vllm:prefix_cache_queries_total", 0) - pre.get("vllm:prefix_cache_queries_total", 0)
            h = post.get("vllm:prefix_cache_hits_total", 0) - pre.get("vllm:prefix_cache_hits_total", 0)
            # Counters only rise: one that fell means the server restarted in between,
            # and the delta says nothing.
            if q > 0 and h >= 0:
                row["gpu_hit_pct"] = 100 * h / q
        levels.setdefault(f"{variant}/{n}", []).append(row)
    out = {}
    for k, rows in levels.items():
        out[k] = {}
        for m in ("output_tok_s", "ttft_p50_s", "gen_tok_s", "gpu_hit_pct"):
            v = [r[m] for r in rows if m in r]
            if v:
                out[k][m] = statistics.median(v)
    return out


HEADLINE = ["randwrite-8k-j8-d8", "randrw-8k-j128-d8", "randread-8k-j32-d32", "read-1m-j8-d4", "write-1m-j8-d4"]


def last_document(text):
    """fio's final JSON document (`--status-interval` writes one per interval, the last
    is the run's result); text around them is skipped."""
    dec, at, last = json.JSONDecoder(), 0, None
    while True:
        at = text.find("{", at)
        if at < 0:
            return last
        try:
            doc, end = dec.raw_decode(text, at)
        except ValueError:
            at += 1
            continue
        if isinstance(doc, dict) and "jobs" in doc:
            last = doc
        at = end


def mb_s(path):
    j = last_document(open(path).read())
    return sum(job[d].get("bw_bytes", 0) for job in j["jobs"] for d in ("read", "write")) / 1e6


def storage(d):
    out = {}
    res = os.path.join(d, "results")
    for job in HEADLINE:
        b, c = os.path.join(res, "raid10", job + ".json"), os.path.join(res, "adp", job + ".json")
        if os.path.exists(b) and os.path.exists(c):
            try:
                base, cand = mb_s(b), mb_s(c)
            except Exception:
                continue
            # A job that moved nothing did not run: no ratio of it.
            if base > 0 and cand > 0:
                out[job] = cand / base
    return out


if __name__ == "__main__":
    what, d = sys.argv[1], sys.argv[2]
    print(json.dumps(ladder(d) if what == "ladder" else storage(d)))
