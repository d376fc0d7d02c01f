#!/usr/bin/env python3
"""A stand-in for `docker compose` in tests (no Docker engine here). The compose folder
holds a `standin.env` (PORT, MODEL, CARD, DEV_MODE, TP, KV_TOKENS, SLOW_FIRST_RESTORE) instead of real
services: `up -d` starts the stand-in server (tests/stand-ins/openai_server.py) in the
background, `restart vllm` restarts it (its GPU cache is lost, its card file kept), `logs
vllm` prints vLLM-style startup lines built from the settings, `logs gateway` the
gateway's, and `down` stops it."""
import os, signal, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
env = {}
for line in open("standin.env"):
    if "=" in line:
        k, v = line.strip().split("=", 1)
        env[k] = v
pidfile = ".standin.pid"


def stop():
    if os.path.exists(pidfile):
        try:
            os.kill(int(open(pidfile).read()), signal.SIGTERM)
        except (ProcessLookupError, ValueError):
            pass
        os.remove(pidfile)
        time.sleep(0.1)


def start():
    cmd = [sys.executable, os.path.join(here, "openai_server.py"), "--port", env["PORT"], "--seconds", "300",
           "--model", env.get("MODEL", "glm-5.3")]
    if env.get("CARD"):
        cmd += ["--card", env["CARD"], "--external"]
    if env.get("DEV_MODE") == "1":
        cmd += ["--dev-mode"]
    if env.get("SLOW_FIRST_RESTORE"):
        cmd += ["--slow-first-restore", env["SLOW_FIRST_RESTORE"]]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    open(pidfile, "w").write(str(p.pid))


def vllm_log():
    tp = env.get("TP", "8")
    args = (f"'model': '/models/GLM-5.3-FP8', 'served_model_name': ['{env.get('MODEL', 'glm-5.3')}'], "
            f"'tensor_parallel_size': {tp}, 'max_model_len': 256000, 'enable_prompt_tokens_details': True")
    if env.get("CARD"):
        args += (", 'kv_transfer_config': KVTransferConfig(kv_connector='FusIOnXConnector', "
                 "kv_connector_extra_config={'xkv_gateway_port': 5557, 'chunk_size': 128})")
    kv = int(env.get("KV_TOKENS", "545536"))
    lines = ["vllm-1  | INFO 11-30 10:00:01 [api_server.py:1831] vLLM API server version 0.28.0",
             f"vllm-1  | INFO 11-30 10:00:01 [utils.py:326] non-default args: {{{args}}}",
             f"vllm-1  | (EngineCore pid=412) INFO 11-30 10:02:11 [kv_cache_utils.py:1147] GPU KV cache size: {kv:,} tokens, Maximum concurrency for 256,000 tokens per request: {kv / 256000:.2f}x"]
    if env.get("CARD"):
        lines.append("vllm-1  | (EngineCore pid=412) INFO 11-30 10:02:12 [fusionx_connector.py:211] XKV: 312 cache tensors registered for exchange")
    return "\n".join(lines)


if args[:1] == ["up"]:
    stop()
    start()
elif args[:2] == ["restart", "vllm"]:
    stop()
    start()
elif args[:1] == ["down"]:
    stop()
elif args[:2] == ["logs", "vllm"]:
    print(vllm_log())
elif args[:2] == ["logs", "gateway"]:
    print("gateway-1  | INFO gateway 6.1.1 starting\ngateway-1  | INFO storage backend remote-xdp: /dev/nvme1n1 open\ngateway-1  | INFO listening on port 5557")
else:
    sys.exit(f"fake docker compose: `{' '.join(args)}` is not supported")
