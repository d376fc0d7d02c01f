#!/usr/bin/env bash
# The KV-cache procedure's ladder() (test 2), as written, for one variant and run, with
# stderr kept in the .log (`2>&1 | tee`) so the clients' failure counts are recorded.
# Run from the load folder holding agents.json. Kept thin: reprobench checks the inputs,
# reads the results and judges them.
# Usage: kv-ladder.sh URL MODEL SERVED_NAME VARIANT RUN PAUSE LEVEL...
set -u
URL=$1 MODEL=$2 SERVED=$3 variant=$4 run=$5 pause=$6
shift 6
mkdir -p results
status=0
for p in "$@"; do
  echo "Benchmark $variant, run $run, $p clients." > run.txt
  jq ".num_conversations = $((3 * p))" agents.json > level.json
  base="results/$variant-$run-L$p"
  curl -s "$URL/metrics" > "$base.pre.prom"
  docker run --rm --network host -v "$PWD":/work -w /work -v /models:/models:ro adp-bench-client \
    --model "$MODEL" --served-model-name "$SERVED" --url "$URL" \
    --input-file level.json --seed 520052 \
    --num-clients "$p" --max-active-conversations $((2 * p)) \
    --limit-min-tokens 400 --limit-max-tokens 400 \
    --request-timeout-sec 3600 --no-early-stop \
    --stats-json-output "$base.json" 2>&1 | tee "$base.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  curl -s "$URL/metrics" > "$base.post.prom"
  sleep "$pause"
done
exit $status
