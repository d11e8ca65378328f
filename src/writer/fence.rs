//! Fencing the writers of a partition: a member that lost a partition cannot land a shard after the
//! new owner has cleaned up.
//!
//! Without it, a writer that is slow in a put when the rebalance comes (or paused, or cut off from the
//! broker past its session timeout) finishes its put after the new owner deleted the partition's
//! uncommitted shards and began rewriting them: its shard then holds samples the new owner writes
//! again (duplicates), or replaces the new owner's shard of the same name with other cut points (loss).
//!
//! The protocol, on the object store alone:
//! - Each adoption of a partition takes the next **generation** by creating
//!   `_fence/iIIIIIIII/pPPPP/gGGGGGGGGGGGG` (per input, [`super::input_id`]) with a create-if-absent put (`PutMode::Create`: atomic on S3 with
//!   `If-None-Match`, GCS, Azure, local files and memory), so two adopters never share one. The
//!   object holds the first offset the generation was handed (`from`).
//! - A writer names its shards with its generation, and after putting a shard, before announcing it,
//!   checks that the next generation does not exist. If it does, the writer deletes what it just
//!   put (the name is its own: it cannot hit the new owner's objects) and stops writing the
//!   partition.
//! - A new owner, after taking its generation and before writing, deletes every shard of a
//!   generation `g` that starts at or past the `from` of the generation after `g` ([`is_stale`]): a
//!   zombie's shard that landed after the zombie's check passed, or whose writer died between its
//!   put and its check.
//!
//! Either the zombie's check comes after the new generation exists (it deletes its shard), or it came
//! before, and then its put came before too, so the new owner's listing sees the shard. What remains
//! is an announcement: a zombie whose check passed can still announce a shard that the new owner
//! deletes moments later. Readers that follow `shards` skip a shard that is gone, and can apply
//! [`is_stale`] to the `_fence/` objects to tell such a shard before opening it.

use std::collections::BTreeMap;

use object_store::path::Path;
use object_store::{ObjectStoreExt, PutMode, PutOptions, PutPayload};

use super::store::Store;
use super::{WriterError, delete_if_present, list_all};

/// How many generations of a partition are kept. Older ones are pruned at adoption: by then each of
/// their shards has been through that many clean-ups.
const KEPT: u64 = 16;

/// How many times taking a generation is tried against adopters racing for the same one.
const TRIES: usize = 8;

/// The fence objects of one input's writers in one output store.
#[derive(Clone)]
pub struct Fence {
    store: Store,
    input: Option<u32>,
}

/// The generations of a partition that are still kept: generation → first offset handed to it.
pub type History = BTreeMap<u64, i64>;

impl Fence {
    /// Fences over the objects of `store`, for the writers of `input` ([`super::input_id`]).
    pub fn new(store: Store, input: Option<u32>) -> Self {
        Self { store, input }
    }

    /// `_fence/iIIIIIIII/pPPPP` under the store's prefix, or the generation's object in it.
    fn path(&self, partition: i32, generation: Option<u64>) -> Path {
        // One `join` per segment: a joined string with a slash in it would be one escaped segment.
        let mut dir = self.store.prefix.clone().join("_fence");
        if let Some(input) = self.input {
            dir = dir.join(format!("i{input:08x}"));
        }
        let dir = dir.join(format!("p{partition:04}"));
        match generation {
            Some(generation) => dir.join(format!("g{generation:012}")),
            None => dir,
        }
    }

    /// Takes the next generation of `partition`, first handed `from`. Returns it with the history,
    /// itself included.
    pub async fn take(&self, partition: i32, from: i64) -> Result<(u64, History), WriterError> {
        for _ in 0..TRIES {
            let mut history = self.history(partition).await?;
            let generation = history.keys().next_back().map_or(1, |g| g + 1);
            let path = self.path(partition, Some(generation));
            let put = self
                .store
                .inner
                .put_opts(
                    &path,
                    PutPayload::from(from.to_string().into_bytes()),
                    PutOptions::from(PutMode::Create),
                )
                .await;
            match put {
                Ok(_) => {
                    history.insert(generation, from);
                    self.prune(partition, generation, &mut history).await?;
                    return Ok((generation, history));
                }
                // Another adopter took it first: read again and take the next one.
                Err(object_store::Error::AlreadyExists { .. }) => continue,
                Err(source) => {
                    return Err(WriterError::Object {
                        op: "create (fencing needs create-if-absent puts; write.fencing = false \
                             writes without them)",
                        path: path.to_string(),
                        source,
                    });
                }
            }
        }
        Err(WriterError::Fence {
            partition,
            message: format!("no generation taken after {TRIES} tries"),
        })
    }

