"""The reader on a live stream: a Kafka pipeline writes to S3 while two ranks read; one rank is
SIGKILLed mid-epoch and restarted from its checkpoint; shards written during the epoch are read;
every sample of the epoch is trained on exactly once across the ranks."""
import collections
import json
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pyarrow.dataset as ds
import pytest
import pyarrow.fs as pafs

from altflow_reader import AltflowDataset, Progress, list_shards, storage
from altflow_reader.dataset import owner
from conftest import pipeline, stop

HERE = Path(__file__).resolve().parent


def keys_in(output):
    """Every key of every shard under `output` (pyarrow, not the reader); listed again when a
    listed index is deleted before it is read."""
    fs, base = storage.resolve(output)
    for _ in range(10):
        files = [i.path for i in fs.get_file_info(pafs.FileSelector(base, allow_not_found=True))
                 if i.base_name.startswith("shard-") and i.base_name.endswith(".parquet")]
        if not files:
            return []
        try:
            return ds.dataset(files, filesystem=fs, format="parquet").to_table(
                columns=["key"])["key"].to_pylist()
        except FileNotFoundError:
            time.sleep(0.2)
    raise AssertionError(f"{output}: indexes keep disappearing")


def wait_until(what, condition, seconds=180, poll=0.2):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not in {seconds} s: {what}"
        time.sleep(poll)


