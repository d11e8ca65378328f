"""What a trainer has consumed: the state it checkpoints with its model to resume exactly.

Every sample the reader yields names its shard and its row in the shard's index. `Progress` counts
them *in the training process*, after the data loader, so it holds what training consumed — not what
workers read ahead or what sits in a shuffle buffer. Saved with the model and handed back to the
reader on restart, it makes the restarted reader skip what was consumed and read the rest: each
sample once per epoch.
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Mapping, Optional, Set


# The sample fields `Progress` reads, in a collated batch too.
_COLUMNS = ("__shard__", "__index__", "__rows__", "__epoch__", "__rank__", "__world_size__")


def _ranges(indices: Iterable[int]) -> List[List[int]]:
    """Sorted indices as [first, last] ranges (compact in a JSON checkpoint)."""
    out: List[List[int]] = []
    for i in sorted(indices):
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def _expand(ranges: Iterable[Iterable[int]]) -> Set[int]:
    return {i for first, last in ranges for i in range(first, last + 1)}


class Progress:
    """The samples consumed in the current epoch, by shard. JSON-serialisable state."""

    def __init__(self, state: Optional[Mapping] = None):
        self.epoch = 0
        self.complete: Set[str] = set()
        self.partial: Dict[str, Set[int]] = {}
        self.rows: Dict[str, int] = {}
        self.offsets: Dict[int, int] = {}
        self.samples = 0
        # Who consumed: the ranks whose samples this state holds and their world size, or
        # `merged` once `merge` joined every rank's state (then any world size may resume it).
        self.ranks: Set[int] = set()
        self.world_size: Optional[int] = None
        self.merged = False
        if state:
            self.load_state_dict(state)

    def update(self, batch) -> None:
        """Records a consumed sample, a list of samples, or a collated batch (a dict of lists or
        tensors with `__shard__`, `__index__`, `__rows__` and `__epoch__`, and the reader's
        `__rank__` and `__world_size__` when it gave them)."""
        if isinstance(batch, Mapping) and isinstance(batch.get("__shard__"), str):
            batch = [batch]
        if isinstance(batch, Mapping):
            keys = [k for k in _COLUMNS if k in batch]
            columns = [batch[k] for k in keys]
            columns = [c.tolist() if hasattr(c, "tolist") else list(c) for c in columns]
            batch = [dict(zip(keys, row)) for row in zip(*columns)]
        for sample in batch:
            if "__rank__" in sample:
                self._consumer(int(sample["__rank__"]), int(sample["__world_size__"]))
            self._one(sample["__shard__"], int(sample["__index__"]), int(sample["__rows__"]),
                      int(sample["__epoch__"]), sample.get("__announced__"))

    @property
    def _whole(self) -> bool:
        """Whether this state holds every rank's samples (merged, of a world of one, or of no
        rank yet), so that any rank of any world may go on from it."""
        return self.merged or self.world_size == 1 or not self.ranks

    def _consumer(self, rank: int, world_size: int) -> None:
        if self._whole:
            # Training goes on from it: from now on it also holds this rank's new samples and no
            # other's, so it is this rank's state in this world.
            self.merged, self.world_size, self.ranks = False, world_size, {rank}
        elif world_size != self.world_size:
            raise ValueError(f"a sample of a world of {world_size} ranks in a state of a world "
                             f"of {self.world_size}")
        else:
            self.ranks.add(rank)

    def check_resumable(self, rank: int, world_size: int) -> None:
        """Raises unless this state can resume rank `rank` of `world_size` exactly once: a whole
        state resumes any world; one rank's state of a world of several resumes that rank of that
        world only, since the other ranks' shards would be read again (or, with another world
        size, shards would change hands)."""
        if self._whole or (self.world_size, self.ranks) == (world_size, {rank}):
            return
        raise ValueError(
            f"this progress holds rank(s) {sorted(self.ranks)} of a world of {self.world_size}, "
            f"not rank {rank} of {world_size}: to resume with another world size or rank, join "
            f"every rank's state with Progress.merge and pass the merged state to every rank")

    def _one(self, shard: str, index: int, rows: int, epoch: int, announced) -> None:
        if epoch != self.epoch:
            if epoch < self.epoch:
                raise ValueError(f"a sample of epoch {epoch} after epoch {self.epoch} began")
            self.epoch, self.complete, self.partial, self.rows = epoch, set(), {}, {}
        if shard in self.complete:
            raise ValueError(f"{shard} row {index} consumed twice in epoch {epoch}")
        done = self.partial.setdefault(shard, set())
        if index in done:
            raise ValueError(f"{shard} row {index} consumed twice in epoch {epoch}")
        done.add(index)
        self.rows[shard] = rows
        self.samples += 1
        if len(done) >= rows:
            self.complete.add(shard)
            del self.partial[shard]
            del self.rows[shard]
        if announced:
            partition, offset = announced
            self.offsets[int(partition)] = max(self.offsets.get(int(partition), -1), int(offset))

    def consumed(self, shard: str) -> Set[int]:
        """Rows of `shard` consumed in this epoch (all of them: use `is_complete`)."""
        return set(self.partial.get(shard, ()))

    def is_complete(self, shard: str) -> bool:
        return shard in self.complete

    def state_dict(self) -> dict:
        """The state to checkpoint: epoch, whole shards, rows of partly consumed shards, and the
        highest `shards`-topic offset per partition among the consumed shards."""
        return {
            "version": 1,
            "epoch": self.epoch,
            "samples": self.samples,
            "complete": sorted(self.complete),
            "partial": {s: {"rows": self.rows[s], "done": _ranges(d)}
                        for s, d in sorted(self.partial.items())},
            "offsets": {str(p): o for p, o in sorted(self.offsets.items())},
            "ranks": sorted(self.ranks),
            "world_size": self.world_size,
            "merged": self.merged,
        }

    def load_state_dict(self, state: Mapping) -> None:
        if state.get("version") != 1:
            raise ValueError(f"unknown progress version {state.get('version')!r}")
        self.epoch = int(state["epoch"])
        self.samples = int(state.get("samples", 0))
        self.complete = set(state["complete"])
        self.partial = {s: _expand(p["done"]) for s, p in state["partial"].items()}
        self.rows = {s: int(p["rows"]) for s, p in state["partial"].items()}
        self.offsets = {int(p): int(o) for p, o in state.get("offsets", {}).items()}
        # States saved before these fields: nothing known of their ranks, taken as they come.
        self.ranks = set(state.get("ranks", ()))
        self.world_size = state.get("world_size")
        self.merged = bool(state.get("merged", False))

    @staticmethod
    def merge(states: Iterable[Mapping]) -> dict:
        """One state from the states of several ranks (which own disjoint shards), so that a job
        restarted with another number of ranks resumes too: shard ownership follows the world size,
        and every new owner finds what was consumed of its shards."""
        merged = Progress()
        merged.merged = True
        states = [Progress(s) for s in states]
        epochs = {p.epoch for p in states}
        if len(epochs) > 1:
            raise ValueError(f"ranks are in different epochs: {sorted(epochs)}")
        worlds = {p.world_size for p in states if p.world_size is not None}
        if len(worlds) > 1:
            raise ValueError(f"states of different world sizes: {sorted(worlds)}")
        merged.world_size = worlds.pop() if worlds else None
        for p in states:
            merged.epoch = p.epoch
            merged.samples += p.samples
            merged.ranks |= p.ranks
            merged.complete |= p.complete
            for shard, done in p.partial.items():
                merged.partial.setdefault(shard, set()).update(done)
                merged.rows[shard] = p.rows[shard]
            for partition, offset in p.offsets.items():
                merged.offsets[partition] = max(merged.offsets.get(partition, -1), offset)
        return merged.state_dict()
