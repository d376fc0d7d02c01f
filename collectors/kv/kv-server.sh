#!/usr/bin/env bash
# The KV-cache procedure's server steps and its shell helpers (test 1, test 3), as
# written: docker compose in the variant's folder, ready(), new_prompt(), ask(), and the
# prefix-cache reset of test 3. One step per call.
# Usage: kv-server.sh up DIR | restart DIR | down DIR
#        kv-server.sh logs DIR SERVICE FILE      (appended: one log per variant, all phases)
#        kv-server.sh ready URL MODEL [TIMEOUT_S]
#        kv-server.sh new-prompt WORK LINES MODEL
#        kv-server.sh ask URL WORK TRANSCRIPT [SNAPSHOTS]   (/metrics to SNAPSHOTS.pre.prom
#                                                       and .post.prom around the request)
#        kv-server.sh reset URL
set -u
# lib.sh: beside it when reprobench runs it, one folder up in the source tree.
lib=$(dirname "$0")/lib.sh; [ -f "$lib" ] || lib=$(dirname "$0")/../lib.sh
. "$lib"
step=$1; shift
in_dir() {               # in_dir DIR CMD...
  local d=$1; shift
  if [ -n "${DRY_RUN:-}" ]; then printf 'cd %s && ' "$(q "$d")"; show "$@"; echo; return 0; fi
  (cd "$d" && "$@")
}
case $step in
  up)      in_dir "$1" docker compose up -d ;;
  restart) in_dir "$1" docker compose restart vllm ;;
  down)    in_dir "$1" docker compose down ;;
  logs)
    d=$1 svc=$2 f=$3
    run mkdir -p "$(dirname "$f")"
    if [ -n "${DRY_RUN:-}" ]; then printf 'cd %s && docker compose logs %s >> %s\n' "$(q "$d")" "$svc" "$(q "$f")"; exit 0; fi
    (cd "$d" && docker compose logs "$svc") >> "$f" ;;
  ready)
    URL=$1 MODEL=$2 limit=${3:-3600}
    if [ -n "${DRY_RUN:-}" ]; then
      echo "until curl -sf $(q "$URL/health") >/dev/null; do sleep ${READY_POLL:-10}; done"
      show curl -s "$URL/v1/completions" -H 'Content-Type: application/json' \
        -d "{\"model\":\"$MODEL\",\"prompt\":\"Hello\",\"max_tokens\":1}"; echo ' >/dev/null'
      exit 0
    fi
    start=$SECONDS
    until curl -sf "$URL/health" >/dev/null; do
      if [ $((SECONDS - start)) -ge "$limit" ]; then echo "the server at $URL was not ready after $limit s" >&2; exit 1; fi
      sleep "${READY_POLL:-10}"
    done
    curl -s "$URL/v1/completions" -H 'Content-Type: application/json' \
      -d "{\"model\":\"$MODEL\",\"prompt\":\"Hello\",\"max_tokens\":1}" >/dev/null ;;
  new-prompt)
    work=$1 LINES=$2 MODEL=$3
    run mkdir -p "$work"
    if [ -n "${DRY_RUN:-}" ]; then
      echo "python3 - $LINES > $(q "$work/prompt.txt")   # new_prompt: a fresh prompt with a unique run tag"
      show jq -n --arg m "$MODEL" --rawfile p "$work/prompt.txt" '{model: $m, prompt: $p, max_tokens: 1, temperature: 0}'
      printf ' > %s\n' "$(q "$work/request.json")"
      exit 0
    fi
    python3 - "$LINES" > "$work/prompt.txt" <<'PY'
import sys, time
n = int(sys.argv[1])
print(f"Run {time.time_ns()}.", " ".join(f"Line {i}: the ADP card keeps this prompt." for i in range(n)))
PY
    jq -n --arg m "$MODEL" --rawfile p "$work/prompt.txt" '{model: $m, prompt: $p, max_tokens: 1, temperature: 0}' > "$work/request.json" ;;
  ask)
    URL=$1 work=$2 transcript=$3 snap=${4:-}
    run mkdir -p "$(dirname "$transcript")"
    # Not the procedure's: the server's counters right before and after the request, so
    # the analysis can tell whether the cached tokens came from the connector.
    # A scrape that fails leaves no file (an empty one would read as a broken snapshot).
    [ -n "$snap" ] && { run_to "$snap.pre.prom" curl -sf --max-time 30 "$URL/metrics" || rm -f "$snap.pre.prom"; }
    if [ -n "${DRY_RUN:-}" ]; then
      show curl -s -o "$work/response.json" -w 'time %{time_total} s  ' "$URL/v1/completions" \
        -H 'Content-Type: application/json' --data-binary "@$work/request.json"
      printf ' >> %s\n' "$(q "$transcript")"
      show jq -c '.usage | {prompt_tokens, cached: .prompt_tokens_details.cached_tokens}' "$work/response.json"
      printf ' >> %s\n' "$(q "$transcript")"
      [ -n "$snap" ] && run_to "$snap.post.prom" curl -sf --max-time 30 "$URL/metrics"
      exit 0
    fi
    {
      curl -s -o "$work/response.json" -w 'time %{time_total} s  ' "$URL/v1/completions" \
        -H 'Content-Type: application/json' --data-binary "@$work/request.json"
      # The line always ends, so the k-th ask stays the k-th line whatever the answer was
      # (a body that is not JSON prints nothing: the analysis reads a failed request).
      jq -c '.usage | {prompt_tokens, cached: .prompt_tokens_details.cached_tokens}' "$work/response.json" || echo
    } >> "$transcript"
    status=$?
    [ -n "$snap" ] && { run_to "$snap.post.prom" curl -sf --max-time 30 "$URL/metrics" || rm -f "$snap.post.prom"; }
    exit $status ;;
  reset)
    URL=$1
    if [ -n "${DRY_RUN:-}" ]; then
      echo "until [ \"\$(curl -s -X POST $(q "$URL/reset_prefix_cache") | jq .success)\" = true ]; do sleep 1; done"
      exit 0
    fi
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/reset_prefix_cache")
    if [ "$code" = 404 ]; then
      echo "POST /reset_prefix_cache answered 404: start vLLM with VLLM_SERVER_DEV_MODE=1 (development only) for the warm-restore check" >&2
      exit 3
    fi
    tries=0
    until [ "$(curl -s -X POST "$URL/reset_prefix_cache" | jq .success)" = true ]; do
      tries=$((tries + 1)); [ $tries -ge 600 ] && { echo "reset_prefix_cache never succeeded" >&2; exit 1; }
      sleep 1
    done ;;
  *)
    echo "kv-server.sh: unknown step $step" >&2; exit 2 ;;
esac
