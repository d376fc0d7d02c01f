#!/usr/bin/env python3
"""The second opinion on a bundle: detect-secrets (Yelp's scanner from PyPI, pinned in
.ci/run), which shares no code, rule or origin with reprobench, scans every member of the
bundle with its default plugins. What it finds there whose value also stands in the input
is a secret the bundle *kept*; what it finds that the input does not hold (the manifest's
own checksums) the bundle made, and is not counted. SHA-1 and SHA-256 hex digests are
not counted (see SETTINGS). Values in the audited baseline
(`known-non-secrets.baseline`, detect-secrets' own format: public keys, digests, images
the corpus keeps on purpose, each reviewed) are not counted either.

    independent_scan.py BUNDLE.tar.gz INPUT

Prints one JSON object: the scanner's version, how many members it read, and `kept`:
each kept finding's member, line, type and the value masked (never the value).
"""

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
from detect_secrets.settings import transient_settings

HERE = Path(__file__).resolve().parent


def input_bytes(path):
    """Every file's bytes under the input (members of archives too, one level down)."""
    out = []

    def add(data):
        out.append(data)
        try:
            with tarfile.open(fileobj=io.BytesIO(data)) as t:
                for m in t.getmembers():
                    if m.isfile():
                        f = t.extractfile(m)
                        if f:
                            out.append(f.read())
        except (tarfile.TarError, EOFError, OSError):
            pass

    p = Path(path)
    files = [p] if p.is_file() else [f for f in p.rglob("*") if f.is_file() and not f.is_symlink()]
    for f in files:
        try:
            add(f.read_bytes())
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
    inputs = input_bytes(source)
    kept = []
    with tempfile.TemporaryDirectory() as tmp:
        names = []
        with tarfile.open(bundle) as t:
            for i, m in enumerate(t.getmembers()):
                if not m.isfile():
                    continue
                f = t.extractfile(m)
                if f is None:
                    continue
                # Members are written under numbered names: nothing in a member's name can
                # reach outside the folder; the name is kept for the report.
                dest = Path(tmp) / f"{i:05d}{Path(m.name).suffix[:16]}"
                dest.write_bytes(f.read())
                names.append((os.path.realpath(dest), m.name))
        collection = SecretsCollection()
        with transient_settings(SETTINGS):
            collection.scan_files(*[d for d, _ in names])
        by_path = dict(names)
        for filename, secret in collection:
            filename = os.path.realpath(filename)
            value = secret.secret_value
            if value is None or secret.secret_hash in known:
                continue
            raw = value.encode()
            if not any(raw in data for data in inputs):
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
