//! The one loop every stage runs in: poll → decode → process → produce → store offsets.
//!
//! Offsets are stored only after everything the batch produced is acknowledged by the bus, and never
//! past what the stage still holds in memory ([`Stage::held_from`]), so a crash at any point replays
//! unfinished work instead of losing it. Undecodable messages go to the dead-letter topic whole and
//! the stage goes on. On shutdown the runner stops polling, finishes the batch in hand, lets the stage
//! flush, stores and commits offsets, and leaves the group.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::{Emitter, Fault, Input, Stage, StageError};
use crate::bus::{Consumer, Message, Producer};
use crate::health::{self, Check};
use crate::metrics::StageMetrics;
use crate::record::Record;

/// How often consumer lag is exported.
const LAG_INTERVAL: Duration = Duration::from_secs(5);

/// Where a stage reads and writes, and how it batches.
#[derive(Clone)]
pub struct RunnerSettings {
    /// Stage name, for metrics, logs and rejections.
    pub stage: &'static str,
    /// Topic rejections go to.
    pub rejects_topic: Arc<str>,
    /// Topic transient failures are parked on.
    pub retry_topic: Arc<str>,
    /// Topic undecodable messages go to.
    pub dead_letter_topic: Arc<str>,
    /// Most records per batch (per poll, for a pipelined stage).
    pub batch_size: usize,
    /// Longest wait for input before ticking.
    pub poll_timeout: Duration,
    /// After shutdown, how long a pipelined stage waits for the records in flight before it
    /// abandons them (they are replayed) and commits what finished.
    pub drain_timeout: Duration,
}

impl RunnerSettings {
    /// An emitter for this stage's outputs, rejections and retries.
    pub(super) fn emitter(&self) -> Emitter {
        Emitter::new(
            self.stage,
            self.rejects_topic.clone(),
            self.retry_topic.clone(),
            self.dead_letter_topic.clone(),
        )
    }
}

/// Partitions taken from this member since the last call, with the messages of them in `polled`
/// dropped: they belong to the new owner now, and processing them here would race its replay
/// (and, for the writer, its shard clean-up).
pub(super) fn take_revoked(
    consumer: &mut dyn Consumer,
    polled: &mut Vec<Message>,
    metrics: &StageMetrics,
) -> Vec<(Arc<str>, i32)> {
    let revoked = consumer.take_revoked();
    if !revoked.is_empty() {
        metrics.revoked(&revoked);
        let owned = consumer.assignment();
        polled.retain(|m| {
            owned
                .iter()
                .any(|(t, p)| *t == m.topic && *p == m.partition)
        });
    }
    revoked
}

/// What a runner exports about its consumer's membership: whether it has joined its group (for
/// `/readyz`, as soon as it changes) and, every `LAG_INTERVAL`, its partitions and their lag.
pub(super) struct Membership {
    joined: bool,
    last_export: Instant,
}

impl Membership {
    pub(super) fn new() -> Self {
        Self {
            joined: false,
            last_export: Instant::now(),
        }
    }

    /// Called after every poll; cheap unless something is due.
    pub(super) fn export(
        &mut self,
        consumer: &dyn Consumer,
        stage: &'static str,
        metrics: &StageMetrics,
    ) {
        let joined = consumer.joined();
        if joined != self.joined {
            self.joined = joined;
            health::set(stage, Check::Joined, joined);
        }
        if self.last_export.elapsed() >= LAG_INTERVAL {
            self.last_export = Instant::now();
            metrics.partitions_assigned(consumer.assignment().len());
            for lag in consumer.lag() {
                metrics.lag(&lag.topic, lag.partition, lag.lag);
            }
        }
    }
}

/// Per input partition: the offset after the last message processed, and the offset last stored.
#[derive(Default)]
struct Progress {
    processed: i64,
    stored: i64,
}