    /// Whether a generation after `generation` exists: another member adopted the partition since.
    pub async fn superseded(&self, partition: i32, generation: u64) -> Result<bool, WriterError> {
        let path = self.path(partition, Some(generation + 1));
        match self.store.inner.head(&path).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(source) => Err(WriterError::Object {
                op: "read",
                path: path.to_string(),
                source,
            }),
        }
    }

    /// The kept generations of `partition`.
    pub async fn history(&self, partition: i32) -> Result<History, WriterError> {
        let dir = self.path(partition, None);
        let listed = list_all(&self.store, &dir).await?;
        let mut history = History::new();
        for meta in listed {
            let Some(generation) = meta
                .location
                .filename()
                .and_then(|n| n.strip_prefix('g'))
                .and_then(|g| g.parse::<u64>().ok())
            else {
                continue;
            };
            let read_err = |source| WriterError::Object {
                op: "read",
                path: meta.location.to_string(),
                source,
            };
            let bytes = match self.store.inner.get(&meta.location).await {
                Ok(got) => got.bytes().await.map_err(read_err)?,
                // Pruned by another adopter meanwhile.
                Err(object_store::Error::NotFound { .. }) => continue,
                Err(source) => return Err(read_err(source)),
            };
            let from = std::str::from_utf8(&bytes)
                .ok()
                .and_then(|s| s.trim().parse::<i64>().ok())
                .ok_or_else(|| WriterError::Fence {
                    partition,
                    message: format!("{} does not hold an offset", meta.location),
                })?;
            history.insert(generation, from);
        }
        Ok(history)
    }

    /// Deletes the generations more than [`KEPT`] before `current`.
    async fn prune(
        &self,
        partition: i32,
        current: u64,
        history: &mut History,
    ) -> Result<(), WriterError> {
        let old: Vec<u64> = history
            .keys()
            .copied()
            .filter(|g| g + KEPT < current)
            .collect();
        for generation in old {
            delete_if_present(&self.store, &self.path(partition, Some(generation))).await?;
            history.remove(&generation);
        }
        Ok(())
    }
}

/// Whether a shard of `generation` starting at `offset` was written by a member that had lost the
/// partition: the generation after it was handed an offset at or before the shard's
/// start, so the shard's records were not committed and are the later generation's to write. A
/// generation whose successor was pruned is taken as valid: its shards went through the clean-ups of
/// every kept generation.
pub fn is_stale(history: &History, generation: u64, offset: i64) -> bool {
    // Generations are taken one after another, so the next one is `generation + 1`.
    history
        .get(&(generation + 1))
        .is_some_and(|from| *from <= offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fence() -> Fence {
        Fence::new(
            Store::open("memory://", std::iter::empty()).unwrap(),
            Some(7),
        )
    }

    #[tokio::test]
    async fn each_adoption_takes_the_next_generation_and_supersedes_the_last() {
        let fence = fence();
        let (first, _) = fence.take(3, 0).await.unwrap();
        assert_eq!(first, 1);
        assert!(!fence.superseded(3, first).await.unwrap());
        let (second, history) = fence.take(3, 10).await.unwrap();
        assert_eq!(second, 2);
        assert_eq!(history, History::from([(1, 0), (2, 10)]));
        assert!(fence.superseded(3, first).await.unwrap());
        assert!(!fence.superseded(3, second).await.unwrap());
        // Partitions are fenced apart.
        assert_eq!(fence.take(4, 0).await.unwrap().0, 1);
    }

    #[tokio::test]
    async fn racing_adopters_never_share_a_generation() {
        let fence = fence();
        let takes = (0..8).map(|n| {
            let fence = fence.clone();
            tokio::spawn(async move { fence.take(0, n).await.unwrap().0 })
        });
        let mut generations = Vec::new();
        for take in takes {
            generations.push(take.await.unwrap());
        }
        generations.sort();
        assert_eq!(generations, (1..=8).collect::<Vec<u64>>());
    }

    #[tokio::test]
    async fn old_generations_are_pruned() {
        let fence = fence();
        for n in 0..(KEPT as i64 + 5) {
            fence.take(0, n).await.unwrap();
        }
        let history = fence.history(0).await.unwrap();
        assert_eq!(history.len() as u64, KEPT + 1);
        assert_eq!(history.keys().next(), Some(&5));
    }

    #[test]
    fn a_shard_past_the_next_generations_start_is_stale() {
        // Generation 5 wrote from 0; 6 took over at 10; 7 at 20.
        let history = History::from([(5, 0), (6, 10), (7, 20)]);
        assert!(!is_stale(&history, 5, 9), "committed before 6 took over");
        assert!(is_stale(&history, 5, 10), "a zombie's shard");
        assert!(is_stale(&history, 5, 25), "a zombie that read far ahead");
        assert!(!is_stale(&history, 6, 15), "6's own, committed before 7");
        assert!(is_stale(&history, 6, 20), "6 died before committing it");
        assert!(!is_stale(&history, 7, 30), "the current generation");
        assert!(!is_stale(&history, 2, 30), "older than the history");
    }
}
