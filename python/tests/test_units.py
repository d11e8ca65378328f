"""The reader's parts on their own: announcements, progress, shard ownership."""
import json
import os
import subprocess
import sys

import pytest

from altflow_reader import Progress, decode, encode, owner
from altflow_reader.announcement import AnnouncementError
from conftest import ROOT


def test_announcements_round_trip_with_negative_and_large_numbers():
    fields = {"url": "s3://b/shard-p0001-o000000000010.tar", "index_url": "s3://b/x.parquet",
              "rows": 10, "bytes": 1 << 40, "partition": -1, "first_offset": 10,
              "last_offset": (1 << 62) + 5}
    assert decode(encode(fields)) == fields


def test_a_truncated_announcement_is_an_error_naming_the_field():
    data = encode({"url": "s3://b/shard.tar", "rows": 3})
    with pytest.raises(AnnouncementError, match="field 1"):
        decode(data[:5])


def test_unknown_fields_are_skipped():
    extra = bytes([8 * 9 | 2, 3]) + b"abc"  # field 9, length-delimited
    assert decode(encode({"rows": 4}) + extra)["rows"] == 4


def sample(shard, index, rows, epoch=0):
    return {"__shard__": shard, "__index__": index, "__rows__": rows, "__epoch__": epoch}


def test_progress_completes_shards_and_keeps_partial_rows_as_ranges():
    p = Progress()
    p.update([sample("a", i, 3) for i in range(3)] + [sample("b", i, 10) for i in (0, 1, 2, 7)])
    state = p.state_dict()
    assert state["complete"] == ["a"]
    assert state["partial"] == {"b": {"rows": 10, "done": [[0, 2], [7, 7]]}}
    assert Progress(state).consumed("b") == {0, 1, 2, 7}


def test_progress_refuses_a_sample_consumed_twice():
    p = Progress()
    p.update(sample("a", 0, 2))
    with pytest.raises(ValueError, match="twice"):
        p.update(sample("a", 0, 2))


def test_progress_takes_a_collated_batch_and_a_new_epoch_starts_afresh():
    p = Progress()
    p.update({"__shard__": ["a", "a"], "__index__": [0, 1], "__rows__": [5, 5],
              "__epoch__": [0, 0]})
    assert p.consumed("a") == {0, 1}
    p.update(sample("a", 0, 5, epoch=1))
    assert p.epoch == 1 and p.consumed("a") == {0}


def test_merged_states_hold_every_rank_and_refuse_mixed_epochs():
    a, b = Progress(), Progress()
    a.update(sample("x", 0, 2))
    b.update(sample("x", 1, 2))
    b.update(sample("y", 0, 4))
    merged = Progress.merge([a.state_dict(), b.state_dict()])
    assert merged["partial"]["x"]["done"] == [[0, 1]] and merged["samples"] == 3
    c = Progress()
    c.update(sample("z", 0, 1, epoch=2))
    with pytest.raises(ValueError, match="epochs"):
        Progress.merge([a.state_dict(), c.state_dict()])


def test_ownership_is_a_stable_partition_of_the_shards():
    names = [f"shard-p{p:04}-o{o:012}" for p in range(4) for o in range(0, 500, 10)]
    owners = [owner(n, 2, 3) for n in names]
    # Stable across processes (ranks and workers are processes): Python's own str hash is not.
    other = subprocess.run(
        [sys.executable, "-c", "import json, sys; from altflow_reader import owner; "
         "print(json.dumps([owner(n, 2, 3) for n in json.loads(sys.argv[1])]))",
         json.dumps(names)],
        capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT / "python")})
    assert [tuple(o) for o in json.loads(other.stdout)] == owners
    counts = [owners.count((r, w)) for r in range(2) for w in range(3)]
    assert min(counts) > len(names) / 6 / 2, counts
    # A rank owns the same shards whatever its number of data-loader workers, so that its own
    # progress covers them when it resumes with another number.
    for workers in (1, 2, 5):
        assert [owner(n, 2, workers)[0] for n in names] == [r for r, _ in owners]


