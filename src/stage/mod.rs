//! The stage trait and what a stage writes its results into.
//!
//! A stage is a plain object that turns decoded input records into output records and rejections.
//! It does not know which bus it runs on, how offsets are committed or how it is stopped. Two
//! runners do poll → decode → process → produce → store offsets: [`runner`] for a [`Stage`], which
//! takes a batch at a time (CPU work, windows, shards), and [`pipelined`] for a [`Pipelined`] stage,
//! whose records wait on the network and finish out of order.

pub mod cpu;
pub mod held;
pub mod pipelined;
pub mod runner;

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;

use crate::bus::OutMessage;
use crate::metrics::StageMetrics;
use crate::reason::Reason;
use crate::record::{DeadLetter, Record, Reject, Retry};

/// Errors that stop a stage. Per-record problems are not errors: they are rejections.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StageError {
    /// The bus failed.
    #[error("bus: {0}")]
    Bus(#[from] crate::bus::BusError),
    /// The stage's own work failed: its store, a shard, a model, a file it needs. The modules that
    /// define such errors convert them (`?` works), so this one names none of them.
    #[error(transparent)]
    Failed(Box<dyn std::error::Error + Send + Sync>),
}

impl StageError {
    /// A failure of the stage's own work.
    pub fn failed(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        StageError::Failed(error.into())
    }
}

/// One decoded input record and where it came from.
#[derive(Debug, Clone)]
pub struct Input<T> {
    /// The record.
    pub record: T,
    /// Topic it was read from.
    pub topic: Arc<str>,
    /// Partition it was read from.
    pub partition: i32,
    /// Its offset.
    pub offset: i64,
}

/// A stage of the pipeline.
///
/// Lifecycle: [`Stage::start`] once, then [`Stage::process`] per batch, [`Stage::tick`] after every
/// poll (also when it returned nothing), [`Stage::revoked`] when partitions move to another member,
/// and [`Stage::finish`] once at shutdown. Only `process` is required.
#[async_trait]
pub trait Stage: Send {
    /// The record type the stage reads.
    type Input: Record;

    /// Prepares the stage (connections, models, state).
    async fn start(&mut self) -> Result<(), StageError> {
        Ok(())
    }

    /// Handles a batch, writing outputs and rejections into `out`.
    async fn process(
        &mut self,
        batch: Vec<Input<Self::Input>>,
        out: &mut Emitter,
    ) -> Result<(), StageError>;

    /// Called after every poll, so that time-based work (flushing an idle shard) happens.
    async fn tick(&mut self, _out: &mut Emitter) -> Result<(), StageError> {
        Ok(())
    }

    /// The earliest offset of `partition` whose effects the stage still holds in memory, if any.
    /// The runner never commits past it, so that a crash replays what was not yet durable.
    fn held_from(&self, _topic: &str, _partition: i32) -> Option<i64> {
        None
    }

    /// Partitions were taken from this member: drop state kept for them.
    async fn revoked(&mut self, _partitions: &[(Arc<str>, i32)]) {}

    /// Called once at shutdown after the last batch: make held work durable.
    async fn finish(&mut self, _out: &mut Emitter) -> Result<(), StageError> {
        Ok(())
    }
}

/// The work of one record in a [`Pipelined`] stage, run on its own task.
pub type Work<T> = futures::future::BoxFuture<'static, T>;

/// A stage whose records wait on I/O (the network), run by [`pipelined::run_pipelined`]: up to
/// `runtime.max_in_flight` records of a member are in flight at once, across polls, and each
/// finishes as soon as its work is done, out of order.
///
/// [`Pipelined::admit`] sees each record as it arrives, with the stage's state (cheap checks, which
/// may emit at once); the [`Work`] it returns runs on its own task, holding no state of the stage;
/// [`Pipelined::complete`] takes the work's result back with the stage's state. Which offsets may be
/// committed is the runner's business.
pub trait Pipelined: Send + 'static {
    /// The record type the stage reads.
    type Input: Record;
    /// What a record's work hands back.
    type Done: Send + 'static;

    /// Takes one record: returns its work, or `None` when the record is dealt with already (what it
    /// gives, if anything, written into `out`).
    fn admit(&mut self, input: Input<Self::Input>, out: &mut Emitter) -> Option<Work<Self::Done>>;

    /// Finishes a record whose work is done, writing its outputs into `out`.
    fn complete(&mut self, done: Self::Done, out: &mut Emitter) -> Result<(), StageError>;
}

/// Where a failed record came from and what it is about.
#[derive(Clone, Copy, Debug)]
pub struct Failed<'a> {
    /// The topic the record was read from (where a retry or a re-drive sends it back).
    pub topic: &'a str,
    /// Its partitioning key.
    pub key: &'a str,
    /// Sample id, if any.
    pub id: &'a str,
    /// The URL that failed.
    pub url: &'a str,
}

