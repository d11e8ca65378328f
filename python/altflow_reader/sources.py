"""Where shards come from: a listing of the output (bootstrap, or polling without a broker) and the
`shards` topic of a Kafka-protocol broker (following the stream).

A source yields *batches* of shards: first everything that exists when it starts (the backlog, which
the reader may shuffle as a whole), then shards as they are announced. It ends when the epoch's
watermark is passed (`until_ms`: shards announced from then on belong to a later epoch) or when
nothing new has come for `idle_timeout` seconds; with neither it follows the stream for ever.
"""
from __future__ import annotations

import logging
import re
import time
import uuid
from typing import Iterator, List, Optional

import pyarrow.fs as pafs

from . import storage
from .announcement import AnnouncementError, Shard, decode

log = logging.getLogger("altflow_reader")

# Shard names as the writer writes them (src/writer/mod.rs, ShardName).
SHARD_NAME = re.compile(r"^shard-(?:i[0-9a-f]{8}-)?(?:r\d+-)?p(\d+)-o(\d+)(?:-g\d+)?$")


def list_shards(output: str, options: Optional[dict] = None) -> List[Shard]:
    """The finished shards under `output`: those whose index exists (the writer puts the tar
    first, then the index, so a listed index means a whole shard). Sorted by name."""
    fs, base = storage.resolve(output, options)
    try:
        infos = fs.get_file_info(pafs.FileSelector(base, recursive=False))
    except FileNotFoundError:
        return []
    shards = []
    for info in infos:
        stem, dot, ext = info.base_name.rpartition(".")
        if ext != "parquet" or not dot:
            continue
        name = SHARD_NAME.match(stem)
        if not name:
            continue
        mtime = info.mtime_ns // 1_000_000 if info.mtime_ns is not None else None
        shards.append(Shard(
            url=storage.join(output, stem + ".tar"),
            index_url=storage.join(output, info.base_name),
            partition=int(name.group(1)),
            first_offset=int(name.group(2)),
            timestamp_ms=mtime,
        ))
    shards.sort(key=lambda s: s.name)
    return shards


class ListingSource:
    """Shards by listing the output, again every `poll_interval` seconds while following."""

    def __init__(self, output: str, options: Optional[dict], follow: bool,
                 poll_interval: float, idle_timeout: Optional[float], until_ms: Optional[int]):
        self.output, self.options, self.follow = output, options, follow
        self.poll_interval, self.idle_timeout, self.until_ms = poll_interval, idle_timeout, until_ms

    def batches(self) -> Iterator[List[Shard]]:
        seen = set()
        last_new = time.monotonic()
        while True:
            fresh = [s for s in list_shards(self.output, self.options)
                     if s.name not in seen and _before(s, self.until_ms)]
            seen.update(s.name for s in fresh)
            if fresh:
                last_new = time.monotonic()
                yield fresh
            if not self.follow:
                return
            if self.idle_timeout is not None and time.monotonic() - last_new >= self.idle_timeout:
                return
            time.sleep(self.poll_interval)


def _before(shard: Shard, until_ms: Optional[int]) -> bool:
    return until_ms is None or shard.timestamp_ms is None or shard.timestamp_ms < until_ms


