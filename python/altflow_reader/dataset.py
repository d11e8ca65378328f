"""`AltflowDataset`: altflow's shards as a stream of samples for a trainer."""
from __future__ import annotations

import io
import logging
import random
import zlib
from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence

import pyarrow.fs as pafs
import pyarrow.parquet as pq

from . import storage
from .announcement import Shard
from .progress import Progress
from .sources import ListingSource, TopicSource

log = logging.getLogger("altflow_reader")

try:  # A torch IterableDataset when torch is there, a plain iterable otherwise.
    import torch.utils.data as _torch_data

    _Base = _torch_data.IterableDataset
except ImportError:  # pragma: no cover - depends on the environment
    _torch_data = None
    _Base = object

# Images are read in spans of the tar of up to this size: an object store answers each read with a
# request of its own (a range GET per image ran at ~110 samples/s against a local S3 server).
_SPAN = 8 << 20
# A gap between wanted images up to this size is read through rather than paid with a request.
_GAP = 1 << 20


def _spans(rows: List[dict], wanted: List[int]) -> Iterator[tuple]:
    """(start, end, row numbers) of tar byte ranges covering the `wanted` rows' images, in order:
    neighbours closer than _GAP share a range of at most _SPAN bytes (or one image, if larger)."""
    start = end = None
    members: List[int] = []
    for i in wanted:
        first, last = rows[i]["jpg_offset"], rows[i]["jpg_offset"] + rows[i]["jpg_bytes"]
        if members and (first - end > _GAP or last - start > _SPAN):
            yield start, end, members
            members = []
        if not members:
            start = first
        end = last
        members.append(i)
    if members:
        yield start, end, members


def owner(shard: str, world_size: int, workers: int = 1) -> tuple:
    """(rank, worker) that reads `shard`: a hash of its name, so that every rank and worker decides
    alike, whatever order the shards arrive in and whoever restarts. The rank depends on the world
    size alone — a rank resumed with another number of data-loader workers owns the same shards
    (its own progress covers them) — and the worker on the hash's quotient, split within the rank."""
    digest = zlib.crc32(shard.encode("utf-8"))
    return digest % world_size, digest // world_size % workers


def _worker() -> tuple:
    if _torch_data is not None:
        info = _torch_data.get_worker_info()
        if info is not None:
            return info.id, info.num_workers
    return 0, 1


def _distributed() -> tuple:
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
    except ImportError:  # pragma: no cover
        pass
    return 0, 1