class Stream:
    def __init__(self, work, altflow_bin, broker, s3, web):
        self.work, self.bin, self.web = work, altflow_bin, web
        run = uuid.uuid4().hex[:8]
        self.output = f"s3://{s3['bucket']}/stream-{run}"
        self.prefix = f"t{run}."
        self.extra = (f'brokers = "{broker}"\ngroup_prefix = "g{run}."\ncommit_interval = "200ms"\n'
                      f'[topics]\nprefix = "{self.prefix}"')
        self.topic = self.prefix + "shards"
        self.broker = broker

    def start(self, name, start, stop_at):
        """Starts the pipeline over images start..stop_at; `finish` waits for them and stops it."""
        pipe = pipeline(self.work / f"{name}.toml", self.web.url_list(name, start, stop_at),
                        self.output, bus="kafka", extra=self.extra)
        log = open(self.work / f"{name}.log", "w")
        proc = subprocess.Popen([self.bin, "run", str(pipe)], cwd=self.work, stdout=log,
                                stderr=subprocess.STDOUT)
        return name, proc, len(keys_in(self.output)) + stop_at - start

    def finish(self, running):
        name, proc, expected = running
        try:
            wait_until(f"{name}: {expected} samples in the output",
                       lambda: len(keys_in(self.output)) >= expected)
        finally:
            assert stop(proc) == 0, (self.work / f"{name}.log").read_text()[-3000:]

    def reader(self, rank, checkpoint, idle_timeout=30):
        return subprocess.Popen(
            [sys.executable, str(HERE / "reader_proc.py"), str(checkpoint), "--rank", str(rank),
             "--world-size", "2", "--output", self.output, "--brokers", self.broker, "--topic",
             self.topic, "--idle-timeout", str(idle_timeout)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def checkpoint_samples(path):
    try:
        return json.loads(path.read_text())["progress"]["samples"]
    except (FileNotFoundError, json.JSONDecodeError, TypeError):
        return 0


def test_two_ranks_killed_and_restarted_read_each_sample_once(tmp_path, altflow_bin, broker,
                                                              s3, web):
    stream = Stream(tmp_path, altflow_bin, broker, s3, web)
    stream.finish(stream.start("first", 0, 150))
    first = set(keys_in(stream.output))
    assert len(first) == 150

    checkpoints = [tmp_path / "rank0.json", tmp_path / "rank1.json"]
    readers = [stream.reader(0, checkpoints[0]), stream.reader(1, checkpoints[1])]
    # More shards land while the epoch runs.
    second_run = stream.start("second", 150, 300)
    # Rank 0 dies mid-epoch (SIGKILL: no clean-up), after some steps, and restarts.
    wait_until("rank 0 trained on 20 samples", lambda: checkpoint_samples(checkpoints[0]) >= 20,
               seconds=60, poll=0.01)
    readers[0].kill()
    readers[0].wait()
    killed_at = json.loads(checkpoints[0].read_text())
    assert killed_at["progress"]["partial"] or killed_at["progress"]["complete"]
    readers[0] = stream.reader(0, checkpoints[0])

    stream.finish(second_run)
    everything = set(keys_in(stream.output))
    second = everything - first
    assert len(second) == 150

    results = []
    for rank, reader in enumerate(readers):
        out, err = reader.communicate(timeout=180)
        assert reader.returncode == 0, err.decode()[-3000:]
        results.append(json.loads(out.decode().strip().splitlines()[-1]))
    trained = [json.loads(p.read_text())["keys"] for p in checkpoints]
    counts = collections.Counter(trained[0] + trained[1])
    duplicated = [k for k, n in counts.items() if n > 1]
    assert not duplicated, f"{len(duplicated)} samples trained on twice"
    assert set(counts) == everything, (
        f"missing {len(everything - set(counts))}, unknown {len(set(counts) - everything)}")
    # Both ranks had work, and the shards written during the epoch were read.
    assert all(len(t) > 50 for t in trained), [len(t) for t in trained]
    assert second <= set(counts)
    # The ranks' states merge into one that names every shard as complete.
    merged = Progress.merge(json.loads(p.read_text())["progress"] for p in checkpoints)
    assert merged["samples"] == 300 and not merged["partial"]
    assert sorted(merged["complete"]) == sorted(s.name for s in list_shards(stream.output))


def test_listing_follows_new_shards_and_workers_split_them(tmp_path, altflow_bin, web):
    """Without a broker: the output is listed, then listed again; slots split the shards."""
    out = tmp_path / "out"
    pipe = pipeline(tmp_path / "p.toml", web.url_list("listing", 300, 340), str(out))
    subprocess.run([altflow_bin, "run", str(pipe)], cwd=tmp_path, check=True,
                   capture_output=True, timeout=300)
    data = AltflowDataset(str(out), follow=False)
    slots = [list(data.samples(slot, 3)) for slot in range(3)]
    keys = [s["__key__"] for slot in slots for s in slot]
    assert sorted(keys) == sorted(keys_in(str(out))) and len(keys) == 40
    # Each slot reads exactly the shards the hash of their names gives it (which slots get any
    # depends on the names: with a few shards, all may hash to one slot).
    shards = [{s["__shard__"] for s in slot} for slot in slots]
    every = set().union(*shards)
    for slot in range(3):
        assert shards[slot] == {s for s in every if owner(s, 1, 3)[1] == slot}, slot

    # Following: a second run's shards arrive while the reader waits.
    follower = AltflowDataset(str(out), idle_timeout=8, poll_interval=0.5)
    got = []
    pipe2 = pipeline(tmp_path / "p2.toml", web.url_list("listing2", 340, 360), str(out))
    later = None
    for sample in follower:
        got.append(sample["__key__"])
        if later is None and len(got) == 40:
            later = subprocess.Popen([altflow_bin, "run", str(pipe2)], cwd=tmp_path,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert later is not None and later.wait(60) == 0
    assert len(got) == 60 and len(set(got)) == 60


def test_resume_skips_what_was_consumed_even_from_a_shuffle_buffer(tmp_path, altflow_bin, web):
    out = tmp_path / "out"
    pipe = pipeline(tmp_path / "p.toml", web.url_list("resume", 360, 400), str(out))
    subprocess.run([altflow_bin, "run", str(pipe)], cwd=tmp_path, check=True,
                   capture_output=True, timeout=300)
    data = AltflowDataset(str(out), follow=False, shuffle_buffer=16, seed=3)
    progress = Progress()
    first = []
    for sample in data:
        progress.update(sample)
        first.append(sample["__key__"])
        if len(first) == 17:
            break  # the buffer still holds samples that were read but not consumed
    assert progress.state_dict()["partial"]
    rest = [s["__key__"] for s in AltflowDataset(str(out), follow=False, shuffle_buffer=16,
                                                  seed=3, resume=progress.state_dict())]
    assert sorted(first + rest) == sorted(keys_in(str(out)))
    assert len(first + rest) == 40
    # A new epoch reads everything again.
    again = AltflowDataset(str(out), follow=False, resume=progress.state_dict())
    again.set_epoch(1)
    assert len(list(again)) == 40


def test_resume_with_other_workers_and_ranks_reads_each_sample_once_or_refuses(
        tmp_path, altflow_bin, web):
    """A job of 2 ranks × 2 workers stops partway; it resumes as 1 rank × 3 workers from the
    merged state (each sample once), and a single rank's state is refused by any other world."""
    out = tmp_path / "out"
    pipe = pipeline(tmp_path / "p.toml", web.url_list("workers", 120, 180), str(out))
    subprocess.run([altflow_bin, "run", str(pipe)], cwd=tmp_path, check=True,
                   capture_output=True, timeout=300)
    everything = sorted(keys_in(str(out)))
    assert len(everything) == 60

    def consume(rank, world, workers, resume, limit):
        """A data loader's round robin over `workers` workers of rank `rank`, counted in the
        training process as a trainer does."""
        data = AltflowDataset(str(out), follow=False, rank=rank, world_size=world,
                              resume=resume)
        streams = [data.samples(w, workers) for w in range(workers)]
        progress, keys = Progress(resume), []
        while streams and len(keys) < limit:
            for stream in list(streams):
                sample = next(stream, None)
                if sample is None:
                    streams.remove(stream)
                    continue
                progress.update(sample)
                keys.append(sample["__key__"])
        return progress.state_dict(), keys

    states, firsts = [], []
    for rank in range(2):
        state, keys = consume(rank, 2, 2, None, 11)
        states.append(state)
        firsts.append(keys)
    first = firsts[0] + firsts[1]
    merged = Progress.merge(states)
    _, rest = consume(0, 1, 3, merged, 10 ** 6)
    assert sorted(first + rest) == everything

    # Rank 0's state alone would read rank 1's consumed samples again in a world of one.
    with pytest.raises(ValueError, match="Progress.merge"):
        AltflowDataset(str(out), follow=False, rank=0, world_size=1, resume=states[0])
    with pytest.raises(ValueError, match="rank 1 of 2"):
        AltflowDataset(str(out), follow=False, rank=1, world_size=2, resume=states[0])
    # The same rank of the same world resumes from its own state, with any number of workers.
    # (A rank's shards do not depend on its number of workers: with 3 workers it would otherwise
    # take shards of rank 0's, and some of the ones it had consumed again.)
    _, again = consume(1, 2, 3, states[1], 10 ** 6)
    _, share = consume(1, 2, 1, None, 10 ** 6)
    assert sorted(firsts[1] + again) == sorted(share)


def test_topic_watermark_bounds_the_epoch_and_skips_what_is_not_a_shard(broker):
    """Announcements produced here with chosen timestamps: the pass holds those before `until_ms`
    and ends by itself; the failures stage's files and undecodable messages are not shards."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from altflow_reader import encode

    topic = f"t{uuid.uuid4().hex[:8]}.shards"
    admin = AdminClient({"bootstrap.servers": broker})
    admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)])[topic].result(30)
    producer = Producer({"bootstrap.servers": broker})
    now = int(time.time() * 1000)
    before = [f"shard-p0000-o{i:012}" for i in range(0, 50, 10)]
    after = [f"shard-p0001-o{i:012}" for i in range(0, 30, 10)]
    for i, name in enumerate(before):
        producer.produce(topic, encode({"url": f"s3://b/{name}.tar",
                                        "index_url": f"s3://b/{name}.parquet", "rows": 10}),
                         key=name, partition=i % 2, timestamp=now - 60_000 + i)
    producer.produce(topic, encode({"url": "s3://b/failures/1/00000.parquet", "rows": 3}),
                     partition=0, timestamp=now - 50_000)
    producer.produce(topic, b"\xff\xff\xff", partition=1, timestamp=now - 50_000)
    for i, name in enumerate(after):
        producer.produce(topic, encode({"url": f"s3://b/{name}.tar",
                                        "index_url": f"s3://b/{name}.parquet", "rows": 10}),
                         key=name, partition=i % 2, timestamp=now - 10_000 + i)
    assert producer.flush(30) == 0
    started = time.monotonic()
    data = AltflowDataset(brokers=broker, topic=topic, until_ms=now - 30_000)
    got = [s.name for s in data.shards()]
    assert sorted(got) == sorted(n + ".tar" for n in before)
    assert time.monotonic() - started < 20  # ended by the watermark, not by an idle timeout
    # Without a watermark, the pass ends when the topic has been quiet for idle_timeout.
    data = AltflowDataset(brokers=broker, topic=topic, idle_timeout=2)
    assert sorted(s.name for s in data.shards()) == sorted(n + ".tar" for n in before + after)


def test_a_pipeline_killed_right_after_a_shard_landed_is_trained_once(tmp_path, altflow_bin,
                                                                      broker, s3, web):
    """The writer's window: a shard put, announced and trained on, its offsets not yet committed,
    the process SIGKILLed. The restarted pipeline replays from the committed offset while two ranks
    follow `shards`; every sample is trained on once (before: the restart deleted the shards the
    ranks had read and wrote their samples again under other names)."""
    stream = Stream(tmp_path, altflow_bin, broker, s3, web)
    # No timer commit before the kill: every shard that landed is in the window (announced, maybe
    # read, not committed), however fast this machine crawls. (With commits 10 s apart, a fast run
    # could land and commit all 200 before a rank trained, and the test then proved nothing.)
    stream.extra = stream.extra.replace('commit_interval = "200ms"', 'commit_interval = "1h"')
    # The restart's members wait for the killed ones' sessions to expire before they are handed
    # their partitions: 6 s here rather than librdkafka's 45 s.
    stream.extra = stream.extra.replace(
        "[topics]", '[bus.consumer_options]\n"session.timeout.ms" = "6000"\n'
                    '"heartbeat.interval.ms" = "1000"\n[topics]')
    checkpoints = [tmp_path / "rank0.json", tmp_path / "rank1.json"]
    # Patient readers: the gap between the killed run's last shard and the restart's first is the
    # restart's start-up, its join and the killed members' sessions (about 20 s here).
    readers = [stream.reader(rank, checkpoints[rank], idle_timeout=60) for rank in (0, 1)]
    name, proc, _ = stream.start("first", 0, 200)
    # As soon as a trainer has trained on a sample of the first shards, before their commit.
    wait_until("a trained sample", lambda: any(checkpoint_samples(c) for c in checkpoints),
               poll=0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    landed = len(keys_in(stream.output))
    assert landed > 0
    # The same pipeline again: it seeds the same images, and the writer drops what it has.
    name, proc, _ = stream.start("again", 0, 200)
    # The window was hit: the restart finds shards that landed without their commit. (Waited for
    # before stopping it: with all 200 landed, the output alone would say "done" at once.)
    log = tmp_path / "again.log"
    wait_until("the restart keeping an uncommitted shard",
               lambda: "keeping a shard landed but not committed" in log.read_text())
    stream.finish((name, proc, 200))
    everything = keys_in(stream.output)
    assert len(everything) == len(set(everything)) == 200, "a sample in two shards"

    trained = []
    for reader, checkpoint in zip(readers, checkpoints):
        out, err = reader.communicate(timeout=300)
        assert reader.returncode == 0, err.decode()[-3000:]
        assert checkpoint.exists(), f"{checkpoint.name}: trained nothing; {err.decode()[-3000:]}"
        trained += json.loads(checkpoint.read_text())["keys"]
    counts = collections.Counter(trained)
    duplicated = [k for k, n in counts.items() if n > 1]
    assert not duplicated, f"{len(duplicated)} samples trained on twice"
    assert set(counts) == set(everything), (
        f"missing {len(set(everything) - set(counts))}, unknown {len(set(counts) - set(everything))}")
    kept = log.read_text().count("keeping a shard landed but not committed")
    print(f"killed with {landed} samples landed; the restart kept {kept} uncommitted shard(s)")
