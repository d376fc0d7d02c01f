#!/usr/bin/env python3
"""Imports gitleaks' default rule set as data, with the examples its authors wrote.

    python3 src/bundle/redact/gitleaks/update.py PATH/TO/gitleaks-checkout

Copies `config/gitleaks.toml` and `LICENSE` verbatim, writes `source.json` (the version,
the commit and its date) and `examples.json`: for every rule, the true and false
positives its generator validates it with (`cmd/generate/config/rules/*.go`), read from
the Go source. Literal strings are taken as written; `secrets.NewSecret(pattern)` is
drawn from the pattern with a fixed seed, and `utils.GenerateSampleSecret(s)` is expanded
with the templates of `cmd/generate/config/utils/generate.go`, as gitleaks does. An
example this reader cannot evaluate (anything else computed) is left out and counted.
Then run `cargo test gitleaks` and read what changed with `git diff --stat`.
"""

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

try:
    import re._parser as sre_parse  # Python 3.11+
    import re._constants as sre_c
except ImportError:  # pragma: no cover
    import sre_parse
    import sre_constants as sre_c

HERE = Path(__file__).resolve().parent
RNG = random.Random(20261203)

TOKEN = re.compile(
    r"""(?P<ws>[ \t\r]+)|(?P<nl>\n)|(?P<lc>//[^\n]*)|(?P<bc>/\*.*?\*/)
    |(?P<raw>`[^`]*`)|(?P<str>"(?:[^"\\\n]|\\.)*")|(?P<chr>'(?:[^'\\\n]|\\.)*')
    |(?P<id>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
    |(?P<num>[0-9][0-9a-fA-Fx._]*)|(?P<op>\.\.\.|:=|[-+*/%&|^<>=!]=?|[(){}\[\],;:.])""",
    re.S | re.X,
)


def tokens(src):
    out = []
    for m in TOKEN.finditer(src):
        kind = m.lastgroup
        if kind in ("ws", "lc", "bc"):
            continue
        text = m.group()
        if kind == "raw":
            out.append(("str", text[1:-1]))
        elif kind == "str":
            out.append(("str", go_unquote(text)))
        else:
            out.append((kind, text))
    return out


def go_unquote(lit):
    body = lit[1:-1]
    out, i = [], 0
    simple = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a",
              "b": "\b", "f": "\f", "v": "\v"}
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in simple:
            out.append(simple[e])
            i += 2
        elif e == "x":
            out.append(chr(int(body[i + 2:i + 4], 16)))
            i += 4
        elif e == "u":
            out.append(chr(int(body[i + 2:i + 6], 16)))
            i += 6
        elif e == "U":
            out.append(chr(int(body[i + 2:i + 10], 16)))
            i += 10
        else:
            out.append(chr(int(body[i + 1:i + 4], 8)))
            i += 4
    return "".join(out)


def draw(pattern):
    """A string the pattern matches, drawn with the fixed seed (ASCII classes)."""
    def gen(items):
        s = []
        for op, av in items:
            if op is sre_c.LITERAL:
                s.append(chr(av))
            elif op is sre_c.IN:
                s.append(pick(av))
            elif op is sre_c.ANY:
                s.append(RNG.choice("abcdefghijklmnopqrstuvwxyz0123456789"))
            elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)):
                lo, hi, sub = av
                hi = lo + 8 if hi is sre_c.MAXREPEAT else hi
                for _ in range(RNG.randint(lo, hi)):
                    s.append(gen(sub))
            elif op is sre_c.SUBPATTERN:
                s.append(gen(av[-1]))
            elif op is sre_c.BRANCH:
                s.append(gen(RNG.choice(av[1])))
            elif op is sre_c.AT:
                pass
            elif op is sre_c.CATEGORY:
                s.append(pick([(op, av)]))
            else:
                raise ValueError(f"cannot draw {op}")
        return "".join(s)

    def pick(av):
        chars = []
        negate = False
        for op, a in av:
            if op is sre_c.NEGATE:
                negate = True
            elif op is sre_c.LITERAL:
                chars.append(chr(a))
            elif op is sre_c.RANGE:
                chars.extend(chr(c) for c in range(a[0], a[1] + 1))
            elif op is sre_c.CATEGORY:
                chars.extend({
                    sre_c.CATEGORY_DIGIT: "0123456789",
                    sre_c.CATEGORY_WORD: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
                    sre_c.CATEGORY_SPACE: " ",
                }.get(a, "x"))
        if negate:
            pool = [c for c in "abcdefghijklmnopqrstuvwxyz0123456789" if c not in chars]
            return RNG.choice(pool)
        return RNG.choice(chars)

    return gen(sre_parse.parse(pattern))


