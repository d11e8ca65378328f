//! The stage trait and what a stage writes its results into.
//!
//! A stage is a plain object that turns a batch of decoded input records into output records and
//! rejections. It does not know which bus it runs on, how offsets are committed or how it is
//! stopped: the [`runner`] does poll → decode → process → produce → store offsets for every stage.

pub mod cpu;
pub mod held;
pub mod runner;

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;

use crate::bus::OutMessage;
use crate::metrics::StageMetrics;
use crate::reason::Reason;
use crate::record::{Record, Reject, Retry};

/// Errors that stop a stage. Per-record problems are not errors: they are rejections.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StageError {
    /// The bus failed.
    #[error("bus: {0}")]
    Bus(#[from] crate::bus::BusError),
    /// The object store failed.
    #[error("{0}")]
    Store(#[from] crate::writer::store::StoreError),
    /// Writing a shard failed.
    #[error("writer: {0}")]
    Writer(#[from] crate::writer::WriterError),
    /// The filter's rules do not resolve (a pipeline built without validation).
    #[error("filter rules: {0}")]
    Rules(String),
    /// An HTTP client could not be built.
    #[error("http client: {0}")]
    Http(#[from] crate::http::HttpError),
    /// A test-set hash file could not be loaded.
    #[error("{0}")]
    TestSet(#[from] crate::stages::dedup::TestSetError),
    /// The scorer's models or data could not be loaded, or a model failed on a batch.
    #[error("{0}")]
    Score(String),
}

impl From<crate::score::ScoreError> for StageError {
    fn from(e: crate::score::ScoreError) -> Self {
        StageError::Score(e.to_string())
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

/// Collects what a stage produces for one batch; the runner sends it all and waits for the acks
/// before storing input offsets.
pub struct Emitter {
    stage: &'static str,
    rejects_topic: Arc<str>,
    retry_topic: Arc<str>,
    metrics: StageMetrics,
    messages: Vec<OutMessage>,
    outputs: usize,
}

impl Emitter {
    /// An emitter for `stage`, sending rejections to `rejects_topic` and retries to `retry_topic`.
    pub fn new(stage: &'static str, rejects_topic: Arc<str>, retry_topic: Arc<str>) -> Self {
        Self {
            stage,
            rejects_topic,
            retry_topic,
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
