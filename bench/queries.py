#!/usr/bin/env python3
"""Runs the dataset queries of docs/compare-and-datasets.md with DuckDB: every ```sql
block whose first line is `-- query: NAME`, with the path DATASET replaced by the dataset
given. Prints one JSON object: {NAME: {"columns": [...], "rows": [[...], ...],
"seconds": [...]}}, where "seconds" holds each run's wall time (--repeat runs, each on a
fresh connection).

Usage: queries.py docs/compare-and-datasets.md DATASET [--repeat N]
"""

import argparse
import json
import re
import time

import duckdb


def queries(doc):
    text = open(doc, encoding="utf-8").read()
    out = []
    for block in re.findall(r"```sql\n(.*?)```", text, re.S):
        first = block.split("\n", 1)[0]
        m = re.match(r"-- query: (\S+)", first)
        if m:
            out.append((m.group(1), block))
    return out


def plain(v):
    if isinstance(v, (int, float, str)) or v is None:
        return v
    return str(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("doc")
    ap.add_argument("dataset")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    result = {}
    for name, sql in queries(a.doc):
        sql = sql.replace("'DATASET/", "'" + a.dataset.rstrip("/") + "/")
        times = []
        for _ in range(max(1, a.repeat)):
            con = duckdb.connect()
            t = time.perf_counter()
            cur = con.execute(sql)
            rows = cur.fetchall()
            times.append(time.perf_counter() - t)
            columns = [d[0] for d in cur.description]
            con.close()
        result[name] = {
            "columns": columns,
            "rows": [[plain(v) for v in r] for r in rows],
            "seconds": times,
        }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
