#!/usr/bin/env bash
# A degraded run of the SPDK RAID article: bdevperf waits for RPC (-z) on the array's
# config; the array's state is recorded, one member is removed through SPDK's RPC, the
# state is recorded again, and the job runs with the member gone (bdevperf.py
# perform_tests). METHOD: detach-controller (the article's: the member's NVMe controller
# is detached, as a lost drive) or remove-base-bdev (SPDK's graceful removal).
# Usage: spdk-degraded.sh SPDK_DIR CONFIG MEMBER OUTDIR JOB WORKLOAD QD IO_SIZE RUNTIME [METHOD]
set -u
# lib.sh: beside it when reprobench runs it, one folder up in the source tree.
lib=$(dirname "$0")/lib.sh; [ -f "$lib" ] || lib=$(dirname "$0")/../lib.sh
. "$lib"
SPDK=$1 conf=$2 member=$3 out=$4 job=$5 w=$6 qd=$7 size=$8 t=$9 method=${10:-detach-controller}
sock=${SPDK_RPC_SOCK:-/var/tmp/spdk.sock}
rpc=("$SPDK/scripts/rpc.py" -s "$sock")
run mkdir -p "$out"
run_bg_to "$out/$job.bdevperf.log" "$SPDK/build/examples/bdevperf" -c "$conf" -z -r "$sock" -q "$qd" -o "$size" -w "$w" -t "$t"
perf=$BG
if [ -z "${DRY_RUN:-}" ]; then
  for _ in $(seq 1 600); do [ -S "$sock" ] && break; sleep 0.1; done
fi
run_to "$out/../bdev_raid_get_bdevs.json" "${rpc[@]}" bdev_raid_get_bdevs all
if [ "$method" = remove-base-bdev ]; then
  run "${rpc[@]}" bdev_raid_remove_base_bdev "$member"
else
  # The bdev `nvme2n1` belongs to the controller `nvme2`.
  run "${rpc[@]}" bdev_nvme_detach_controller "${member%n[0-9]*}"
fi
run_to "$out/bdev_raid_get_bdevs.json" "${rpc[@]}" bdev_raid_get_bdevs all
run_to "$out/$job.json" "$SPDK/examples/bdev/bdevperf/bdevperf.py" -s "$sock" perform_tests
status=$?
stop_bg "$perf"
exit $status
