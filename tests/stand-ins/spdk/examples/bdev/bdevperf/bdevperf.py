#!/usr/bin/env python3
"""Stand-in `bdevperf.py -s SOCK perform_tests`: bdevperf's JSON for its workload."""
import json, sys
a = sys.argv[1:]
sock = a[a.index("-s") + 1]
args = json.load(open(sock + ".args.json"))
st = json.load(open(sock + ".state.json"))
ok = st["num_base_bdevs_operational"] >= st["num_base_bdevs"] - 1
iops = 100000.0 if ok else 0.0
print(json.dumps({"results": [{"job": "raid5", "core_mask": "0x1", "workload": args["workload"], "status": "finished",
                               "queue_depth": args["queue_depth"], "io_size": args["io_size"], "runtime": args["runtime"],
                               "iops": iops, "mibps": iops * args["io_size"] / 1048576, "io_failed": 0 if ok else 1000,
                               "io_timeout": 0, "avg_latency_us": 93.8, "min_latency_us": 7.0, "max_latency_us": 4133.8}],
                  "core_count": 1}))
