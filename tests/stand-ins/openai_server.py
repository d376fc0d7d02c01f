#!/usr/bin/env python3
"""A stand-in for a vLLM server, for testing collectors where no GPU exists: the OpenAI
completions API (non-streaming), /health, /v1/models and /metrics with vLLM's counter
names. Loopback only; it stops by itself after --seconds. Prints its port on stdout."""
import argparse, json, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--seconds", type=float, default=60)
ap.add_argument("--external", action="store_true", help="also count connector (external) hits")
ap.add_argument("--model", default="glm-5.3")
args = ap.parse_args()
lock = threading.Lock()
c = {"q": 0.0, "h": 0.0, "eq": 0.0, "eh": 0.0, "prompt": 0.0, "gen": 0.0, "ok": 0.0}


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
                ]
            return self.send(200, "\n".join(lines) + "\n", "text/plain")
        self.send(404, "{}")

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path != "/v1/completions":
            return self.send(404, "{}")
        prompt = len(str(body.get("prompt", "")).split())
        out = int(body.get("max_tokens", 16))
        time.sleep(0.002 * out)
        with lock:
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


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
threading.Timer(args.seconds, srv.shutdown).start()
srv.serve_forever()