/// Runs one record's work, catching a panic: `Err` holds the panic's message. A batch stage runs
/// each record's work through it so that a record that panics goes to the dead letters
/// ([`Emitter::dead_letter`]) and the stage goes on: replayed, the record would only panic again,
/// on every member that took it. The work may leave the stage's state partly updated, so a stage
/// isolates only work whose state is statistics (sketches, samples of the stream), never its
/// output's bookkeeping.
pub fn isolate<T>(work: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
        .map_err(|panic| panic_message(&*panic))
}

/// The work of a batch of `items` at once (batched model inference), isolated as [`isolate`]
/// isolates one record's: when the batch panics, each item runs again alone, and only those that
/// panic alone fail. A result per item, in order; `Err` holds its panic's message.
pub fn isolate_batch<I, T, E>(
    items: &[I],
    mut work: impl FnMut(&[I]) -> Result<Vec<T>, E>,
) -> Result<Vec<Result<T, String>>, E> {
    match isolate(|| work(items)) {
        Ok(done) => Ok(done?.into_iter().map(Ok).collect()),
        Err(_) => items
            .iter()
            .map(|item| match isolate(|| work(std::slice::from_ref(item))) {
                Ok(done) => done.map(|mut one| Ok(one.remove(0))),
                Err(panic) => Ok(Err(panic)),
            })
            .collect(),
    }
}

