#!/usr/bin/env bash
# One fio run with SPDK's bdev plugin, as in the SPDK RAID article: the job file names
# the SPDK config (spdk_json_conf) and the bdev (filename).
# Usage: spdk-fio.sh FIO PLUGIN JOBFILE OUTPUT_JSON
set -u
# lib.sh: beside it when reprobench runs it, one folder up in the source tree.
lib=$(dirname "$0")/lib.sh; [ -f "$lib" ] || lib=$(dirname "$0")/../lib.sh
. "$lib"
FIO=$1 PLUGIN=$2 job=$3 out=$4
run mkdir -p "$(dirname "$out")"
run env LD_PRELOAD="$PLUGIN" "$FIO" "$job" --output-format=json --output="$out"