/// Runs `stage` on `consumer` until `shutdown` turns true, then drains and leaves the group.
pub async fn run_stage<S: Stage>(
    mut stage: S,
    mut consumer: Box<dyn Consumer>,
    producer: Arc<dyn Producer>,
    settings: RunnerSettings,
    mut shutdown: watch::Receiver<bool>,
) -> Result<(), StageError> {
    let metrics = StageMetrics::new(settings.stage);
    let mut out = settings.emitter();
    let mut progress: HashMap<(Arc<str>, i32), Progress> = HashMap::new();
    let mut membership = Membership::new();
    health::expect(settings.stage);
    stage.start().await?;
    health::set(settings.stage, Check::Started, true);
    tracing::info!(stage = settings.stage, "stage started");

    loop {
        if *shutdown.borrow() {
            break;
        }
        let mut polled = tokio::select! {
            biased;
            _ = shutdown.changed() => break,
            polled = consumer.poll(settings.batch_size, settings.poll_timeout) => polled?,
        };
        let revoked = take_revoked(consumer.as_mut(), &mut polled, &metrics);
        if !revoked.is_empty() {
            tracing::info!(stage = settings.stage, ?revoked, "partitions revoked");
            stage.revoked(&revoked).await;
            progress.retain(|key, _| !revoked.contains(key));
        }
        let started = Instant::now();
        let had_input = !polled.is_empty();
        if had_input {
            metrics.records_in(polled.len());
            let mut batch = Vec::with_capacity(polled.len());
            for message in polled {
                let entry = progress
                    .entry((message.topic.clone(), message.partition))
                    .or_insert(Progress {
                        processed: message.offset,
                        stored: message.offset,
                    });
                entry.processed = entry.processed.max(message.offset + 1);
                match S::Input::from_bytes(&message.payload) {
                    Ok(record) => batch.push(Input {
                        record,
                        topic: message.topic,
                        partition: message.partition,
                        offset: message.offset,
                    }),
                    Err(error) => {
                        dead_letter::<S::Input>(&mut out, &message, Fault::Undecodable(&error))
                    }
                }
            }
            if !batch.is_empty()
                && let Err(error) = stage.process(batch, &mut out).await
            {
                metrics.error("process");
                return Err(error);
            }
        }
        if let Err(error) = stage.tick(&mut out).await {
            metrics.error("process");
            return Err(error);
        }
        produce(&mut out, producer.as_ref(), &metrics).await?;
        store(&stage, consumer.as_mut(), &mut progress, &metrics)?;
        if had_input {
            metrics.batch_time(started.elapsed());
        }
        membership.export(consumer.as_ref(), settings.stage, &metrics);
    }

    tracing::info!(stage = settings.stage, "draining");
    stage.finish(&mut out).await?;
    produce(&mut out, producer.as_ref(), &metrics).await?;
    store(&stage, consumer.as_mut(), &mut progress, &metrics)?;
    consumer.close().await?;
    tracing::info!(stage = settings.stage, "stage stopped");
    Ok(())
}

/// Sends a message the stage cannot handle to the dead-letter topic, whole, with what was wrong and
/// where, so that the stage goes on without it.
pub(super) fn dead_letter<R: Record>(out: &mut Emitter, message: &Message, fault: Fault<'_>) {
    out.dead_letter::<R>(
        fault,
        (&message.topic, message.partition, message.offset),
        message.payload.to_vec(),
    );
}

/// Sends what the stage emitted and waits for every acknowledgement.
pub(super) async fn produce(
    out: &mut Emitter,
    producer: &dyn Producer,
    metrics: &StageMetrics,
) -> Result<(), StageError> {
    let (messages, outputs) = out.take();
    if messages.is_empty() {
        return Ok(());
    }
    if let Err(error) = producer.send_all(messages).await {
        metrics.error("produce");
        return Err(error.into());
    }
    metrics.records_out(outputs);
    Ok(())
}

/// Stores, per partition, the offset up to which work is done and durable.
fn store<S: Stage>(
    stage: &S,
    consumer: &mut dyn Consumer,
    progress: &mut HashMap<(Arc<str>, i32), Progress>,
    metrics: &StageMetrics,
) -> Result<(), StageError> {
    for ((topic, partition), p) in progress.iter_mut() {
        let durable = match stage.held_from(topic, *partition) {
            Some(held) => held.min(p.processed),
            None => p.processed,
        };
        if durable > p.stored {
            if let Err(error) = consumer.store_offset(topic, *partition, durable) {
                metrics.error("offset");
                return Err(error.into());
            }
            p.stored = durable;
        }
    }
    Ok(())
}
