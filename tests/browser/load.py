#!/usr/bin/env python3
"""Loads a page in headless Chromium over the DevTools protocol (a pipe, no network, no
third-party package) and reports what a user would see: the DOM after load, a screenshot
of the first screen, every console message, uncaught exception and browser log entry,
and optionally the value of an expression evaluated in the page.

Usage: load.py CHROMIUM PAGE --scripts on|off [--screenshot OUT.png] [--dom OUT.html]
                [--eval JS] [--width W] [--height H]
Prints JSON: {"console": [...], "exceptions": [...], "log": [...], "eval": value}.
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import time


class Pipe:
    def __init__(self, proc, out_fd, in_fd):
        self.proc, self.out, self.inp = proc, out_fd, in_fd
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.out, json.dumps(msg).encode() + b"\0")
        return self.wait_reply(self.next_id, method)

    def read_one(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.inp, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def wait_reply(self, id_, method, timeout=60):
        deadline = time.time() + timeout
        while True:
            m = self.read_one(deadline)
            if m.get("id") == id_:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, name, timeout=60):
        for i, e in enumerate(self.events):
            if e.get("method") == name:
                return self.events.pop(i)
        deadline = time.time() + timeout
        while True:
            m = self.read_one(deadline)
            if m.get("method") == name:
                return m
            self.events.append(m)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("chromium")
    ap.add_argument("page")
    ap.add_argument("--scripts", choices=["on", "off"], required=True)
    ap.add_argument("--screenshot")
    ap.add_argument("--dom")
    ap.add_argument("--eval")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=900)
    a = ap.parse_args()

    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()

    def fds():
        # Chromium reads commands on fd 3 and writes answers on fd 4. Both ends are
        # copied above 4 first, so that neither is overwritten before it is moved.
        r, w = os.dup(to_child_r), os.dup(from_child_w)
        os.dup2(r, 3)
        os.dup2(w, 4)

    profile = tempfile.mkdtemp(prefix="reprobench-chromium-")
    proc = subprocess.Popen(
        [a.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
         f"--user-data-dir={profile}", f"--window-size={a.width},{a.height}", "about:blank"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=fds, close_fds=False,
    )
    os.close(to_child_r)
    os.close(from_child_w)
    p = Pipe(proc, to_child_w, from_child_r)
    result = {"console": [], "exceptions": [], "log": [], "eval": None}
    try:
        target = p.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = p.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for m in ("Page.enable", "Runtime.enable", "Log.enable"):
            p.send(m, session=session)
        if a.scripts == "off":
            p.send("Emulation.setScriptExecutionDisabled", {"value": True}, session=session)
        p.send("Emulation.setDeviceMetricsOverride",
               {"width": a.width, "height": a.height, "deviceScaleFactor": 1, "mobile": False},
               session=session)
        url = "file://" + os.path.abspath(a.page)
        p.send("Page.navigate", {"url": url}, session=session)
        p.wait_event("Page.loadEventFired")
        time.sleep(0.3)  # late console messages
        if a.eval:
            r = p.send("Runtime.evaluate", {"expression": a.eval, "returnByValue": True}, session=session)
            result["eval"] = r.get("result", {}).get("value")
        if a.screenshot:
            shot = p.send("Page.captureScreenshot", {"format": "png"}, session=session)
            with open(a.screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        if a.dom:
            root = p.send("DOM.getDocument", {"depth": -1}, session=session)["root"]["nodeId"]
            html = p.send("DOM.getOuterHTML", {"nodeId": root}, session=session)["outerHTML"]
            with open(a.dom, "w", encoding="utf-8") as f:
                f.write(html)
        # Drain what arrived.
        p.send("Runtime.evaluate", {"expression": "1"}, session=session)
        for e in p.events:
            m, params = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled":
                text = " ".join(str(x.get("value", x.get("description", ""))) for x in params.get("args", []))
                result["console"].append(f"{params.get('type')}: {text}")
            elif m == "Runtime.exceptionThrown":
                d = params.get("exceptionDetails", {})
                result["exceptions"].append(d.get("exception", {}).get("description") or d.get("text", ""))
            elif m == "Log.entryAdded":
                entry = params.get("entry", {})
                result["log"].append(f"{entry.get('level')}: {entry.get('text')}")
        try:
            p.send("Browser.close")
        except (EOFError, RuntimeError, TimeoutError):
            pass
    finally:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        subprocess.run(["rm", "-rf", profile], check=False)
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
