#!/usr/bin/env python3
"""A stand-in for `docker run ... adp-bench-client` (vLLM's multi-turn benchmark client),
for testing collectors where no Docker engine exists. It sends a few real requests to
--url, then writes --stats-json-output records and logs `Client N is done` lines the way
the real client does. Bounded: 3 requests per client."""
import json, sys, time, urllib.request

argv = sys.argv[1:]
if "adp-bench-client" not in argv:
    sys.exit("fake docker: only `docker run ... adp-bench-client ...` is supported")
a = argv[argv.index("adp-bench-client") + 1:]
opt = lambda k, d=None: a[a.index(k) + 1] if k in a else d
url, clients, out = opt("--url"), int(opt("--num-clients", "1")), opt("--stats-json-output")
served = opt("--served-model-name", "glm-5.3")
level = json.load(open(opt("--input-file"))) if opt("--input-file") else {}
records = []
for client in range(clients):
    for k in range(3):
        words = 200 + 50 * k + 10 * client
        req = json.dumps({"model": served, "prompt": "word " * words, "max_tokens": 16}).encode()
        t0 = time.perf_counter()
        body = json.load(urllib.request.urlopen(urllib.request.Request(f"{url}/v1/completions", req, {"Content-Type": "application/json"}), timeout=10))
        dt = (time.perf_counter() - t0) * 1000
        records.append({"ttft_ms": dt * 0.3, "tpot_ms": dt * 0.7 / 15, "latency_ms": dt, "start_time_ms": t0 * 1000,
                        "input_num_turns": 1 + 2 * k, "input_num_tokens": body["usage"]["prompt_tokens"],
                        "output_num_tokens": body["usage"]["completion_tokens"], "output_num_chunks": 15,
                        "output_num_first_chunk_tokens": 1, "approx_cached_percent": 0.0,
                        "conversation_id": f"CONV_ID_{client}", "client_id": client})
    print(f"30-11-2026 00:28:19 [INFO] - \x1b[96mClient {client} is done (num_successes=3, num_failures=0)\x1b[0m", file=sys.stderr)
print(f"Statistics summary:\nruntime_sec = {sum(r['latency_ms'] for r in records) / 1000:.3f}")
with open(out, "w") as f:
    f.write(json.dumps(records, indent=2))
