"""A shard announced twice on `shards` is trained on once, however the two announcements arrive.

A writer that takes a partition over keeps the shards its previous owner landed without committing
and announces them again (src/writer/mod.rs, step 3 of gaining a partition): a SIGKILLed writer, a
rebalance or a drain cut short by a stage change leave two announcements of one shard on the topic,
often close together. The reader takes a shard once, by name. Here the topic is a stand-in for
confluent-kafka's consumer (no broker) that hands both announcements in one `consume()` call — as
the real one does when they land within its timeout, or when a (re)started reader reads them in
its backlog — and the shard is real files in a temporary directory, read through the shuffle buffer
and counted by `Progress` as scripts/soak.py's readers (python/tests/reader_proc.py) count."""
import io
import sys
import tarfile
import time
import types

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from altflow_reader import AltflowDataset, Progress, encode

TOPIC = "t.shards"
# The epoch's watermark, an hour ahead: the pass ends on a message from it on, not on the clock.
UNTIL_MS = int(time.time() * 1000) + 3_600_000


def write_shard(directory, name, rows):
    """A WebDataset tar of `rows` JPEG-looking members and its Parquet index (key, jpg_offset,
    jpg_bytes), as the writer lays them out."""
    tar_path, index_path = directory / f"{name}.tar", directory / f"{name}.parquet"
    keys, sizes = [], []
    with tarfile.open(tar_path, "w", format=tarfile.USTAR_FORMAT) as tar:
        for n in range(rows):
            key = f"{name}/{n:04}"
            data = bytes([0xFF, 0xD8, 0xFF, n]) + bytes(100 + n)
            info = tarfile.TarInfo(f"{n:04}.jpg")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
            keys.append(key)
            sizes.append(len(data))
    with tarfile.open(tar_path) as tar:
        offsets = [member.offset_data for member in tar.getmembers()]
    pq.write_table(pa.table({"key": keys, "jpg_offset": offsets, "jpg_bytes": sizes}), index_path)
    return {"url": str(tar_path), "index_url": str(index_path), "rows": rows,
            "bytes": tar_path.stat().st_size, "partition": 0}


class Message:
    def __init__(self, partition, offset, value=None, timestamp=None, eof=False):
        self._partition, self._offset, self._value = partition, offset, value
        self._timestamp, self._eof = timestamp, eof

    def error(self):
        return FakeKafka.EOF if self._eof else None

    def partition(self):
        return self._partition

    def offset(self):
        return self._offset

    def value(self):
        return self._value

    def timestamp(self):
        return (1, self._timestamp)  # TIMESTAMP_CREATE_TIME


class FakeKafka:
    """The parts of confluent_kafka that TopicSource uses: a one-partition `shards` topic whose
    `consume()` calls return the given lists of messages, one list per call (then nothing)."""

    class _Error:
        def code(self):
            return FakeKafka.KafkaError._PARTITION_EOF

    class KafkaError:
        _PARTITION_EOF = -191

    EOF = _Error()
    OFFSET_BEGINNING = -2

    def __init__(self, calls):
        self.calls = list(calls)
        fake = self

        class Consumer:
            def __init__(self, config):
                pass

            def list_topics(self, topic, timeout=None):
                partitions = {0: object()}
                return types.SimpleNamespace(topics={
                    topic: types.SimpleNamespace(error=None, partitions=partitions)})

            def assign(self, partitions):
                pass

            def consume(self, num_messages=1, timeout=-1):
                return fake.calls.pop(0) if fake.calls else []

            def close(self):
                pass

        self.module = types.ModuleType("confluent_kafka")
        self.module.Consumer = Consumer
        self.module.TopicPartition = lambda topic, partition, offset=None: (topic, partition)
        self.module.OFFSET_BEGINNING = self.OFFSET_BEGINNING
        self.module.KafkaError = self.KafkaError


def announcements(shards):
    """Each shard's announcement at the next offset of partition 0, before the watermark."""
    return [Message(0, offset, encode(fields), timestamp=UNTIL_MS - 60_000 + offset)
            for offset, fields in enumerate(shards)]


# How the two announcements reach the reader: in the backlog of a reader (re)started after both
# were produced, or in one consume() once it follows the stream (it waits out its timeout for more
# messages, and the reader only asks again once it has read the shards it was last given).
WAYS = {
    "backlog": lambda messages: [messages + [Message(0, len(messages), eof=True)]],
    "following": lambda messages: [
        [Message(0, 0, eof=True)],
        # Then the watermark passes (a message from `until_ms` on): the pass ends by itself.
        messages + [Message(0, len(messages), encode({"url": "x", "index_url": "y"}),
                            timestamp=UNTIL_MS)],
    ],
}


@pytest.mark.parametrize("way", sorted(WAYS))
def test_a_shard_announced_twice_in_one_batch_is_trained_once(tmp_path, monkeypatch, way):
    name = "shard-i00abcdef-p0000-o000000000041-g000001"
    other_name = "shard-i00abcdef-p0001-o000000000000-g000001"
    shard = write_shard(tmp_path, name, 20)
    other = write_shard(tmp_path, other_name, 3)
    # Announced, then announced again by the partition's next owner, which kept it.
    messages = announcements([shard, other, shard])
    kafka = FakeKafka(WAYS[way](messages))
    monkeypatch.setitem(sys.modules, "confluent_kafka", kafka.module)

    data = AltflowDataset(brokers="kafka:9092", topic=TOPIC, rank=0, world_size=1,
                          until_ms=UNTIL_MS, follow=way == "following", shuffle_buffer=8, seed=7)
    progress = Progress()
    keys = []
    for sample in data:
        assert sample["jpg"][:2] == b"\xff\xd8"
        progress.update(sample)  # raises on a sample consumed twice in the epoch
        keys.append(sample["__key__"])
    assert sorted(keys) == sorted([f"{name}/{n:04}" for n in range(20)]
                                  + [f"{other_name}/{n:04}" for n in range(3)])
    assert sorted(progress.state_dict()["complete"]) == sorted([f"{name}.tar", f"{other_name}.tar"])
    # The first announcement is the one kept (its offset is what Progress records).
    assert progress.state_dict()["offsets"] == {"0": 1}
