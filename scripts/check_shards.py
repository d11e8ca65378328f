#!/usr/bin/env python3
"""Independent checker for altflow output (WebDataset tar shards + Parquet indexes).

Usage:
    python3 scripts/check_shards.py OUT_DIR [--expect-ids FILE] [--allow-empty]

What it checks:

* every ``*.tar`` under OUT_DIR (recursively) has an ``X.parquet`` next to it,
  and every ``*.parquet`` (outside ``failures/``) has an ``X.tar`` next to it;
* every tar member is a regular file named ``KEY.jpg``, ``KEY.txt`` or
  ``KEY.json``, or the optional ``KEY.npy`` or ``KEY.qa.json`` (KEY is non-empty and has no dots
  or slashes), no member
  appears twice, and every KEY has all three members;
* ``.jpg`` starts with the JPEG magic bytes FF D8 FF, ``.txt`` is non-empty
  UTF-8 (not just whitespace), ``.json`` is valid UTF-8 JSON;
* the Parquet file has a string column ``key`` without nulls or repeats
  whose set of keys equals the tar's;
* ``.qa.json`` is a JSON list of objects with a ``question`` ending in "?", a non-empty
  ``answer``, an ``answer_type`` and a ``source``, and the index's ``qa`` column holds as many
  pairs for the key;
* no KEY appears in more than one shard;
* with ``--expect-ids FILE`` (one key per line), the set of keys equals
  the set in FILE.

Errors go to stderr, one per line, naming the file (relative to OUT_DIR) and
the key. Exit status is 1 if anything is wrong. On success one JSON object is
printed to stdout::

    {"shards": N, "samples": M, "keys": [sorted list of keys]}

Only the standard library and pyarrow are used, so the result does not depend
on altflow's own code.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tarfile
from collections import defaultdict
from pathlib import Path

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError:  # pragma: no cover - environment problem, not a shard problem
    sys.exit("check_shards.py needs pyarrow: pip install pyarrow")

EXTENSIONS = ("jpg", "txt", "json")
# Written only when the scoring stage keeps CLIP embeddings, and when the qgen stage wrote questions.
OPTIONAL = ("npy", "qa.json")
JPEG_MAGIC = b"\xff\xd8\xff"


class Report:
    """Collects error messages, each tied to a file and optionally a key."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.errors: list[str] = []
        # Pairs in each (shard, key)'s .qa.json, to compare with that shard's index's qa column
        # (by shard: a key written twice must be reported as a duplicate, not as a qa mismatch).
        self.qa_by_key: dict[tuple[str, str], int] = {}

    def rel(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    def error(self, path: Path | None, message: str, key: str | None = None) -> None:
        where = [] if path is None else [self.rel(path)]
        if key is not None:
            where.append(f"key {key!r}")
        prefix = ": ".join(where)
        self.errors.append(f"{prefix}: {message}" if prefix else message)


# ---------------------------------------------------------------------------
# Finding shards
# ---------------------------------------------------------------------------


def find_shards(out_dir: Path, report: Report) -> list[Path]:
    """Return the sorted ``*.tar`` files under ``out_dir``, checking tar/parquet pairing."""
    tars = sorted(p for p in out_dir.rglob("*.tar") if p.is_file())
    # failures/ holds the failures stage's files, not shard indexes.
    parquets = sorted(p for p in out_dir.rglob("*.parquet")
                      if p.is_file() and "failures" not in p.relative_to(out_dir).parts[:-1])
    for tar in tars:
        if not tar.with_suffix(".parquet").is_file():
            report.error(tar, f"no matching Parquet index {tar.with_suffix('.parquet').name}")
    for parquet in parquets:
        if not parquet.with_suffix(".tar").is_file():
            report.error(parquet, f"no matching tar shard {parquet.with_suffix('.tar').name}")
    return tars


# ---------------------------------------------------------------------------
# Tar shards
# ---------------------------------------------------------------------------


def split_member_name(name: str) -> tuple[str, str] | None:
    """Split ``KEY.ext`` into (KEY, ext); None if the name does not have that shape."""
    if "/" in name or "\\" in name or "." not in name:
        return None
    key, ext = name.split(".", 1)
    if not key or ext not in EXTENSIONS + OPTIONAL:
        return None
    return key, ext


def check_member_content(ext: str, data: bytes) -> str | None:
    """Return an error message for a member's bytes, or None if they look right."""
    if ext == "npy":
        if not data.startswith(b"\x93NUMPY"):
            return ".npy does not start with the NumPy magic"
        return None
    if ext == "jpg":
        if not data.startswith(JPEG_MAGIC):
            return f".jpg does not start with JPEG magic FF D8 FF (starts with {data[:8].hex(' ') or 'nothing'})"
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f".{ext} is not valid UTF-8 ({exc.reason} at byte {exc.start})"
    if ext == "qa.json":
        try:
            pairs = json.loads(text)
        except json.JSONDecodeError as exc:
            return f".qa.json does not parse: {exc}"
        if not isinstance(pairs, list) or not pairs:
            return ".qa.json is not a non-empty list"
        for qa in pairs:
            if not (isinstance(qa, dict) and str(qa.get("question", "")).endswith("?")
                    and qa.get("answer") and qa.get("answer_type") and qa.get("source")):
                return f".qa.json has a malformed pair: {qa!r}"
        return None
    if ext == "txt":
        if not text.strip():
            return ".txt caption is empty" if not text else ".txt caption is only whitespace"
        return None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return f".json does not parse: {exc}"
    return None


def read_tar_keys(tar_path: Path, report: Report) -> list[str] | None:
    """Validate one tar shard and return its sample keys (None if it cannot be read)."""
    members_by_key: dict[str, set[str]] = defaultdict(set)
    try:
        with tarfile.open(tar_path, "r:") as tar:
            for member in tar:
                name = member.name
                if member.isdir():
                    report.error(tar_path, f"unexpected directory member {name!r}")
                    continue
                if not member.isfile():
                    report.error(tar_path, f"member {name!r} is not a regular file")
                    continue
                parts = split_member_name(name)
                if parts is None:
                    report.error(tar_path, f"unexpected member name {name!r} (want KEY.jpg, KEY.txt, KEY.json or KEY.npy)")
                    continue
                key, ext = parts
                if ext in members_by_key[key]:
                    report.error(tar_path, f"member {name!r} appears more than once", key)
                    continue
                members_by_key[key].add(ext)
                handle = tar.extractfile(member)
                if ext == "qa.json" and handle is not None:
                    data = handle.read()
                    try:
                        report.qa_by_key[(tar_path.stem, key)] = len(json.loads(data))
                    except (json.JSONDecodeError, TypeError):
                        pass
                    handle = io.BytesIO(data)
                data = handle.read() if handle is not None else b""
                problem = check_member_content(ext, data)
                if problem:
                    report.error(tar_path, problem, key)
    except (tarfile.TarError, OSError, EOFError) as exc:
        report.error(tar_path, f"cannot read tar: {exc}")
        return None

    for key, exts in sorted(members_by_key.items()):
        missing = [e for e in EXTENSIONS if e not in exts]
        if missing:
            report.error(tar_path, "missing member(s) " + ", ".join(f"{key}.{e}" for e in missing), key)
    return sorted(members_by_key)


# ---------------------------------------------------------------------------
# Parquet indexes
# ---------------------------------------------------------------------------


def read_parquet_keys(parquet_path: Path, report: Report) -> list[str] | None:
    """Read the ``key`` column of one Parquet index (None if unusable)."""
    try:
        table = pq.read_table(parquet_path)
    except Exception as exc:  # pyarrow raises several unrelated exception types
        report.error(parquet_path, f"cannot read Parquet: {exc}")
        return None
    if "key" not in table.column_names:
        report.error(parquet_path, f"no 'key' column (columns: {', '.join(table.column_names)})")
        return None
    column = table.column("key")
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        report.error(parquet_path, f"'key' column has type {column.type}, expected string")
        return None
    if column.null_count:
        report.error(parquet_path, f"'key' column has {column.null_count} null value(s)")
    return [k for k in column.to_pylist() if k is not None]


def compare_shard(tar_path: Path, tar_keys: list[str], parquet_path: Path, parquet_keys: list[str],
                  report: Report) -> None:
    """Check that a shard's tar and Parquet index list the same keys, once each."""
    seen: set[str] = set()
    for key in parquet_keys:
        if key in seen:
            report.error(parquet_path, "key listed more than once", key)
        seen.add(key)
    tar_set = set(tar_keys)
    for key in sorted(tar_set - seen):
        report.error(parquet_path, f"key is in {tar_path.name} but not in the Parquet index", key)
    for key in sorted(seen - tar_set):
        report.error(parquet_path, f"key is in the Parquet index but not in {tar_path.name}", key)
    if len(parquet_keys) != len(tar_keys):
        report.error(parquet_path, f"{len(parquet_keys)} Parquet row(s) but {len(tar_keys)} sample(s) in {tar_path.name}")


# ---------------------------------------------------------------------------
# Whole output directory
# ---------------------------------------------------------------------------


def check_index_qa(parquet_path: Path, report: Report) -> None:
    """The index's ``qa`` list column (when there) holds each key's pairs of its .qa.json."""
    table = pq.read_table(parquet_path)
    if "qa" not in table.column_names:
        return
    for key, pairs in zip(table.column("key").to_pylist(), table.column("qa").to_pylist()):
        want = report.qa_by_key.get((parquet_path.stem, key), 0)
        if len(pairs or []) != want:
            report.error(parquet_path, f"qa column has {len(pairs or [])} pairs, .qa.json {want}", key)


def check_duplicates(keys_by_shard: dict[Path, list[str]], report: Report) -> None:
    """Report keys that occur in more than one shard."""
    shards_by_key: dict[str, list[Path]] = defaultdict(list)
    for shard, keys in keys_by_shard.items():
        for key in keys:
            shards_by_key[key].append(shard)
    for key, shards in sorted(shards_by_key.items()):
        if len(shards) > 1:
            report.error(None, "duplicate key in shards " + ", ".join(report.rel(s) for s in shards), key)


def read_expected_ids(path: Path) -> set[str]:
    """Read one key per line; surrounding whitespace and blank lines are ignored."""
    with path.open(encoding="utf-8") as handle:
        return {line.strip() for line in handle if line.strip()}


def check_expected(keys: set[str], expected: set[str], path: Path, report: Report) -> None:
    """Report keys missing from the output and unexpected extra keys."""
    for key in sorted(expected - keys):
        report.error(path, "expected key is missing from the output", key)
    for key in sorted(keys - expected):
        report.error(path, "output has a key that is not expected", key)


def check_output(out_dir: Path, expect_ids: Path | None, allow_empty: bool) -> tuple[Report, dict]:
    """Run every check; return the report and the success summary."""
    report = Report(out_dir)
    tars = find_shards(out_dir, report)
    if not tars and not allow_empty:
        report.error(None, f"no *.tar shards found under {out_dir} (use --allow-empty if that is expected)")

    keys_by_shard: dict[Path, list[str]] = {}
    for tar_path in tars:
        tar_keys = read_tar_keys(tar_path, report)
        if tar_keys is None:
            continue
        keys_by_shard[tar_path] = tar_keys
        parquet_path = tar_path.with_suffix(".parquet")
        if parquet_path.is_file():
            parquet_keys = read_parquet_keys(parquet_path, report)
            if parquet_keys is not None:
                compare_shard(tar_path, tar_keys, parquet_path, parquet_keys, report)
                check_index_qa(parquet_path, report)

    check_duplicates(keys_by_shard, report)
    all_keys = sorted({k for keys in keys_by_shard.values() for k in keys})

    if expect_ids is not None:
        try:
            expected = read_expected_ids(expect_ids)
        except (OSError, UnicodeDecodeError) as exc:
            report.error(expect_ids, f"cannot read expected ids: {exc}")
        else:
            check_expected(set(all_keys), expected, expect_ids, report)

    summary = {
        "shards": len(tars),
        "samples": sum(len(keys) for keys in keys_by_shard.values()),
        "qa": sum(report.qa_by_key.values()),
        "keys": all_keys,
    }
    return report, summary


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Check altflow WebDataset tar shards and their Parquet indexes.")
    parser.add_argument("out_dir", metavar="OUT_DIR", type=Path,
                        help="directory searched recursively for *.tar / *.parquet")
    parser.add_argument("--expect-ids", metavar="FILE", type=Path,
                        help="file with one expected key per line; fail if the key set differs")
    parser.add_argument("--allow-empty", action="store_true",
                        help="succeed when OUT_DIR holds no shards at all")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.out_dir.is_dir():
        print(f"error: {args.out_dir}: not a directory", file=sys.stderr)
        return 1
    report, summary = check_output(args.out_dir, args.expect_ids, args.allow_empty)
    if report.errors:
        for message in report.errors:
            print(f"error: {message}", file=sys.stderr)
        print(f"{len(report.errors)} error(s) in {args.out_dir} "
              f"({summary['shards']} shard(s), {summary['samples']} sample(s))", file=sys.stderr)
        return 1
    json.dump(summary, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