HELPERS = {
    "utils.Numeric": "[0-9]{%s}",
    "utils.Hex": "[a-f0-9]{%s}",
    "utils.AlphaNumeric": "[a-z0-9]{%s}",
    "utils.AlphaNumericExtendedShort": "[a-z0-9_-]{%s}",
    "utils.AlphaNumericExtended": "[a-z0-9=_\\-]{%s}",
    "utils.AlphaNumericExtendedLong": "[a-z0-9\\/=_\\+\\-]{%s}",
}


class Reader:
    def __init__(self, toks, templates):
        self.t = toks
        self.i = 0
        self.templates = templates

    def peek(self, k=0):
        j = self.i + k
        return self.t[j] if j < len(self.t) else ("eof", "")

    def skip_nl(self):
        while self.peek()[0] == "nl":
            self.i += 1

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def expect(self, text):
        self.skip_nl()
        tok = self.take()
        if tok[1] != text:
            raise ValueError(f"expected {text}, found {tok}")

    def args(self):
        """Arguments up to the closing parenthesis: each a value or None."""
        out = []
        self.skip_nl()
        while self.peek()[1] != ")":
            v = self.expr()
            self.skip_nl()
            spread = False
            if self.peek()[1] == "...":
                self.take()
                spread = True
            out.append(("spread", v) if spread else v)
            self.comma()
        self.take()
        return out

    def comma(self):
        """An optional `,` between items, and the line ends around it."""
        self.skip_nl()
        if self.peek()[1] == ",":
            self.take()
            self.skip_nl()

    def elements(self, is_map):
        out = []
        self.skip_nl()
        while self.peek()[1] != "}":
            v = self.expr()
            self.skip_nl()
            if self.peek()[1] == ":":
                self.take()
                key, v = v, self.expr()
                if is_map:
                    v = (key, v)
            out.append(v)
            self.comma()
        self.take()
        return out

    def expr(self):
        """Terms joined by `+` (Go ends a line after a `+`, never before one)."""
        v = self.term()
        while self.peek()[1] == "+":
            self.take()
            self.skip_nl()
            w = self.term()
            v = v + w if isinstance(v, str) and isinstance(w, str) else None
        return v

    def term(self):
        self.skip_nl()
        kind, text = self.take()
        if kind == "str":
            return text
        if text == "[":
            self.expect("]")
            self.take()  # string
            self.expect("{")
            return self.elements(False)
        if text == "map":
            self.expect("[")
            self.take()
            self.expect("]")
            self.take()
            self.expect("{")
            return self.elements(True)
        if kind == "id" and self.peek()[1] == "(":
            self.take()
            a = self.args()
            return self.call(text, a)
        if kind == "id" and self.peek()[1] == "{":
            self.take()
            self.elements(False)
            return None
        return None

    def call(self, name, a):
        flat = lambda x: x[1] if isinstance(x, tuple) and x and x[0] == "spread" else x
        if name in HELPERS and a and isinstance(a[0], str):
            return HELPERS[name] % a[0]
        if name == "utils.Hex8_4_4_4_12":
            return "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        if name == "secrets.NewSecret" and a and isinstance(a[0], str):
            try:
                return draw(a[0])
            except Exception:
                return None
        if name == "utils.GenerateSampleSecret" and len(a) == 2 and all(isinstance(x, str) for x in a):
            return f'{a[0]}_api_token = "{a[1]}"'
        if name == "utils.GenerateSampleSecrets" and len(a) == 2 and all(isinstance(x, str) for x in a):
            i, s = a
            return [t.replace("{i}", i).replace("{I}", i.upper()).replace("{s}", s) for t in self.templates]
        if name == "append" and a:
            base = flat(a[0]) if isinstance(flat(a[0]), list) else []
            out = list(base)
            for x in a[1:]:
                x2 = flat(x)
                if isinstance(x2, list):
                    out.extend(x2)
                else:
                    out.append(x2)
            return out
        return None


