#!/usr/bin/env bash
# Shared by the collectors. Every command goes through `run` (or `run_to`, `run_bg_to`),
# so DRY_RUN=1 prints it expanded, exactly as it would run, instead of running it.
# Kept thin: reprobench plans the steps, checks the devices and reads the results.

# A word as a shell would need it typed.
q() {
  if [[ $1 =~ ^[A-Za-z0-9_./:=,+@%^-]+$ ]]; then printf '%s' "$1"
  else printf "'%s'" "${1//\'/\'\\\'\'}"; fi
}
show() {
  local first=1 a
  for a in "$@"; do [ $first = 1 ] || printf ' '; first=0; q "$a"; done
}
run() {                 # run CMD ARGS...
  if [ -n "${DRY_RUN:-}" ]; then show "$@"; echo; return 0; fi
  "$@"
}
as_root() {             # as_root CMD ARGS...   (the procedure's `sudo -E`, unless root already)
  if [ "$(id -u)" = 0 ]; then run "$@"; else run sudo -E "$@"; fi
}
run_to() {              # run_to FILE CMD ARGS...   (stdout to FILE)
  local f=$1; shift
  if [ -n "${DRY_RUN:-}" ]; then show "$@"; printf ' > %s\n' "$(q "$f")"; return 0; fi
  "$@" > "$f"
}
run_append() {          # run_append FILE CMD ARGS...   (stdout appended to FILE)
  local f=$1; shift
  if [ -n "${DRY_RUN:-}" ]; then show "$@"; printf ' >> %s\n' "$(q "$f")"; return 0; fi
  "$@" >> "$f"
}
run_bg_to() {           # run_bg_to FILE CMD ARGS...   (in the background; its pid in $BG)
  local f=$1; shift
  if [ -n "${DRY_RUN:-}" ]; then show "$@"; printf ' > %s &\n' "$(q "$f")"; BG=0; return 0; fi
  "$@" > "$f" &
  BG=$!
}
stop_bg() {             # stop_bg PID
  if [ -n "${DRY_RUN:-}" ]; then printf 'kill %s\n' '$!'; return 0; fi
  kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; return 0
}
scrape_metrics() {      # scrape_metrics URL EVERY   (until killed: a /metrics time series)
  # Every EVERY seconds a `# scrape <unix seconds>` line and the server's /metrics text.
  trap 'exit 0' TERM INT
  while :; do
    printf '# scrape %s\n' "$(date +%s.%N)"
    curl -s --max-time "$2" "$1/metrics"
    sleep "$2" & wait $!
  done
}
