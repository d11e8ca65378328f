#!/usr/bin/env python3
"""Query time over 1,000 shard indexes: `altflow query` against pyarrow, side by side.

    python3 scripts/bench_query.py --source OUT [--bin target/release/altflow] [--indexes 1000]
                                   [--rows 1000] [--s3]

Makes an output of INDEXES shard indexes of ROWS rows each (the rows of a real run's indexes,
repeated with fresh keys, under writer-style names; no tars: queries read only indexes), then runs
each query ROUNDS times, altflow and pyarrow interleaved, and prints medians and their ratio. Each
altflow figure is a whole process (start, listing, planning, reading, printing), as a user runs it.
With --s3 the indexes are uploaded to a bucket on moto_server (127.0.0.1) and both read them there.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]

QUERIES = {
    "count": ("SELECT count(*) AS n FROM samples",
              lambda t: t.count_rows()),
    "filter+avg": ("SELECT count(*) AS n, avg(jpg_bytes) AS b FROM samples WHERE width >= 256",
                   lambda t: (lambda x: (x.num_rows, pc.mean(x["jpg_bytes"]).as_py()))(
                       t.to_table(columns=["jpg_bytes"], filter=ds.field("width") >= 256))),
    "group by": ("SELECT source_partition, count(*) AS n, max(source_offset) AS o FROM samples "
                 "GROUP BY source_partition",
                 lambda t: t.to_table(columns=["source_partition", "source_offset"]).group_by(
                     "source_partition").aggregate([("source_offset", "count"),
                                                    ("source_offset", "max")]).num_rows),
    "like, 20 rows": ("SELECT key, caption FROM samples WHERE caption LIKE '%number 7%' LIMIT 20",
                      lambda t: t.to_table(columns=["key", "caption"], filter=pc.match_substring(
                          ds.field("caption"), "number 7")).slice(0, 20).num_rows),
}


def make_output(source: Path, out: Path, indexes: int, rows: int):
    files = sorted(source.glob("shard-*.parquet"))
    if not files:
        sys.exit(f"no shard indexes in {source}: run a pipeline first")
    base = pa.concat_tables(pq.read_table(f) for f in files)
    reps = -(-rows // base.num_rows)
    template = pa.concat_tables([base] * reps).slice(0, rows)
    out.mkdir(parents=True, exist_ok=True)
    for i in range(indexes):
        partition, first = i % 12, (i // 12) * rows
        name = f"shard-p{partition:04}-o{first:012}"
        keys = pa.array([f"{i:08x}{j:024x}" for j in range(rows)])
        table = template.set_column(template.schema.get_field_index("key"), "key", keys)
        table = table.set_column(table.schema.get_field_index("shard"), "shard",
                                 pa.array([name + ".tar"] * rows))
        table = table.set_column(table.schema.get_field_index("source_partition"),
                                 "source_partition", pa.array([partition] * rows, pa.int32()))
        table = table.set_column(table.schema.get_field_index("source_offset"), "source_offset",
                                 pa.array(range(first, first + rows), pa.int64()))
        pq.write_table(table, out / f"{name}.parquet", compression="snappy")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=str(ROOT / "target/release/altflow"))
    parser.add_argument("--source", required=True, help="an output with real shard indexes")
    parser.add_argument("--indexes", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--s3", action="store_true", help="read the indexes from moto's S3")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "out"
        made = time.monotonic()
        make_output(Path(args.source), out, args.indexes, args.rows)
        size = sum(f.stat().st_size for f in out.iterdir())
        print(f"{args.indexes} indexes × {args.rows} rows ({size / 1e6:.0f} MB) made in "
              f"{time.monotonic() - made:.0f} s")
        target, fs, files = str(out), None, sorted(str(p) for p in out.glob("shard-*.parquet"))
        moto = None
        if args.s3:
            sys.path.insert(0, str(ROOT / "python/tests"))
            from conftest import S3_ENV, free_port, wait_for_port
            import pyarrow.fs as pafs
            import urllib.request

            port = free_port()
            moto = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(port)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wait_for_port(port, moto, "moto_server")
            endpoint = f"http://127.0.0.1:{port}"
            urllib.request.urlopen(urllib.request.Request(f"{endpoint}/bench", method="PUT"))
            os.environ.update(S3_ENV, AWS_ENDPOINT=endpoint)
            fs = pafs.S3FileSystem(endpoint_override=f"127.0.0.1:{port}", scheme="http",
                                   access_key="test", secret_key="test", region="us-east-1")
            pafs.copy_files(str(out), "bench/out", destination_filesystem=fs)
            target = "s3://bench/out"
            files = [f"bench/out/{Path(f).name}" for f in files]
        results = {}
        for name, (sql, arrow) in QUERIES.items():
            ours, theirs = [], []
            for _ in range(args.rounds):
                t = time.monotonic()
                subprocess.run([args.bin, "query", "--output", target, "--format", "csv", sql],
                               check=True, capture_output=True)
                ours.append(time.monotonic() - t)
                t = time.monotonic()
                arrow(ds.dataset(files, filesystem=fs, format="parquet"))
                theirs.append(time.monotonic() - t)
            a, b = statistics.median(ours), statistics.median(theirs)
            results[name] = {"altflow_s": round(a, 3), "pyarrow_s": round(b, 3),
                             "ratio": round(a / b, 2)}
            print(f"{name:>14}: altflow {a:.3f} s, pyarrow {b:.3f} s, ratio {a / b:.2f}",
                  flush=True)
        print(json.dumps(results))
        if moto is not None:
            moto.terminate()


if __name__ == "__main__":
    main()