def test_listing_reads_every_form_of_shard_name(tmp_path):
    from altflow_reader.sources import list_shards
    names = ["shard-p0001-o000000000010", "shard-r17-p0002-o000000000000",
             "shard-p0003-o000000000005-g000002", "shard-i00abcdef-p0004-o000000000007-g000001",
             "shard-i00abcdef-r17-p0005-o000000000009"]
    for name in names + ["shard-ixyz-p0001-o000000000010", "other"]:
        (tmp_path / f"{name}.parquet").write_bytes(b"")
    shards = list_shards(str(tmp_path))
    assert sorted(s.name for s in shards) == sorted(n + ".tar" for n in names)
    assert {(s.partition, s.first_offset) for s in shards} == {(1, 10), (2, 0), (3, 5), (4, 7), (5, 9)}


def test_a_shard_deleted_while_it_is_read_on_s3_is_cut_short_with_a_warning(s3, caplog):
    """On S3 every span of a shard is a ranged GET of its own: the tar can disappear between two
    of them (an announced shard deleted by an adoption, writer rule 4's double fault). The rows
    read so far stand; the rest is skipped, and the reader goes on."""
    import io

    import boto3
    import pyarrow as pa
    import pyarrow.parquet as pq
    from altflow_reader import AltflowDataset
    from altflow_reader.announcement import Shard
    from altflow_reader.storage import resolve

    base = f"s3://{s3['bucket']}/deleted-mid-read"
    name = "shard-i00abcdef-p0000-o000000000000-g000001"
    fs, tar_path = resolve(f"{base}/{name}.tar")
    # Three images far enough apart (past the reader's read-through gap) to be three GETs.
    offsets = [0, 3 << 19, 3 << 20]
    tar = bytearray(3 << 20 | 512)
    for n, at in enumerate(offsets):
        tar[at:at + 4] = bytes([0xFF, 0xD8, 0xFF, n])
    index = io.BytesIO()
    pq.write_table(pa.table({"key": [f"k{n}" for n in range(3)], "jpg_offset": offsets,
                             "jpg_bytes": [4, 4, 4]}), index)
    # Single PUTs (moto fails pyarrow's multipart uploads), with boto3, which moto brings.
    client = boto3.client("s3", endpoint_url=s3["endpoint"])
    for ext, body in (("tar", bytes(tar)), ("parquet", index.getvalue())):
        client.put_object(Bucket=s3["bucket"], Key=f"deleted-mid-read/{name}.{ext}", Body=body)

    shard = Shard(url=f"{base}/{name}.tar", index_url=f"{base}/{name}.parquet", rows=3)
    dataset = AltflowDataset(base, rank=0, world_size=1, follow=False)
    samples = dataset.read_shard(shard)
    first = next(samples)
    assert first["__key__"] == "k0" and first["jpg"] == bytes([0xFF, 0xD8, 0xFF, 0])
    fs.delete_file(tar_path)
    with caplog.at_level("WARNING"):
        rest = list(samples)
    assert rest == []
    assert any(name in r.getMessage() and "gone" in r.getMessage() for r in caplog.records)


def test_a_merged_state_trained_on_becomes_that_ranks_state():
    def of(rank, world, shard, index):
        return {**sample(shard, index, 4), "__rank__": rank, "__world_size__": world}

    a, b = Progress(), Progress()
    a.update(of(0, 2, "x", 0))
    b.update(of(1, 2, "y", 0))
    merged = Progress(Progress.merge([a.state_dict(), b.state_dict()]))
    merged.check_resumable(0, 3)  # a merged state resumes any world
    merged.update(of(2, 3, "z", 0))
    state = merged.state_dict()
    assert (state["ranks"], state["world_size"], state["merged"]) == ([2], 3, False)
    # It now holds rank 2's new samples only: no other rank or world may resume from it.
    with pytest.raises(ValueError, match="Progress.merge"):
        Progress(state).check_resumable(0, 3)
    Progress(state).check_resumable(2, 3)
    with pytest.raises(ValueError, match="world of 2 ranks"):
        Progress(state).update(of(0, 2, "x", 1))