class AltflowDataset(_Base):
    """The samples of altflow's shards, split between ranks and data-loader workers.

    Shards come from the `shards` topic (`brokers=`, followed as the pipeline writes) and/or from a
    listing of the output (`output=`: the bootstrap, or without a broker the whole source, listed
    again every `poll_interval` s while following). A shard belongs to one rank, and within it to one
    data-loader worker, by a hash of its name; each worker streams its shards (the index, then the tar once,
    front to back; nothing is copied to disk) and yields samples, through a shuffle buffer if one
    is set.

    An epoch is a pass over the shards announced before its watermark: `until_ms` (announcement
    timestamps, the same for every rank), or the stream going quiet for `idle_timeout` s; with
    neither, one endless epoch follows the stream. `set_epoch(e)` starts pass `e` (shards in a new
    order, every shard read again, new ones included).

    Each sample is a dict: the index row's columns (`caption`, `key`, the scores, `labels`, `qa`,
    …), `jpg` (the image's bytes; with `decode="pil"` an RGB `PIL.Image` under `image`, with
    `decode="rgb"` a uint8 H×W×3 numpy array), and `__key__`, `__shard__`, `__index__` (the row in
    the shard's index), `__rows__`, `__epoch__`, `__announced__`, `__rank__`, `__world_size__`,
    which `Progress` counts. Pass a `Progress` state as `resume` to skip what a previous run
    consumed: the rank's own state with the same world size (any number of data-loader workers,
    since `Progress` counts in the training process), or `Progress.merge` of every rank's state
    with any world size; another rank's state alone is refused.
    """

    def __init__(
        self,
        output: Optional[str] = None,
        *,
        brokers: Optional[str] = None,
        topic: str = "shards",
        rank: Optional[int] = None,
        world_size: Optional[int] = None,
        follow: bool = True,
        idle_timeout: Optional[float] = None,
        until_ms: Optional[int] = None,
        poll_interval: float = 5.0,
        shuffle_buffer: int = 0,
        seed: int = 0,
        decode: Optional[str] = None,
        columns: Optional[Sequence[str]] = None,
        transform: Optional[Callable[[dict], dict]] = None,
        resume: Optional[Mapping] = None,
        manifest: Optional[str] = None,
        storage_options: Optional[dict] = None,
        kafka_options: Optional[dict] = None,
    ):
        if output is None and brokers is None and manifest is None:
            raise ValueError("give output= (a directory or URL to list), brokers= (to follow "
                             "the shards topic) or manifest= (a `altflow query --select` file)")
        if manifest is not None and (output is not None or brokers is not None):
            raise ValueError("a manifest is a dataset of its own: give it without output= or "
                             "brokers=")
        if decode not in (None, "pil", "rgb"):
            raise ValueError(f"decode must be None, 'pil' or 'rgb', not {decode!r}")
        if rank is None or world_size is None:
            found_rank, found_world = _distributed()
            rank = found_rank if rank is None else rank
            world_size = found_world if world_size is None else world_size
        if not 0 <= rank < world_size:
            raise ValueError(f"rank {rank} is not in 0..{world_size - 1}")
        self.output, self.brokers, self.topic = output, brokers, topic
        self.rank, self.world_size = rank, world_size
        self.follow, self.idle_timeout, self.until_ms = follow, idle_timeout, until_ms
        self.poll_interval = poll_interval
        self.shuffle_buffer, self.seed, self.decode = shuffle_buffer, seed, decode
        self.columns = list(columns) if columns is not None else None
        self.transform = transform
        self.storage_options, self.kafka_options = storage_options, kafka_options
        self.epoch = 0
        self._manifest_rows = self._load_manifest(manifest) if manifest is not None else None
        self._resume = Progress(resume) if resume else None
        if self._resume is not None:
            self._resume.check_resumable(rank, world_size)
            self.epoch = self._resume.epoch

    def set_epoch(self, epoch: int) -> None:
        """Begins pass `epoch` at the next iteration (as `DistributedSampler.set_epoch`)."""
        self.epoch = epoch

    # -- shards ----------------------------------------------------------------------------

    def _load_manifest(self, manifest: str) -> Dict[str, List[dict]]:
        """A manifest's rows by the tar they are in (`shard_url`)."""
        fs, path = storage.resolve(manifest, self.storage_options)
        table = pq.read_table(path, filesystem=fs)
        if "shard_url" not in table.column_names:
            raise ValueError(f"{manifest} is not a manifest (no shard_url column): write one "
                             "with `altflow query --select`")
        if self.columns is not None:
            table = table.select(sorted(set(self.columns) | {"key", "jpg_offset", "jpg_bytes",
                                                              "shard_url"}))
        by_tar: Dict[str, List[dict]] = {}
        for row in table.to_pylist():
            by_tar.setdefault(row["shard_url"], []).append(row)
        return by_tar

    def _batches(self) -> Iterator[List[Shard]]:
        if self._manifest_rows is not None:
            # A manifest's "shards" are its tars; a row's number is its place among the tar's rows
            # in the manifest, which is fixed by the file.
            yield [Shard(url=url, index_url="", rows=len(rows))
                   for url, rows in sorted(self._manifest_rows.items())]
            return
        seen = set()
        sources = []
        if self.output is not None:
            # With a broker the listing is only the bootstrap: the topic follows.
            sources.append(ListingSource(self.output, self.storage_options,
                                         self.follow and self.brokers is None,
                                         self.poll_interval, self.idle_timeout, self.until_ms))
        if self.brokers is not None:
            sources.append(TopicSource(self.brokers, self.topic, self.follow, self.idle_timeout,
                                       self.until_ms, self.kafka_options))
        for source in sources:
            for batch in source.batches():
                # A shard listed and announced, or announced again (the partition's next owner
                # kept it and announced it again), is read once: the first of its announcements
                # is kept, also when both are in one batch (a backlog; or one consume() of the
                # topic, which gathers what lands within its timeout, or everything that landed
                # while the reader was reading the shards it was given before).
                fresh = []
                for shard in batch:
                    if shard.name not in seen:
                        seen.add(shard.name)
                        fresh.append(shard)
                if fresh:
                    yield fresh

    def shards(self, worker: int = 0, workers: int = 1) -> Iterator[Shard]:
        """The shards of this rank's data-loader `worker` of `workers` for this epoch, in reading
        order: each batch (the backlog, then what arrives) shuffled when the dataset shuffles."""
        me = (self.rank, worker)
        slot = self.rank * workers + worker
        rng = random.Random(f"{self.seed}/{self.epoch}/{slot}")
        for batch in self._batches():
            mine = [s for s in batch if owner(s.name, self.world_size, workers) == me]
            if self.shuffle_buffer:
                rng.shuffle(mine)
            yield from mine

    # -- samples ---------------------------------------------------------------------------

    def read_shard(self, shard: Shard, skip: frozenset = frozenset()) -> Iterator[dict]:
        """The samples of one shard, in tar order, without the rows in `skip`. A shard that has
        disappeared (a writer that lost its partition took it back) is skipped with a warning."""
        rows = self._manifest_rows.get(shard.url) if self._manifest_rows else None
        if rows is None:
            fs, index_path = storage.resolve(shard.index_url, self.storage_options)
            columns = self.columns and sorted(set(self.columns) | {"key", "jpg_offset",
                                                                    "jpg_bytes"})
            try:
                rows = pq.read_table(index_path, filesystem=fs, columns=columns).to_pylist()
            except FileNotFoundError:
                log.warning("shard %s is gone (announced, then deleted): skipped", shard.name)
                return
        count = len(rows)
        wanted = sorted((i for i in range(count) if i not in skip),
                        key=lambda i: rows[i]["jpg_offset"])
        if not wanted:
            return
        fs, tar_path = storage.resolve(shard.url, self.storage_options)
        try:
            tar = fs.open_input_file(tar_path)
        except FileNotFoundError:
            log.warning("shard %s is gone (announced, then deleted): skipped", shard.name)
            return
        with tar:
            for start, end, members in _spans(rows, wanted):
                try:
                    data = tar.read_at(end - start, start)
                except OSError:
                    # On S3, GCS and Azure each span is a request of its own: the tar may have
                    # been deleted since the open. Its rows read so far stand.
                    if fs.get_file_info(tar_path).type != pafs.FileType.NotFound:
                        raise
                    log.warning("shard %s is gone (deleted while read): the rest of it skipped",
                                shard.name)
                    return
                if len(data) != end - start:
                    raise IOError(f"{shard.url}: rows {members[0]}… run past the end of the tar")
                for i in members:
                    row = rows[i]
                    at = row["jpg_offset"] - start
                    sample = dict(row)
                    sample.update({
                        "__key__": row["key"], "__shard__": shard.name, "__index__": i,
                        "__rows__": count, "__epoch__": self.epoch,
                        "__announced__": shard.announced, "__rank__": self.rank,
                        "__world_size__": self.world_size,
                    })
                    self._decode(sample, data[at:at + row["jpg_bytes"]])
                    yield self.transform(sample) if self.transform else sample

    def _decode(self, sample: dict, jpg: bytes) -> None:
        if self.decode is None:
            sample["jpg"] = jpg
            return
        from PIL import Image

        image = Image.open(io.BytesIO(jpg)).convert("RGB")
        if self.decode == "rgb":
            import numpy as np

            sample["image"] = np.asarray(image)
        else:
            sample["image"] = image

    def samples(self, worker: int = 0, workers: int = 1) -> Iterator[dict]:
        """The samples of this rank's data-loader `worker` of `workers` for this epoch, before the
        shuffle buffer."""
        resume = self._resume if self._resume and self._resume.epoch == self.epoch else None
        for shard in self.shards(worker, workers):
            if resume is not None and resume.is_complete(shard.name):
                continue
            skip = frozenset(resume.consumed(shard.name)) if resume is not None else frozenset()
            yield from self.read_shard(shard, skip)

    def __iter__(self) -> Iterator[dict]:
        worker, workers = _worker()
        slot = self.rank * workers + worker
        samples = self.samples(worker, workers)
        if not self.shuffle_buffer:
            yield from samples
            return
        rng = random.Random(f"{self.seed}/{self.epoch}/{slot}/buffer")
        buffer: List[dict] = []
        for sample in samples:
            if len(buffer) < self.shuffle_buffer:
                buffer.append(sample)
                continue
            i = rng.randrange(len(buffer))
            buffer[i], sample = sample, buffer[i]
            yield sample
        rng.shuffle(buffer)
        yield from buffer


def collate(samples: List[dict]) -> Dict[str, list]:
    """A batch as a dict of lists (what `Progress.update` takes); a starting point for a
    `collate_fn` that stacks tensors for the model."""
    keys = samples[0].keys() if samples else ()
    return {k: [s[k] for s in samples] for k in keys}
