//! Fencing the writers of a partition: a member that lost a partition cannot land a shard after the
//! new owner has looked at the output, and the new owner keeps every shard that landed before.
//!
//! Without it, a writer that is slow in a put when the rebalance comes (or paused, or cut off from the
//! broker past its session timeout) finishes its put after the new owner began writing the partition:
//! its shard then holds samples the new owner writes again (duplicates).
//!
//! The protocol, on the object store alone:
//! - Each adoption of a partition takes the next **generation** by creating
//!   `_fence/iIIIIIIII/pPPPP/gGGGGGGGGGGGG` (per input, [`super::input_id`]) with a create-if-absent
//!   put (`PutMode::Create`: atomic on S3 with `If-None-Match`, GCS, Azure, local files and memory),
//!   so two adopters never share one. The object holds the first offset the generation was handed
//!   (`from`, the committed offset) and says it is not settled yet (`from -`).
//! - The new owner then lists the partition's shards. Complete shards past `from` that no later
//!   generation disowned are kept (their records are skipped, not written again); it then
//!   **settles** its generation, always: it rewrites the object as `from resume`, `resume` being the
//!   first offset it will write itself. Only then does it write.
//! - A writer names its shards with its generation, and after putting a shard, before announcing it,
//!   checks that no later generation exists. If one does, the writer stops writing the partition,
//!   and what becomes of the shard it just put is the later generation's decision ([`verdict`]):
//!   deleted when that generation settled without it, left when it kept it, left to the next
//!   adoption when it does not settle in time.
//! - A shard of generation `g` that starts at or past the `resume` of any later *settled* generation
//!   is **stale** ([`is_stale`]): that generation's listing did not keep it, so it writes those
//!   records itself. Adoptions delete stale shards.
//!
//! Either the zombie's check comes after the new generation exists, or it came before, and then its
//! put came before the new owner's listing too, which keeps the shard: the new owner skips its
//! records. In the first case the put may still have come before the listing, so the zombie deletes
//! its shard only once the new generation has settled without it. A zombie that died between its put
//! and its check leaves a shard past the new owner's `resume`, which the next adoption deletes.
//! Offsets committed by a group only move forward, so a shard that some generation committed or kept
//! never starts past a later settled `resume`.
//!
//! A generation that never settles (its adopter died before listing, or its adoption stopped because
//! the partition was revoked meanwhile) disowns nothing: it wrote nothing, and its `from` may be an
//! old offset (a record of a batch polled before the rebalance) behind shards the owner landed and
//! committed. An adoption stopped that way also withdraws its generation ([`Fence::withdraw`]).

use std::collections::BTreeMap;

use futures::TryStreamExt;
use object_store::path::Path;
use object_store::{ObjectStoreExt, PutMode, PutOptions, PutPayload};

use super::store::Store;
use super::{WriterError, delete_if_present, list_all, put};

/// How many generations of a partition are kept. Older ones are pruned at adoption; staleness is
/// judged by any later generation, so a pruned generation's zombie stays stale.
const KEPT: u64 = 16;

/// How many times taking a generation is tried against adopters racing for the same one.
const TRIES: usize = 8;

/// The fence objects of one input's writers in one output store.
#[derive(Clone)]
pub struct Fence {
    store: Store,
    input: Option<u32>,
}

/// Where a generation of a partition began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The first offset handed to it: the group's committed offset at its adoption.
    pub from: i64,
    /// The first offset it writes itself, past the shards it kept; `None` until it settles.
    pub resume: Option<i64>,
}

/// What a later generation decided about a shard that an earlier one landed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No later generation exists: the shard's writer still owns the partition.
    Current,
    /// A later generation settled without the shard: it writes the shard's records itself.
    Disowned,
    /// A later generation settled past the shard's start: its records are not written again.
    Kept,
    /// The later generations have not settled: their adopters may be listing right now.
    Undecided,
}

/// The generations of a partition that are still kept.
pub type History = BTreeMap<u64, Span>;

impl Fence {
    /// Fences over the objects of `store`, for the writers of `input` ([`super::input_id`]).
    pub fn new(store: Store, input: Option<u32>) -> Self {
        Self { store, input }
    }

    /// `_fence` under the store's prefix: one folder per input.
    fn root(&self) -> Path {
        self.store.prefix.clone().join("_fence")
    }

