#!/usr/bin/env python3
"""Memory and time of the exact shared-text pass (`altflow query --max-images-per-text`) under
memory limits, side by side.

    python3 scripts/bench_shared_texts.py [--bin target/release/altflow] [--rows 2000000]
                                          [--indexes 200] [--limits 0,2048,256,64] [--rounds 3]

Makes an output of INDEXES shard indexes holding ROWS samples in all (only the columns the pass
reads: key, alt, sha256; the others read as nulls): alt texts of ~90 characters, 80 % of them
distinct, the rest shared by two images, and one text ("logo") shared by 1,000. Then runs
`altflow query --max-images-per-text 5 --memory-mb M "SELECT count(*) ..."` for every limit M in
turn, ROUNDS times, and prints the median wall time and peak resident memory of each (the whole
process, from wait4's rusage), with the count it returned, which must not change with the limit.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
SQL = "SELECT count(*) AS n FROM samples"


def make_output(out: Path, rows: int, indexes: int) -> int:
    """Writes the indexes; returns how many samples the pass must keep at --max-images-per-text 5."""
    out.mkdir(parents=True, exist_ok=True)
    distinct = int(rows * 0.8)
    per_index = -(-rows // indexes)
    logos = 1000
    for i in range(indexes):
        first, last = i * per_index, min(rows, (i + 1) * per_index)
        ids = range(first, last)
        alts = [
            "logo" if n < logos else
            f"photo {n % distinct} of a street market at dusk with stalls, lanterns and a crowd"
            for n in ids
        ]
        table = pa.table({
            "key": pa.array([f"{n:012x}" for n in ids]),
            "alt": pa.array(alts),
            "sha256": pa.array([f"{n:064x}" for n in ids]),
        })
        pq.write_table(table, out / f"shard-p{i % 12:04}-o{first:012}.parquet",
                       compression="snappy")
    return rows - logos


def run(binary: str, output: Path, limit: int) -> tuple[float, float, str]:
    """(seconds, peak RSS in MiB, stdout) of one query process."""
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        started = time.monotonic()
        proc = subprocess.Popen(
            [binary, "query", "--output", str(output), "--max-images-per-text", "5",
             "--memory-mb", str(limit), "--format", "csv", SQL],
            stdout=stdout, stderr=stderr)
        # wait4 rather than wait: its rusage is this child's alone (ru_maxrss in KiB on Linux).
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.monotonic() - started
        if os.waitstatus_to_exitcode(status) != 0:
            stderr.seek(0)
            sys.exit(f"--memory-mb {limit} failed: {stderr.read().decode()}")
        stdout.seek(0)
        return elapsed, usage.ru_maxrss / 1024, stdout.read().decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=str(ROOT / "target/release/altflow"))
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--indexes", type=int, default=200)
    parser.add_argument("--limits", default="0,2048,256,64",
                        help="--memory-mb values, comma-separated (0: unbounded)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    limits = [int(x) for x in args.limits.split(",")]
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "out"
        want = make_output(out, args.rows, args.indexes)
        times = {m: [] for m in limits}
        peaks = {m: [] for m in limits}
        for _ in range(args.rounds):
            for m in limits:
                seconds, peak, stdout = run(args.bin, out, m)
                got = int(stdout.split()[1])
                if got != want:
                    sys.exit(f"--memory-mb {m} kept {got} samples, want {want}")
                times[m].append(seconds)
                peaks[m].append(peak)
        print(f"{args.rows:,} samples in {args.indexes} indexes, {args.rounds} rounds, "
              f"all kept {want:,}")
        print("| --memory-mb | median time | median peak RSS |")
        print("|---|---|---|")
        for m in limits:
            print(f"| {m or 'unbounded'} | {statistics.median(times[m]):.2f} s | "
                  f"{statistics.median(peaks[m]):.0f} MiB |")


if __name__ == "__main__":
    main()
