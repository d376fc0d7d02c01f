#!/usr/bin/env bash
# Saves what one system command prints, for the procedures' "Report the results" sections.
# A program that is not installed exits 127 (recorded as missing, not an error); a command
# that fails leaves no file, so the checklist never counts an error message as its output.
# Usage: capture.sh OUTFILE CMD [ARGS...]
set -u
. "$(dirname "$0")/lib.sh"
out=$1; shift
if [ -z "${DRY_RUN:-}" ] && ! command -v "$1" >/dev/null 2>&1; then
  echo "$1: not installed" >&2
  exit 127
fi
if [ -n "${DRY_RUN:-}" ]; then show "$@"; printf ' > %s\n' "$(q "$out")"; exit 0; fi
mkdir -p "$(dirname "$out")"
if "$@" > "$out.partial" 2>&1; then
  mv "$out.partial" "$out"
else
  status=$?
  head -3 "$out.partial" >&2
  rm -f "$out.partial"
  exit $status
fi