def templates(generate_go):
    body = generate_go.split("func GenerateSampleSecrets", 1)[1].split("replacer", 1)[0]
    toks = [t for t in tokens(body) if t[0] != "nl"]
    out = []
    for k in range(len(toks) - 2):
        if toks[k][0] == "str" and toks[k + 1][1] == ":" and toks[k + 2][0] == "str":
            out.append(toks[k + 2][1])
    return out


def examples(rules_dir, tmpl):
    found = {}
    skipped = 0
    for go in sorted(rules_dir.glob("*.go")):
        src = go.read_text()
        for fn in re.split(r"\nfunc ", src)[1:]:
            ids = re.findall(r'RuleID:\s*"([^"]+)"', fn)
            if len(ids) != 1:
                continue
            toks = tokens(fn)
            r = Reader(toks, tmpl)
            vars_ = {"tps": [], "fps": []}
            while r.i < len(toks):
                kind, text = r.take()
                if kind == "id" and text in vars_ and r.peek()[1] in (":=", "="):
                    r.take()
                    try:
                        v = r.expr()
                    except (ValueError, IndexError):
                        v = None
                    if isinstance(v, list):
                        vars_[text] = v
                    elif v is None:
                        skipped += 1
            rec = found.setdefault(ids[0], {"match": [], "not": []})
            for var, key in (("tps", "match"), ("fps", "not")):
                for v in vars_[var]:
                    if isinstance(v, tuple) and len(v) == 2 and all(isinstance(x, str) for x in v):
                        rec[key].append({"path": v[0], "text": v[1]})
                    elif isinstance(v, str):
                        rec[key].append({"text": v})
                    else:
                        skipped += 1
    return found, skipped


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    repo = Path(sys.argv[1])
    shutil.copyfile(repo / "config/gitleaks.toml", HERE / "gitleaks.toml")
    shutil.copyfile(repo / "LICENSE", HERE / "LICENSE")
    git = lambda *a: subprocess.run(["git", "-C", str(repo), *a], capture_output=True, text=True).stdout.strip()
    tmpl = templates((repo / "cmd/generate/config/utils/generate.go").read_text())
    found, skipped = examples(repo / "cmd/generate/config/rules", tmpl)
    source = {
        "project": "gitleaks",
        "url": "https://github.com/gitleaks/gitleaks",
        "licence": "MIT (see LICENSE here)",
        "version": git("describe", "--tags"),
        "commit": git("rev-parse", "HEAD"),
        "date": git("log", "-1", "--format=%cI"),
        "files": ["config/gitleaks.toml", "LICENSE", "cmd/generate/config/rules/*.go (examples)"],
        "examples_not_evaluated": skipped,
    }
    (HERE / "source.json").write_text(json.dumps(source, indent=1) + "\n")
    (HERE / "examples.json").write_text(json.dumps(found, indent=0, ensure_ascii=False, sort_keys=True) + "\n")
    n = sum(len(v["match"]) + len(v["not"]) for v in found.values())
    print(f"{len(found)} rules with examples, {n} examples, {skipped} not evaluated")


if __name__ == "__main__":
    main()
