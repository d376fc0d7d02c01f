#!/usr/bin/env bash
# Re-measures this sample: the procedure's fio helper and iostat, run for real on loop
# devices. Linux md RAID cannot be built on this kind of machine, so each "array" is four
# loop devices over files, striped by fio itself (--filename=a:b:c:d). Neither is a RAID
# nor an ADP card; the folder names keep the procedure's layout so the tool compares them.
# Needs root, fio, sysstat and losetup. Usage: samples/storage-loopback/make-sample.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d /var/tmp/reprobench-loop.XXXXXX)
loops=()
cleanup() {
  for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT

attach_four() {                       # prints DEV as fio wants it: /dev/loopA:/dev/loopB:...
  local name=$1 devs=()
  for i in 0 1 2 3; do
    truncate -s 256M "$scratch/$name-$i.img"
    local l
    l=$(losetup --find --show --direct-io=on "$scratch/$name-$i.img")
    loops+=("$l")
    devs+=("$l")
  done
  (IFS=:; echo "${devs[*]}")
}

for array in raid10 adp; do
  DEV=$(attach_four "$array")
  OUT=$here/results/$array
  rm -rf "$OUT"
  mkdir -p "$OUT/iostat"
  echo "$array: DEV=$DEV" >> "$here/results/devices.txt"
  run() {                              # the procedure's helper, as collectors/storage/storage-fio.sh runs it
    bash "$here/../../collectors/storage/storage-fio.sh" "$OUT" "$DEV" "$@" || true
  }
  run precondition --readwrite=write --bs=128k --numjobs=8 --iodepth=8 --size=1g --runtime=3
  run randread-8k-j32-d32  --readwrite=randread  --bs=8k --numjobs=32  --iodepth=32 --size=1g --runtime=4 --time_based=1
  run randrw-8k-j128-d8    --readwrite=randrw    --bs=8k --numjobs=128 --iodepth=8  --rwmixread=70 --size=1g --runtime=4 --time_based=1
  run randwrite-8k-j8-d8   --readwrite=randwrite --bs=8k --numjobs=8   --iodepth=8  --size=1g --runtime=4 --time_based=1
  run read-1m-j8-d4        --readwrite=read      --bs=1m --numjobs=8   --iodepth=4  --size=1g --runtime=4 --time_based=1
  run write-1m-j8-d4       --readwrite=write     --bs=1m --numjobs=8   --iodepth=4  --size=1g --runtime=4 --time_based=1
  run randread-8k-j1-d1    --readwrite=randread  --bs=8k --numjobs=1   --iodepth=1  --size=1g --runtime=4 --time_based=1 --ioengine=sync
  for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done
  loops=()
done
{ fio --version; iostat -V 2>&1 | head -1; uname -r; } > "$here/results/versions.txt"