/// The message a panic was raised with (`panic!` with a literal or a formatted string).
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// Why a record goes to the dead-letter topic.
pub enum Fault<'a> {
    /// It does not decode as the stage's input record.
    Undecodable(&'a dyn std::fmt::Display),
    /// Its work panicked, with this message.
    Panicked(&'a str),
}

/// Collects what a stage produces for one batch; the runner sends it all and waits for the acks
/// before storing input offsets.
pub struct Emitter {
    stage: &'static str,
    rejects_topic: Arc<str>,
    retry_topic: Arc<str>,
    dead_letter_topic: Arc<str>,
    metrics: StageMetrics,
    messages: Vec<OutMessage>,
    outputs: usize,
}

impl Emitter {
    /// An emitter for `stage`, sending rejections to `rejects_topic`, retries to `retry_topic` and
    /// records it cannot handle to `dead_letter_topic`.
    pub fn new(
        stage: &'static str,
        rejects_topic: Arc<str>,
        retry_topic: Arc<str>,
        dead_letter_topic: Arc<str>,
    ) -> Self {
        Self {
            stage,
            rejects_topic,
            retry_topic,
            dead_letter_topic,
            metrics: StageMetrics::new(stage),
            messages: Vec::new(),
            outputs: 0,
        }
    }

    /// Produces `record` to `topic`, keyed by `key` (same key, same partition).
    pub fn emit<R: Record>(&mut self, topic: &Arc<str>, key: &str, record: &R) {
        self.outputs += 1;
        self.emit_side(topic, key, record);
    }

    /// Like [`Emitter::emit`] for a secondary output (new links, announcements) that the funnel does
    /// not count as the stage's output.
    pub fn emit_side<R: Record>(&mut self, topic: &Arc<str>, key: &str, record: &R) {
        self.messages.push(OutMessage {
            topic: topic.clone(),
            key: Bytes::copy_from_slice(key.as_bytes()),
            payload: Bytes::from(record.to_bytes()),
        });
    }

    /// Counts `n` main outputs that are not messages (the writer's samples made durable).
    pub fn count_outputs(&mut self, n: usize) {
        self.outputs += n;
    }

    /// Sends already-encoded `payload` to `topic` as a main output (the retry stage's re-sends).
    pub fn emit_encoded(&mut self, topic: Arc<str>, key: &str, payload: Vec<u8>) {
        self.outputs += 1;
        self.messages.push(OutMessage {
            topic,
            key: Bytes::copy_from_slice(key.as_bytes()),
            payload: Bytes::from(payload),
        });
    }

    /// Parks `record` (whose attempt count the caller has raised) on the retry topic, to be sent back
    /// to `topic` after `delay`, because attempt `attempt` failed for the transient `reason`.
    pub fn retry<R: Record>(
        &mut self,
        topic: &str,
        key: &str,
        record: &R,
        reason: Reason,
        attempt: u32,
        delay: std::time::Duration,
    ) {
        self.metrics.retried(reason.as_str());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let retry = Retry {
            topic: topic.to_string(),
            key: key.to_string(),
            payload: record.to_bytes(),
            not_before_ms: (now + delay).as_millis() as u64,
            stage: self.stage.to_string(),
            reason: reason.as_str().to_string(),
            attempt,
        };
        let retry_topic = self.retry_topic.clone();
        self.emit_side(&retry_topic, key, &retry);
    }

    /// Rejects a record for `reason`, with a detail for humans.
    pub fn reject(&mut self, reason: Reason, id: &str, url: &str, detail: impl Into<String>) {
        self.send_reject(Reject {
            stage: self.stage.to_string(),
            reason: reason.as_str().to_string(),
            detail: detail.into(),
            id: id.to_string(),
            url: url.to_string(),
            ..Default::default()
        });
    }

    /// Rejects a record that a later run may try again (`altflow run --redrive`): the rejection
    /// carries `record` (as it should be read again), the topic it came from and its key there.
    pub fn reject_redrivable<R: Record>(
        &mut self,
        reason: Reason,
        failed: Failed<'_>,
        detail: impl Into<String>,
        record: &R,
    ) {
        self.send_reject(Reject {
            stage: self.stage.to_string(),
            reason: reason.as_str().to_string(),
            detail: detail.into(),
            id: failed.id.to_string(),
            url: failed.url.to_string(),
            input_topic: failed.topic.to_string(),
            input_key: failed.key.to_string(),
            payload: record.to_bytes(),
        });
    }

    /// Sends a record the stage cannot handle to the dead-letter topic, whole (`payload` as it was
    /// read from `topic`/`partition` at `offset`), with what was wrong, so that the stage goes on
    /// without it.
    pub fn dead_letter<R: Record>(
        &mut self,
        fault: Fault<'_>,
        (topic, partition, offset): (&str, i32, i64),
        payload: Vec<u8>,
    ) {
        let (reason, kind, error) = match fault {
            Fault::Undecodable(error) => {
                ("malformed", "decode", format!("not a {}: {error}", R::KIND))
            }
            Fault::Panicked(panic) => ("panicked", "panic", format!("its work panicked: {panic}")),
        };
        tracing::warn!(
            stage = self.stage,
            topic,
            partition,
            offset,
            %error,
            "{} sent to the dead-letter topic",
            R::KIND
        );
        self.metrics.rejected(reason);
        self.metrics.error(kind);
        let letter = DeadLetter {
            stage: self.stage.to_string(),
            error,
            topic: topic.to_string(),
            partition,
            offset,
            payload,
        };
        let dead_letter_topic = self.dead_letter_topic.clone();
        self.emit_side(&dead_letter_topic, "", &letter);
    }

    /// Sends `input`, whose work panicked with `panic`, to the dead-letter topic.
    pub fn panicked<R: Record>(&mut self, input: &Input<R>, panic: &str) {
        self.dead_letter::<R>(
            Fault::Panicked(panic),
            (&input.topic, input.partition, input.offset),
            input.record.to_bytes(),
        );
    }

    fn send_reject(&mut self, reject: Reject) {
        self.metrics.rejected(&reject.reason);
        let topic = self.rejects_topic.clone();
        let key = reject.id.clone();
        self.emit_side(&topic, &key, &reject);
    }

    /// Takes the collected messages and the count of main outputs among them.
    pub(crate) fn take(&mut self) -> (Vec<OutMessage>, usize) {
        (
            std::mem::take(&mut self.messages),
            std::mem::take(&mut self.outputs),
        )
    }
}

/// The dead letters among `messages` sent to the topic `dead` (the tests' dead-letter topic).
#[cfg(test)]
pub(crate) fn dead_letters(messages: &[OutMessage]) -> Vec<DeadLetter> {
    messages
        .iter()
        .filter(|m| &*m.topic == "dead")
        .map(|m| DeadLetter::from_bytes(&m.payload).expect("a dead letter"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isolate_returns_the_panic_message() {
        assert_eq!(isolate(|| 3), Ok(3));
        let n = 7;
        assert_eq!(
            isolate(|| -> u32 { panic!("bad caption {n}") }),
            Err("bad caption 7".to_string())
        );
    }

    #[test]
    fn a_panicking_batch_runs_again_item_by_item() {
        let mut calls = Vec::new();
        let done = isolate_batch(&[1, 2, 3], |items: &[i32]| {
            calls.push(items.len());
            assert!(!items.contains(&2), "two is poison");
            Ok::<_, String>(items.iter().map(|i| i * 10).collect())
        })
        .unwrap();
        assert_eq!(done[0], Ok(10));
        assert!(done[1].as_ref().unwrap_err().contains("two is poison"));
        assert_eq!(done[2], Ok(30));
        assert_eq!(calls, [3, 1, 1, 1], "the batch once, then each item alone");
        // An error (not a panic) is the batch's, and is returned as it is.
        let failed = isolate_batch(&[1], |_: &[i32]| Err::<Vec<i32>, _>("model gone"));
        assert_eq!(failed, Err("model gone"));
    }
}
