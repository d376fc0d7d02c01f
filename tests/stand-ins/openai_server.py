#!/usr/bin/env python3
"""A stand-in for a vLLM server, for testing collectors where no GPU exists: the OpenAI
completions API (non-streaming), /health, /v1/models and /metrics with vLLM's counter
names. Loopback only; it stops by itself after --seconds. Prints its port on stdout.

Its prefix cache behaves like the procedure's: a prompt seen since the server started is
in the "GPU" cache (gone after a restart); with --card FILE a prompt is also kept in FILE,
the stand-in for the ADP card, which survives restarts. Hits are whole 128-token chunks.
A recompute takes longer than a restore. With --dev-mode, POST /reset_prefix_cache clears
the GPU cache (and answers 404 without it, as vLLM does)."""
import argparse, hashlib, json, os, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--seconds", type=float, default=60)
ap.add_argument("--external", action="store_true", help="also count connector (external) hits")
ap.add_argument("--model", default="glm-5.3")
ap.add_argument("--port", type=int, default=0)
ap.add_argument("--card", help="a file that keeps prompts across restarts (the card)")
ap.add_argument("--dev-mode", action="store_true", help="VLLM_SERVER_DEV_MODE=1")
ap.add_argument("--max-model-len", type=int, default=1_000_000)
ap.add_argument("--slow-first-restore", type=float, default=0.0,
                help="the first restore from the card ever served takes this many seconds more "
                     "(kernels compiling after the first fresh start); remembered beside the card")
args = ap.parse_args()
gpu = set()


def card_keys():
    if not args.card or not os.path.exists(args.card):
        return set()
    with open(args.card) as f:
        return set(json.load(f))


def card_add(key):
    if args.card:
        keys = card_keys()
        keys.add(key)
        with open(args.card, "w") as f:
            json.dump(sorted(keys), f)
lock = threading.Lock()
c = {"q": 0.0, "h": 0.0, "eq": 0.0, "eh": 0.0, "prompt": 0.0, "gen": 0.0, "ok": 0.0, "running": 0.0}


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def send(self, code, body, ctype="application/json"):
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            return self.send(200, "")
        if self.path == "/v1/models":
            return self.send(200, json.dumps({"data": [{"id": args.model, "max_model_len": 32768}]}))
        if self.path == "/metrics":
            with lock:
                m = args.model
                lines = [
                    "# TYPE vllm:prefix_cache_queries_total counter",
                    f'vllm:prefix_cache_queries_total{{engine="0",model_name="{m}"}} {c["q"]:.1f}',
                    f'vllm:prefix_cache_hits_total{{engine="0",model_name="{m}"}} {c["h"]:.1f}',
                    f'vllm:external_prefix_cache_queries_total{{engine="0",model_name="{m}"}} {c["eq"]:.1f}',
                    f'vllm:external_prefix_cache_hits_total{{engine="0",model_name="{m}"}} {c["eh"]:.1f}',
                    f'vllm:prompt_tokens_total{{engine="0",model_name="{m}"}} {c["prompt"]:.1f}',
                    f'vllm:generation_tokens_total{{engine="0",model_name="{m}"}} {c["gen"]:.1f}',
                    f'vllm:request_success_total{{engine="0",finished_reason="length",model_name="{m}"}} {c["ok"]:.1f}',
                    "# TYPE vllm:kv_cache_usage_perc gauge",
                    f'vllm:kv_cache_usage_perc{{engine="0",model_name="{m}"}} {min(1.0, len(gpu) / 64.0):.4f}',
                    f'vllm:num_requests_running{{engine="0",model_name="{m}"}} {c["running"]:.1f}',
                    f'vllm:num_requests_waiting{{engine="0",model_name="{m}"}} 0.0',
                ]
            return self.send(200, "\n".join(lines) + "\n", "text/plain")
        self.send(404, "{}")

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path == "/reset_prefix_cache":
            if not args.dev_mode:
                return self.send(404, json.dumps({"detail": "Not Found"}))
            with lock:
                gpu.clear()
            return self.send(200, json.dumps({"success": True}))
        if self.path != "/v1/completions":
            return self.send(404, "{}")
        text = str(body.get("prompt", ""))
        prompt = len(text.split())
        out = int(body.get("max_tokens", 16))
        if prompt > args.max_model_len:
            return self.send(400, json.dumps({"object": "error", "message": f"This model's maximum context length is {args.max_model_len} tokens. However, you requested {prompt} tokens.", "type": "BadRequestError"}))
        if out == 1 and prompt > 50:
            # Test 1's long prompt: served from the GPU cache, the card, or recomputed.
            key = hashlib.sha256(text.encode()).hexdigest()
            chunked = prompt - prompt % 128
            with lock:
                if key in gpu:
                    cached, delay = chunked, 0.02
                elif key in card_keys():
                    cached, delay = chunked, 0.05
                    slowed = args.card + ".slowed"
                    if args.slow_first_restore and not os.path.exists(slowed):
                        open(slowed, "w").close()
                        delay += args.slow_first_restore
                else:
                    cached, delay = 0, 0.4
                gpu.add(key)
            card_add(key)
            time.sleep(delay)
            return self.send(200, json.dumps({"id": "cmpl-standin", "object": "text_completion", "model": args.model,
                                              "choices": [{"index": 0, "text": " x", "finish_reason": "length"}],
                                              "usage": {"prompt_tokens": prompt, "completion_tokens": 1,
                                                        "prompt_tokens_details": {"cached_tokens": cached}}}))
        with lock:
            c["running"] += 1
        time.sleep(0.002 * out)
        with lock:
            c["running"] -= 1
            hit = prompt * 0.75
            c["q"] += prompt
            c["h"] += hit
            if args.external:
                c["eq"] += prompt - hit
                c["eh"] += (prompt - hit) * 0.5
            c["prompt"] += prompt
            c["gen"] += out
            c["ok"] += 1
        self.send(200, json.dumps({"id": "cmpl-standin", "object": "text_completion", "model": args.model,
                                   "choices": [{"index": 0, "text": " x" * out, "finish_reason": "length"}],
                                   "usage": {"prompt_tokens": prompt, "completion_tokens": out,
                                             "prompt_tokens_details": {"cached_tokens": int(prompt * 0.75)}}}))


srv = ThreadingHTTPServer(("127.0.0.1", args.port), H)
print(srv.server_address[1], flush=True)
threading.Timer(args.seconds, srv.shutdown).start()
srv.serve_forever()
