#!/usr/bin/env python3
"""`docker compose` for the real-engine tests (no Docker engine here): the compose file in
the current folder is read as docker would read it (the `vllm` service's `command` and
`environment`), and its vLLM arguments go to the real engine, vLLM's CPU build, started as
a process: `up -d` starts it, `restart vllm` stops it and starts it again (its KV cache,
"GPU memory", is gone; the connector's folder, "the card", stays), `logs vllm` prints what
it logged since the folder's first `up`, `logs gateway` says there is no gateway (the
card is vLLM's ExampleConnector folder), and `down` stops it. The engine's Python is
$REPROBENCH_ENGINE_PYTHON."""
import os
import signal
import subprocess
import sys
import time

import yaml

args = sys.argv[1:]
spec = yaml.safe_load(open("compose.yaml"))["services"]["vllm"]
command = [str(c) for c in spec.get("command", [])]
environ = dict(os.environ)
env_spec = spec.get("environment", [])
if isinstance(env_spec, dict):
    environ.update({k: str(v) for k, v in env_spec.items()})
else:
    for item in env_spec:
        k, _, v = str(item).partition("=")
        environ[k] = v
pidfile, logfile = ".engine.pid", ".engine.log"


def stop():
    if not os.path.exists(pidfile):
        return
    try:
        pid = int(open(pidfile).read())
        os.killpg(pid, signal.SIGTERM)
        for _ in range(300):
            try:
                os.killpg(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, ValueError):
        pass
    os.remove(pidfile)


def start():
    py = os.environ["REPROBENCH_ENGINE_PYTHON"]
    log = open(logfile, "a")
    p = subprocess.Popen(
        [py, "-m", "vllm.entrypoints.openai.api_server", *command],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=environ,
        start_new_session=True,
    )
    open(pidfile, "w").write(str(p.pid))


if args[:1] == ["up"]:
    stop()
    start()
elif args[:2] == ["restart", "vllm"]:
    stop()
    start()
elif args[:1] == ["down"]:
    stop()
elif args[:2] == ["logs", "vllm"]:
    if os.path.exists(logfile):
        for line in open(logfile, errors="replace"):
            sys.stdout.write("vllm-1  | " + line)
elif args[:2] == ["logs", "gateway"]:
    print("gateway-1  | no gateway: the card is vLLM's ExampleConnector folder (real-engine tests)")
else:
    sys.exit(f"real-engine docker compose: `{' '.join(args)}` is not supported")
