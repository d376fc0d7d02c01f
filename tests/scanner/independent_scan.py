#!/usr/bin/env python3
"""The second opinion on a bundle: detect-secrets (Yelp's scanner from PyPI, pinned in
.ci/run), which shares no code, rule or origin with reprobench, scans every member of the
bundle with its default plugins, each opened first (gzip, tar, tar in tar) and decoded
to UTF-8 (UTF-16, Latin-1), as the input is. What it finds there whose value also stands in the input
is a secret the bundle *kept*; what it finds that the input does not hold (the manifest's
own checksums) the bundle made, and is not counted. SHA-1 and SHA-256 hex digests are
not counted (see SETTINGS). Values in the audited baseline
(`known-non-secrets.baseline`, detect-secrets' own format: public keys, digests, images
the corpus keeps on purpose, each reviewed) are not counted either.

    independent_scan.py BUNDLE.tar.gz INPUT

Prints one JSON object: the scanner's version, how many members it read, and `kept`:
each kept finding's member, line, type and the value masked (never the value).
"""

import gzip
import io
import json
import os
import sys
import tarfile
import tempfile
from pathlib import Path

from detect_secrets import SecretsCollection
from detect_secrets.__version__ import VERSION
from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.filters.heuristic import IGNORED_FILE_EXTENSIONS
from detect_secrets.settings import transient_settings

HERE = Path(__file__).resolve().parent


def as_text(data):
    """Bytes as text the way the bundle writes them back: UTF-16 (BOM or NUL-spaced),
    else UTF-8, else Latin-1."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(data) > 3 and data[1:4:2] == b"\0\0"):
        for enc in ("utf-16", "utf-16-le"):
            try:
                return data.decode(enc)
            except UnicodeDecodeError:
                pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def unpacked(name, data, depth=0):
    """(name, text) of a file, a gzip opened and a tar's members read, four deep at most."""
    if depth < 4 and data[:2] == b"\x1f\x8b":
        try:
            return unpacked(name, gzip.decompress(data), depth + 1)
        except (OSError, EOFError):
            pass
    if depth < 4 and len(data) > 262 and data[257:262] == b"ustar":
        out = []
        try:
            with tarfile.open(fileobj=io.BytesIO(data)) as t:
                for m in t.getmembers():
                    f = t.extractfile(m) if m.isfile() else None
                    if f:
                        out.extend(unpacked(f"{name}/{m.name}", f.read(), depth + 1))
            return out
        except (tarfile.TarError, EOFError, OSError):
            pass
    return [(name, as_text(data))]


def input_texts(path):
    """Every file's text under the input, archives and gzip opened as the bundle does."""
    out = []
    p = Path(path)
    files = [p] if p.is_file() else [f for f in p.rglob("*") if f.is_file() and not f.is_symlink()]
    for f in files:
        try:
            out.extend(t for _, t in unpacked(str(f), f.read_bytes()))
        except OSError:
            pass
    return out


# Every plugin, as `default_settings()` has them (but one, below), and one filter of detect-secrets' own
# (`--exclude-secrets`): hex strings of exactly 40 or 64 digits, the SHA-1 and SHA-256
# digests a results folder is full of (manifests' checksums, image digests, commit ids),
# which are evidence, not secrets. A hex secret of any other length is still found.
# IPPublicDetector is left out: a host's address is not a secret, and bundles keep
# addresses unless `--pseudonymize` is asked for (the bundle tests check that separately).
SETTINGS = {
    "plugins_used": [
        {"name": t.__name__}
        for t in get_mapping_from_secret_type_to_class().values()
        if t.__name__ != "IPPublicDetector"
    ],
    "filters_used": [{
        "path": "detect_secrets.filters.regex.should_exclude_secret",
        "pattern": ["^[0-9a-f]{40}$", "^[0-9a-f]{64}$"],
    }],
}


def audited():
    b = HERE / "known-non-secrets.baseline"
    if not b.exists():
        return set()
    data = json.loads(b.read_text())
    return {s["hashed_secret"] for found in data["results"].values() for s in found}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    bundle, source = sys.argv[1], sys.argv[2]
    known = audited()
    inputs = input_texts(source)
    kept = []
    with tempfile.TemporaryDirectory() as tmp:
        names = []
        with tarfile.open(bundle) as t:
            for m in t.getmembers():
                if not m.isfile():
                    continue
                f = t.extractfile(m)
                if f is None:
                    continue
                # Every member as UTF-8 text under a numbered name with its own suffix
                # (detect-secrets reads a `.yaml` as YAML), `.txt` where detect-secrets
                # would skip the suffix as binary (`.gz`, `.tar`, `.svg`): it also skips
                # files it cannot decode, so a member is opened and decoded here first.
                # Nothing in a member's name can reach outside the folder.
                for inner, text in unpacked(m.name, f.read()):
                    suffix = Path(inner).suffix[:16]
                    if suffix in IGNORED_FILE_EXTENSIONS or not suffix.isascii():
                        suffix = ".txt"
                    dest = Path(tmp) / f"{len(names):05d}{suffix}"
                    dest.write_text(text, encoding="utf-8")
                    names.append((os.path.realpath(dest), inner))
        collection = SecretsCollection()
        with transient_settings(SETTINGS):
            collection.scan_files(*[d for d, _ in names])
        by_path = dict(names)
        for filename, secret in collection:
            filename = os.path.realpath(filename)
            value = secret.secret_value
            if value is None or secret.secret_hash in known:
                continue
            if not any(value in text for text in inputs):
                continue
            kept.append({
                "member": by_path.get(filename, filename),
                "line": secret.line_number,
                "type": secret.type,
                "value": f"{value[:3]}… ({len(value)} characters)",
            })
    print(json.dumps({
        "scanner": f"detect-secrets {VERSION}",
        "members": len(names),
        "kept": kept,
    }))


if __name__ == "__main__":
    main()