    /// `_fence/iIIIIIIII/pPPPP` under the store's prefix, or the generation's object in it.
    fn path(&self, partition: i32, generation: Option<u64>) -> Path {
        // One `join` per segment: a joined string with a slash in it would be one escaped segment.
        let mut dir = self.root();
        if let Some(input) = self.input {
            dir = dir.join(format!("i{input:08x}"));
        }
        let dir = dir.join(format!("p{partition:04}"));
        match generation {
            Some(generation) => dir.join(format!("g{generation:012}")),
            None => dir,
        }
    }

    /// The other inputs whose writers were fenced in this output (a stage added before the writer,
    /// another group or topic): one `_fence/iIIIIIIII` folder each.
    pub async fn other_inputs(&self) -> Result<Vec<u32>, WriterError> {
        let dir = self.root();
        let listed = self
            .store
            .inner
            .list_with_delimiter(Some(&dir))
            .await
            .map_err(|source| WriterError::Object {
                op: "list",
                path: dir.to_string(),
                source,
            })?;
        Ok(listed
            .common_prefixes
            .iter()
            .filter_map(|p| p.filename()?.strip_prefix('i'))
            .filter_map(|hex| u32::from_str_radix(hex, 16).ok())
            .filter(|input| Some(*input) != self.input)
            .collect())
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
                    PutPayload::from(format!("{from} -").into_bytes()),
                    PutOptions::from(PutMode::Create),
                )
                .await;
            match put {
                Ok(_) => {
                    history.insert(generation, Span { from, resume: None });
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

    /// Records that `generation` (handed `from`) writes from `resume` on, having kept the shards
    /// before it. Only this generation's owner writes its object, so a plain put is enough.
    pub async fn settle(
        &self,
        partition: i32,
        generation: u64,
        from: i64,
        resume: i64,
    ) -> Result<(), WriterError> {
        put(
            &self.store,
            &self.path(partition, Some(generation)),
            format!("{from} {resume}").into_bytes(),
        )
        .await
    }

    /// Gives back `generation`, taken by an adoption that stopped before listing (the partition
    /// was revoked meanwhile): the owner that it would fence off goes on writing.
    pub async fn withdraw(&self, partition: i32, generation: u64) -> Result<(), WriterError> {
        delete_if_present(&self.store, &self.path(partition, Some(generation))).await
    }

    /// Whether a generation after `generation` exists: another member adopted the partition since.
    /// Any later one, not only the next: the next may have been pruned by then.
    pub async fn superseded(&self, partition: i32, generation: u64) -> Result<bool, WriterError> {
        let dir = self.path(partition, None);
        let own = self.path(partition, Some(generation));
        let mut later = self.store.inner.list_with_offset(Some(&dir), &own);
        match later.try_next().await {
            Ok(found) => Ok(found.is_some()),
            Err(source) => Err(WriterError::Object {
                op: "list",
                path: dir.to_string(),
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
            let span = parse_span(&bytes).ok_or_else(|| WriterError::Fence {
                partition,
                message: format!(
                    "{} holds neither `FROM` nor `FROM RESUME` offsets",
                    meta.location
                ),
            })?;
            history.insert(generation, span);
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

/// A fence object's body: `FROM -` (taken, not settled), `FROM RESUME` (settled), or a bare
/// `FROM`, which earlier versions wrote for both and which reads as settled at `FROM`.
fn parse_span(bytes: &[u8]) -> Option<Span> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut words = text.split_whitespace();
    let from = words.next()?.parse::<i64>().ok()?;
    let resume = match words.next() {
        Some("-") => None,
        Some(resume) => Some(resume.parse::<i64>().ok()?),
        None => Some(from),
    };
    words.next().is_none().then_some(Span { from, resume })
}

/// Whether a shard of `generation` starting at `offset` was disowned: a later generation settled
/// to resume writing at or before the shard's start, so its listing did not keep the shard, and
/// the shard's records are that generation's to write. Any later generation counts, not only the
/// next: a zombie's shard must stay stale after its successor is pruned from the history.
pub fn is_stale(history: &History, generation: u64, offset: i64) -> bool {
    history
        .range(generation + 1..)
        .any(|(_, span)| span.resume.is_some_and(|resume| resume <= offset))
}

/// What the generations after `generation` decided about its shard starting at `offset`.
pub fn verdict(history: &History, generation: u64, offset: i64) -> Verdict {
    let mut later = history.range(generation + 1..).peekable();
    if later.peek().is_none() {
        Verdict::Current
    } else if is_stale(history, generation, offset) {
        Verdict::Disowned
    } else if later.any(|(_, span)| span.resume.is_some()) {
        Verdict::Kept
    } else {
        Verdict::Undecided
    }
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
        let span = |from| Span { from, resume: None };
        assert_eq!(history, History::from([(1, span(0)), (2, span(10))]));
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

    #[tokio::test]
    async fn a_zombie_of_a_pruned_generation_is_still_superseded() {
        let fence = fence();
        let (zombie, _) = fence.take(0, 0).await.unwrap();
        for n in 1..(KEPT as i64 + 5) {
            fence.take(0, n).await.unwrap();
        }
        // Its successor is gone from the history; the check must not take that for "current".
        assert!(!fence.history(0).await.unwrap().contains_key(&(zombie + 1)));
        assert!(fence.superseded(0, zombie).await.unwrap());
    }

    #[tokio::test]
    async fn a_settled_generation_reads_back_with_its_resume() {
        let fence = fence();
        let (generation, _) = fence.take(2, 40).await.unwrap();
        fence.settle(2, generation, 40, 57).await.unwrap();
        let settled = Span {
            from: 40,
            resume: Some(57),
        };
        assert_eq!(fence.history(2).await.unwrap()[&generation], settled);
        let span = |from, resume| Some(Span { from, resume });
        assert_eq!(parse_span(b"12 -"), span(12, None));
        // As earlier versions wrote it.
        assert_eq!(parse_span(b"12"), span(12, Some(12)));
        assert_eq!(parse_span(b"12 x"), None);
        assert_eq!(parse_span(b"1 2 3"), None);
    }

    #[tokio::test]
    async fn a_withdrawn_generation_supersedes_nothing() {
        let fence = fence();
        let (owner, _) = fence.take(1, 0).await.unwrap();
        let (stale, _) = fence.take(1, 0).await.unwrap();
        assert!(fence.superseded(1, owner).await.unwrap());
        fence.withdraw(1, stale).await.unwrap();
        assert!(!fence.superseded(1, owner).await.unwrap());
        assert_eq!(fence.history(1).await.unwrap().len(), 1);
    }

    #[test]
    fn a_shard_past_a_later_generations_resume_is_stale() {
        let span = |from, resume| Span {
            from,
            resume: Some(resume),
        };
        // Generation 5 wrote from 3; 6 took over at 10 and kept nothing; 7 was handed 20 and kept
        // 6's uncommitted shards up to offset 24.
        let mut history = History::from([(5, span(3, 3)), (6, span(10, 10)), (7, span(20, 25))]);
        assert!(!is_stale(&history, 5, 9), "committed before 6 took over");
        assert!(is_stale(&history, 5, 10), "a zombie's shard");
        assert!(is_stale(&history, 5, 25), "a zombie that read far ahead");
        assert!(!is_stale(&history, 6, 15), "6's own, committed before 7");
        assert!(
            !is_stale(&history, 6, 20),
            "6's own, not committed, kept by 7"
        );
        assert!(is_stale(&history, 6, 25), "6's, landed after 7 listed");
        assert!(!is_stale(&history, 7, 30), "the current generation");
        assert!(
            is_stale(&history, 2, 30),
            "a zombie whose successor was pruned"
        );
        assert!(
            !is_stale(&history, 2, 2),
            "an old generation's committed shard"
        );
        // 8 was taken for a record of an old batch, offset 0, and never listed.
        history.insert(
            8,
            Span {
                from: 0,
                resume: None,
            },
        );
        assert!(
            !is_stale(&history, 7, 30),
            "an unsettled generation disowns nothing"
        );
    }

    #[test]
    fn a_landed_shards_fate_is_the_later_generations_decision() {
        let settled = |from, resume| Span {
            from,
            resume: Some(resume),
        };
        let taken = |from| Span { from, resume: None };
        let history = History::from([(1, settled(0, 0)), (2, taken(10))]);
        assert_eq!(verdict(&history, 2, 30), Verdict::Current);
        assert_eq!(
            verdict(&history, 1, 10),
            Verdict::Undecided,
            "2 may be listing"
        );
        let history = History::from([(1, settled(0, 0)), (2, settled(10, 20))]);
        assert_eq!(verdict(&history, 1, 10), Verdict::Kept, "2 listed it");
        assert_eq!(verdict(&history, 1, 5), Verdict::Kept, "committed before 2");
        assert_eq!(
            verdict(&history, 1, 20),
            Verdict::Disowned,
            "landed after 2 listed"
        );
        let history = History::from([(1, settled(0, 0)), (2, settled(10, 20)), (3, taken(20))]);
        assert_eq!(verdict(&history, 1, 20), Verdict::Disowned);
        assert_eq!(verdict(&history, 2, 25), Verdict::Undecided);
    }
}
