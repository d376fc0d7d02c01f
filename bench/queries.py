#!/usr/bin/env python3
"""Runs the dataset queries of docs/compare-and-datasets.md in one engine: every ```sql
block whose first line is `-- query: NAME` (DuckDB, the path DATASET replaced by the
dataset given), `-- spark-query: NAME` (Spark SQL in `local[2]`, over the tables
registered as views as the document shows: partition types not inferred, schemas
merged) or `-- polars-query: NAME` (Polars' SQL over each table's files concatenated by
column name, as the document shows). Prints one JSON object: {NAME: {"columns": [...],
"rows": [[...], ...], "seconds": [...]}}, where "seconds" holds each run's wall time
(--repeat runs; DuckDB on a fresh connection each, Spark in one session with the views
registered anew each, Polars with the scans made anew each).

Usage: queries.py docs/compare-and-datasets.md DATASET [--engine duckdb|spark|polars] [--repeat N]
"""

import argparse
import json
import re
import time

TABLES = ["verdicts", "measurements", "setup"]


def queries(doc, marker):
    text = open(doc, encoding="utf-8").read()
    out = []
    for block in re.findall(r"```sql\n(.*?)```", text, re.S):
        first = block.split("\n", 1)[0]
        m = re.match(r"-- " + marker + r": (\S+)", first)
        if m:
            out.append((m.group(1), block))
    return out


def plain(v):
    """A cell as JSON: numbers and text as they are; an instant (the dataset's timestamps
    are UTC, stored without a zone) as RFC 3339 in UTC."""
    import datetime
    if isinstance(v, (int, float, str)) or v is None:
        return v
    if isinstance(v, datetime.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return v.isoformat(timespec="microseconds") + "Z"
    return str(v)


def run_duckdb(doc, dataset, repeat):
    import duckdb

    result = {}
    for name, sql in queries(doc, "query"):
        sql = sql.replace("'DATASET/", "'" + dataset.rstrip("/") + "/")
        times = []
        for _ in range(max(1, repeat)):
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
    return result


def run_spark(doc, dataset, repeat):
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("reprobench-queries")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    spark.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
    result = {}
    try:
        for name, sql in queries(doc, "spark-query"):
            times = []
            for _ in range(max(1, repeat)):
                t = time.perf_counter()
                for table in TABLES:
                    spark.read.option("mergeSchema", "true").parquet(
                        dataset.rstrip("/") + "/" + table
                    ).createOrReplaceTempView(table)
                df = spark.sql(sql.strip().rstrip(";"))
                rows = df.collect()
                times.append(time.perf_counter() - t)
                columns = df.columns
            result[name] = {
                "columns": columns,
                "rows": [[plain(v) for v in r] for r in rows],
                "seconds": times,
            }
    finally:
        spark.stop()
    return result


def run_polars(doc, dataset, repeat):
    import glob

    import polars as pl

    def table(name):
        files = sorted(glob.glob(f"{dataset.rstrip('/')}/{name}/*/*.parquet"))
        return pl.concat(
            [pl.scan_parquet(f, hive_partitioning=True) for f in files],
            how="diagonal_relaxed",
        )

    result = {}
    for name, sql in queries(doc, "polars-query"):
        times = []
        for _ in range(max(1, repeat)):
            t = time.perf_counter()
            ctx = pl.SQLContext({table_name: table(table_name) for table_name in TABLES})
            df = ctx.execute(sql.strip().rstrip(";")).collect()
            times.append(time.perf_counter() - t)
        result[name] = {
            "columns": df.columns,
            "rows": [[plain(v) for v in r] for r in df.rows()],
            "seconds": times,
        }
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("doc")
    ap.add_argument("dataset")
    ap.add_argument("--engine", choices=["duckdb", "spark", "polars"], default="duckdb")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    run = {"duckdb": run_duckdb, "spark": run_spark, "polars": run_polars}[a.engine]
    print(json.dumps(run(a.doc, a.dataset, a.repeat), indent=1))


if __name__ == "__main__":
    main()
