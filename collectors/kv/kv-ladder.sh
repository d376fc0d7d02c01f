#!/usr/bin/env bash
# The KV-cache procedure's ladder() (test 2), one level per call, as written, with stderr
# kept in the .log (`2>&1 | tee`) so the clients' failure counts are recorded. Run from
# the load folder holding agents.json.
# Usage: kv-ladder.sh URL MODEL SERVED_NAME VARIANT RUN CLIENTS [PAUSE_S]
set -u
# lib.sh: beside it when reprobench runs it, one folder up in the source tree.
lib=$(dirname "$0")/lib.sh; [ -f "$lib" ] || lib=$(dirname "$0")/../lib.sh
. "$lib"
URL=$1 MODEL=$2 SERVED=$3 variant=$4 run=$5 p=$6 pause=${7:-15}
run mkdir -p results
base="results/$variant-$run-L$p"
if [ -n "${DRY_RUN:-}" ]; then
  echo "echo $(q "Benchmark $variant, run $run, $p clients.") > run.txt"
else
  echo "Benchmark $variant, run $run, $p clients." > run.txt
fi
run_to level.json jq ".num_conversations = $((3 * p))" agents.json
run_to "$base.pre.prom" curl -s "$URL/metrics"
# Over time, on the same axis: /metrics every SCRAPE_S seconds during the level, and the
# GPUs once a second where nvidia-smi exists.
run_bg_to "$base.series.prom" scrape_metrics "$URL" "${SCRAPE_S:-5}"
scraper=$BG
gpus=
if command -v nvidia-smi >/dev/null 2>&1; then
  run_bg_to "$base.gpu.csv" nvidia-smi \
    --query-gpu=timestamp,index,utilization.gpu,memory.used,memory.total --format=csv -l 1
  gpus=$BG
fi
client=(docker run --rm --network host -v "$PWD":/work -w /work -v /models:/models:ro adp-bench-client
  --model "$MODEL" --served-model-name "$SERVED" --url "$URL"
  --input-file level.json --seed 520052
  --num-clients "$p" --max-active-conversations $((2 * p))
  --limit-min-tokens 400 --limit-max-tokens 400
  --request-timeout-sec 3600 --no-early-stop
  --stats-json-output "$base.json")
if [ -n "${DRY_RUN:-}" ]; then
  show "${client[@]}"; printf ' 2>&1 | tee %s\n' "$(q "$base.log")"
  status=0
else
  "${client[@]}" 2>&1 | tee "$base.log"
  status=${PIPESTATUS[0]}
fi
stop_bg "$scraper"
[ -n "$gpus" ] && stop_bg "$gpus"
run_to "$base.post.prom" curl -s "$URL/metrics"
[ "$pause" -gt 0 ] && run sleep "$pause"
exit $status
