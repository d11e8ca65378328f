"""`altflow query` against pyarrow over the same index files, on a local output and on S3."""
import io
import json
import subprocess
import sys
import tarfile

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

from altflow_reader import AltflowDataset, storage
from conftest import ROOT, pipeline


def run(altflow_bin, *args, cwd=None):
    done = subprocess.run([altflow_bin, *args], capture_output=True, cwd=cwd, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


@pytest.fixture(scope="module", params=["local", "s3"])
def output(request, tmp_path_factory, altflow_bin, web):
    """An output written by a real run: 120 samples into a directory, or into an S3 bucket."""
    work = tmp_path_factory.mktemp("query")
    if request.param == "local":
        target = str(work / "out")
    else:
        s3 = request.getfixturevalue("s3")
        target = f"s3://{s3['bucket']}/query"
    pipe = pipeline(work / "p.toml", web.url_list("query", 0, 120), target)
    run(altflow_bin, "run", str(pipe), cwd=work)
    return target


def indexes(output):
    """pyarrow's own view: every shard index at the top of the output, as one table."""
    fs, base = storage.resolve(output)
    files = [i.path for i in fs.get_file_info(pafs.FileSelector(base))
             if i.base_name.startswith("shard-") and i.base_name.endswith(".parquet")]
    assert len(files) >= 12, files  # 120 samples, 10 per shard at most
    return ds.dataset(files, filesystem=fs, format="parquet").to_table()


def query_json(altflow_bin, output, sql):
    out = run(altflow_bin, "query", "--output", output, "--format", "json", sql)
    return [json.loads(line) for line in out.decode().splitlines()]


def test_aggregates_equal_pyarrows(altflow_bin, output):
    table = indexes(output)
    [row] = query_json(altflow_bin, output,
                       "SELECT count(*) AS n, sum(width) AS w, sum(jpg_bytes) AS b, "
                       "count(DISTINCT shard) AS shards FROM samples")
    assert row == {
        "n": table.num_rows,
        "w": pc.sum(table["width"]).as_py(),
        "b": pc.sum(table["jpg_bytes"]).as_py(),
        "shards": len(set(table["shard"].to_pylist())),
    }
    assert table.num_rows == 120


def test_group_by_equals_pyarrows(altflow_bin, output):
    table = indexes(output)
    got = query_json(altflow_bin, output,
                     "SELECT source_partition AS p, count(*) AS n, max(source_offset) AS last "
                     "FROM samples GROUP BY source_partition ORDER BY p")
    grouped = table.group_by("source_partition").aggregate(
        [("source_partition", "count"), ("source_offset", "max")]).sort_by("source_partition")
    want = [{"p": p, "n": n, "last": m} for p, n, m in zip(
        grouped["source_partition"].to_pylist(), grouped["source_partition_count"].to_pylist(),
        grouped["source_offset_max"].to_pylist())]
    assert got == want


def test_filtered_rows_equal_pyarrows_as_csv(altflow_bin, output):
    table = indexes(output)
    sql = ("SELECT key, caption, image_url, shard, jpg_offset, jpg_bytes FROM samples "
           "WHERE caption LIKE '%number 1%' ORDER BY key")
    got = pacsv.read_csv(io.BytesIO(run(altflow_bin, "query", "--output", output, "--format",
                                        "csv", sql)))
    want = table.filter(pc.match_like(table["caption"], "%number 1%")).select(
        ["key", "caption", "image_url", "shard", "jpg_offset", "jpg_bytes"]).sort_by("key")
    assert 0 < want.num_rows < table.num_rows
    assert got.to_pylist() == want.to_pylist()


def test_parquet_result_equals_pyarrows_rows(altflow_bin, output, tmp_path):
    table = indexes(output).sort_by("key")
    dest = tmp_path / "all.parquet"
    run(altflow_bin, "query", "--output", output, "--format", "parquet", "--to", str(dest),
        "SELECT * FROM samples ORDER BY key")
    got = pq.read_table(dest)
    assert got.column_names == table.column_names
    assert got.to_pylist() == table.to_pylist()


def test_select_writes_a_manifest_that_locates_images(altflow_bin, output, tmp_path):
    table = indexes(output)
    dest = tmp_path / "subset.parquet"
    run(altflow_bin, "query", "--output", output, "--select", str(dest),
        "SELECT key FROM samples WHERE source_offset % 3 = 0")
    manifest = pq.read_table(dest)
    want = table.filter(pa.array([o % 3 == 0 for o in table["source_offset"].to_pylist()]))
    assert sorted(manifest["key"].to_pylist()) == sorted(want["key"].to_pylist())
    assert 0 < manifest.num_rows < table.num_rows
    # Every row's image is where the manifest says: the bytes of KEY.jpg in the tar.
    tars = {}
    for row in manifest.to_pylist()[:12]:
        fs, path = storage.resolve(row["shard_url"])
        if path not in tars:
            with fs.open_input_file(path) as f:
                tars[path] = f.read()
        data = tars[path]
        jpg = data[row["jpg_offset"]:row["jpg_offset"] + row["jpg_bytes"]]
        member = tarfile.open(fileobj=io.BytesIO(data)).extractfile(row["key"] + ".jpg").read()
        assert jpg == member and jpg[:2] == b"\xff\xd8"
    # The reader takes the manifest as a dataset: the same samples, the same bytes.
    samples = list(AltflowDataset(manifest=str(dest)))
    assert sorted(s["__key__"] for s in samples) == sorted(manifest["key"].to_pylist())
    for s in samples[:12]:
        fs, path = storage.resolve(s["shard_url"])
        if path in tars:
            member = tarfile.open(fileobj=io.BytesIO(tars[path])).extractfile(s["key"] + ".jpg")
            assert s["jpg"] == member.read()


def test_bad_sql_and_missing_output_fail_with_the_reason(altflow_bin, output, tmp_path):
    done = subprocess.run([altflow_bin, "query", "--output", output,
                           "SELECT nope FROM samples"], capture_output=True)
    assert done.returncode != 0 and b"nope" in done.stderr, done.stderr
    done = subprocess.run([altflow_bin, "query", "--output", str(tmp_path / "absent"),
                           "SELECT 1"], capture_output=True)
    assert done.returncode != 0 and b"does not exist" in done.stderr, done.stderr
    done = subprocess.run([altflow_bin, "query", "--output", output, "--select",
                           str(tmp_path / "x.parquet"), "SELECT caption FROM samples"],
                          capture_output=True)
    assert done.returncode != 0 and b"key" in done.stderr, done.stderr
    # An aggregation that cannot spill, over ~20 MB with 1 MiB allowed: the error names the flag.
    done = subprocess.run([altflow_bin, "query", "--output", output, "--memory-mb", "1",
                           "SELECT array_agg(repeat(alt, 5000)) FROM samples"],
                          capture_output=True)
    assert done.returncode != 0 and b"--memory-mb 1" in done.stderr, done.stderr


def test_reshard_copies_a_selection_into_shards_of_its_own(altflow_bin, output, tmp_path):
    table = indexes(output)
    dest = tmp_path / "subset"
    run(altflow_bin, "query", "--output", output, "--reshard", str(dest), "--shard-rows", "7",
        "SELECT key FROM samples WHERE caption LIKE '%1%'")
    want = table.filter(pc.match_substring(table["caption"], "1"))
    assert 7 < want.num_rows < table.num_rows
    # The new output passes the independent checker: tars, indexes, offsets, members.
    checked = subprocess.run([sys.executable, str(ROOT / "scripts/check_shards.py"), str(dest)],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    copied = indexes_of(dest)
    assert sorted(copied["key"].to_pylist()) == sorted(want["key"].to_pylist())
    assert max(len(copied.filter(pc.equal(copied["shard"], s))) for s in
               set(copied["shard"].to_pylist())) == 7
    # Every column but the image's place is the source's; the images are the source's bytes.
    source = {r["key"]: r for r in want.to_pylist()}
    samples = list(AltflowDataset(str(dest), follow=False))
    originals = {s["__key__"]: s["jpg"] for s in AltflowDataset(output, follow=False)}
    for s in samples:
        row = {k: v for k, v in s.items() if not k.startswith("__") and k != "jpg"}
        assert {k: v for k, v in row.items() if k not in ("jpg_offset", "shard")} == {
            k: v for k, v in source[s["key"]].items() if k not in ("jpg_offset", "shard")}
        assert s["jpg"] == originals[s["key"]]
    assert len(samples) == want.num_rows


def indexes_of(directory):
    files = sorted(str(p) for p in directory.glob("shard-*.parquet"))
    return ds.dataset(files, format="parquet").to_table()


def test_shared_texts_are_dropped_exactly_across_the_whole_output(altflow_bin, web, tmp_path):
    """Texts shared by many images, spread over shards and partitions: `--max-images-per-text`
    leaves out exactly the samples pyarrow finds with a text of more images than that."""
    import csv
    rows = list(csv.reader(web.url_list("shared", 200, 260).read_text().splitlines()))
    header, lines = rows[0], rows[1:]
    for i, line in enumerate(lines):
        if i % 6 == 0:  # 10 images with the same text, spelled three ways
            line[1] = ["The logo of the long tail", "the logo of the long  tail",
                       "THE LOGO OF THE LONG TAIL "][i % 3]
        elif i % 6 == 1 and i < 8:  # 2 images with one text
            line[1] = "a shared picture of the long tail"
    listed = tmp_path / "shared.csv"
    with open(listed, "w", newline="") as f:
        csv.writer(f).writerows([header] + lines)
    out = str(tmp_path / "out")
    run(altflow_bin, "run", str(pipeline(tmp_path / "p.toml", listed, out)), cwd=tmp_path)
    table = indexes_of(tmp_path / "out")
    assert table.num_rows == 60 and len(set(table["shard"].to_pylist())) >= 6
    key = pc.utf8_lower(pc.utf8_trim_whitespace(
        pc.replace_substring_regex(table["alt"], r"\s+", " ")))
    images = {}
    for text, sha in zip(key.to_pylist(), table["sha256"].to_pylist()):
        images.setdefault(text, set()).add(sha)
    # The server's pictures repeat, so the counts are of distinct images, as pyarrow finds them.
    logo, shared = (len(images["the logo of the long tail"]),
                    len(images["a shared picture of the long tail"]))
    assert logo > shared > 1, (logo, shared)
    for limit in (shared - 1, shared, logo - 1, logo):
        want = sorted(k for k, t in zip(table["key"].to_pylist(), key.to_pylist())
                      if len(images[t]) <= limit)
        got = run(altflow_bin, "query", "--output", out, "--max-images-per-text", str(limit),
                  "--format", "csv", "SELECT key FROM samples ORDER BY key").decode().split()[1:]
        assert got == want, limit
        # The same under the smallest memory limit (batches scaled down, the count spilling).
        got = run(altflow_bin, "query", "--output", out, "--max-images-per-text", str(limit),
                  "--memory-mb", "1", "--format", "csv",
                  "SELECT key FROM samples ORDER BY key").decode().split()[1:]
        assert got == want, limit
    [row] = query_json(altflow_bin, out, "SELECT images FROM texts WHERE text LIKE 'the logo%'")
    assert row == {"images": logo}
