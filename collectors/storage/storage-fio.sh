#!/usr/bin/env bash
# The storage procedure's run() helper, as written in "Run fio": iostat -xm 1 beside one
# fio job, results in $OUT/<name>.json and $OUT/iostat/<name>.iostat.
# Usage: storage-fio.sh OUT DEV NAME [fio options...]
set -u
# lib.sh: beside it when reprobench runs it, one folder up in the source tree.
lib=$(dirname "$0")/lib.sh; [ -f "$lib" ] || lib=$(dirname "$0")/../lib.sh
. "$lib"
OUT=$1 DEV=$2 name=$3
shift 3
run mkdir -p "$OUT/iostat"
run_bg_to "$OUT/iostat/$name.iostat" iostat -xm 1
mon=$BG
as_root fio \
  --random_generator=tausworthe64 --per_job_logs=0 \
  --buffer_compress_chunk=4096 --buffer_compress_percentage=67 --refill_buffers=1 \
  --direct=1 --group_reporting=1 --randrepeat=0 --norandommap=1 \
  --ioengine=libaio \
  "$@" \
  --filename="$DEV" --name="$name" \
  --output-format=json --output="$OUT/$name.json"
status=$?
stop_bg "$mon"
exit $status