class TopicSource:
    """Shards from the `shards` topic, read from its first offset on every partition.

    No consumer group: every reader (each rank, each data-loader worker) reads the whole topic and
    keeps the shards it owns, so nothing on the broker has to agree with the trainer's checkpoint —
    the position is in the trainer's checkpoint ([`Progress`]). Announcements are small (a million
    shards is ~150 MB of topic), and the topic must keep them (retention) for as long as the
    dataset's epochs should include them; `output=` adds a listing for what has expired.
    """

    def __init__(self, brokers: str, topic: str, follow: bool, idle_timeout: Optional[float],
                 until_ms: Optional[int], kafka_options: Optional[dict] = None):
        self.brokers, self.topic, self.follow = brokers, topic, follow
        self.idle_timeout, self.until_ms = idle_timeout, until_ms
        self.kafka_options = dict(kafka_options or {})

    def _consumer(self):
        try:
            from confluent_kafka import Consumer, TopicPartition, OFFSET_BEGINNING
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("following a topic needs confluent-kafka: "
                              "pip install 'altflow-reader[kafka]'") from e
        config = {
            "bootstrap.servers": self.brokers,
            # Required by librdkafka, unused: partitions are assigned, never subscribed, and
            # offsets are never committed.
            "group.id": f"altflow-reader-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "auto.offset.reset": "earliest",
        }
        config.update(self.kafka_options)
        consumer = Consumer(config)
        deadline = time.monotonic() + 30
        while True:
            metadata = consumer.list_topics(self.topic, timeout=10)
            topic = metadata.topics.get(self.topic)
            if topic is not None and topic.error is None and topic.partitions:
                break
            if time.monotonic() > deadline:
                consumer.close()
                raise RuntimeError(f"topic {self.topic!r} not found on {self.brokers}")
            time.sleep(0.5)
        partitions = sorted(topic.partitions)
        consumer.assign([TopicPartition(self.topic, p, OFFSET_BEGINNING) for p in partitions])
        return consumer, partitions

    def batches(self) -> Iterator[List[Shard]]:
        from confluent_kafka import KafkaError

        consumer, partitions = self._consumer()
        at_end = set()        # partitions read up to their end (EOF since the last message)
        passed = set()        # partitions past the watermark
        backlog: List[Shard] = []
        in_backlog = True
        last_new = time.monotonic()
        try:
            while True:
                messages = consumer.consume(num_messages=500, timeout=0.5)
                fresh: List[Shard] = []
                for message in messages:
                    error = message.error()
                    if error is not None:
                        if error.code() == KafkaError._PARTITION_EOF:
                            at_end.add(message.partition())
                            continue
                        raise RuntimeError(f"reading {self.topic}: {error}")
                    at_end.discard(message.partition())
                    kind, stamp = message.timestamp()
                    stamp = stamp if kind != 0 else None
                    if self.until_ms is not None and stamp is not None and stamp >= self.until_ms:
                        passed.add(message.partition())
                        continue
                    try:
                        fields = decode(message.value() or b"")
                    except AnnouncementError as e:
                        log.warning("skipping %s[%d]@%d: not a shard announcement (%s)",
                                    self.topic, message.partition(), message.offset(), e)
                        continue
                    if not fields["index_url"]:
                        continue  # the failures stage's files: rejections, not samples
                    shard = Shard(url=fields["url"], index_url=fields["index_url"],
                                  rows=fields["rows"], partition=fields["partition"],
                                  first_offset=fields["first_offset"],
                                  announced=(message.partition(), message.offset()),
                                  timestamp_ms=stamp)
                    fresh.append(shard)  # one announced again: the dataset keeps the first
                now = time.monotonic()
                if fresh:
                    last_new = now
                caught_up = len(at_end | passed) == len(partitions)
                if in_backlog:
                    backlog += fresh
                    # The first pass ends when every partition has been read to its end; a broker
                    # that reports no EOF still ends it after a quiet second.
                    if caught_up or (not messages and now - last_new > 1.0):
                        in_backlog = False
                        if backlog:
                            yield backlog
                        backlog = []
                elif fresh:
                    yield fresh
                if len(passed) == len(partitions):
                    return
                # A partition with nothing after the watermark never passes it: once the clock
                # has, the end of every partition is the end of the pass.
                if (self.until_ms is not None and caught_up and not in_backlog
                        and time.time() * 1000 >= self.until_ms):
                    return
                if not in_backlog and not self.follow:
                    return
                if (not in_backlog and self.idle_timeout is not None
                        and now - last_new >= self.idle_timeout):
                    return
        finally:
            consumer.close()
