//! The retry stage: holds transiently failed records until their backoff has passed, then sends each
//! back to the topic it came from.
//!
//! Parked records wait in a [`Backlog`] ordered by due time: in memory up to `retry.memory_mb`, in
//! spill files under `retry.spill_dir` beyond it, so that a host down for an hour costs disk, not
//! memory. The stage reports the earliest offset it still holds per partition
//! ([`Stage::held_from`]), so a crash replays them from the retry topic rather than losing them (the
//! spill files need not survive it). Nothing but transient failures lands on the retry topic, and
//! each record at most `retry.max_attempts − 1` times.

use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;

use super::backlog::{Backlog, BacklogError};
use crate::config::RetryConfig;
use crate::metrics::RetryMetrics;
use crate::record::Retry;
use crate::stage::{Emitter, Input, Stage, StageError};

impl From<BacklogError> for StageError {
    fn from(error: BacklogError) -> Self {
        StageError::failed(error)
    }
}

/// The retry stage.
pub struct RetryStage {
    backlog: Backlog,
    metrics: RetryMetrics,
}

impl RetryStage {
    /// A retry stage holding at most `memory_bytes` of parked records in memory and spilling the
    /// rest under `spill_dir`.
    pub fn new(memory_bytes: usize, spill_dir: &Path) -> Self {
        Self {
            backlog: Backlog::new(memory_bytes, spill_dir),
            metrics: RetryMetrics::new(),
        }
    }

    /// The stage `config` describes; fails when its spill directory cannot be written.
    pub fn from_config(config: &RetryConfig) -> Result<Self, BacklogError> {
        let dir = config.spill_dir();
        Backlog::check_dir(&dir)?;
        Ok(Self::new(config.memory_mb << 20, &dir))
    }

    /// Sends back every record due at `now` (Unix milliseconds).
    fn send_due(&mut self, now: u64, out: &mut Emitter) -> Result<(), StageError> {
        while let Some(retry) = self.backlog.take_due(now)? {
            out.emit_encoded(Arc::from(retry.topic.as_str()), &retry.key, retry.payload);
        }
        self.report();
        Ok(())
    }

    fn report(&self) {
        let (parked, on_disk) = self.backlog.len();
        self.metrics
            .parked(parked, on_disk, self.backlog.disk_bytes());
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis() as u64
}

#[async_trait]
impl Stage for RetryStage {
    type Input = Retry;

    async fn process(
        &mut self,
        batch: Vec<Input<Retry>>,
        out: &mut Emitter,
    ) -> Result<(), StageError> {
        for input in batch {
            self.backlog
                .park(input.partition, input.offset, input.record)?;
        }
        self.send_due(now_ms(), out)
    }

    async fn tick(&mut self, out: &mut Emitter) -> Result<(), StageError> {
        self.send_due(now_ms(), out)
    }

    fn held_from(&self, _topic: &str, partition: i32) -> Option<i64> {
        self.backlog.held_from(partition)
    }

    async fn revoked(&mut self, partitions: &[(Arc<str>, i32)]) {
        for (_, partition) in partitions {
            self.backlog.revoke(*partition);
        }
        self.report();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parked(due: u64, offset: i64, payload: &[u8]) -> Input<Retry> {
        Input {
            record: Retry {
                topic: "accepted".into(),
                key: "k".into(),
                payload: payload.to_vec(),
                not_before_ms: due,
                ..Default::default()
            },
            topic: Arc::from("retry"),
            partition: 0,
            offset,
        }
    }

    #[tokio::test]
    async fn due_records_go_back_and_later_ones_are_held() {
        let dir = tempfile::tempdir().unwrap();
        let mut stage = RetryStage::new(1 << 20, dir.path());
        let mut out = Emitter::new(
            "retry",
            Arc::from("rejects"),
            Arc::from("retry"),
            Arc::from("dead"),
        );
        let later = now_ms() + 3_600_000;
        stage
            .process(
                vec![parked(later, 5, b"later"), parked(1, 6, b"due")],
                &mut out,
            )
            .await
            .unwrap();
        let (sent, outputs) = out.take();
        assert_eq!(outputs, 1);
        assert_eq!(
            (&*sent[0].topic, &sent[0].payload[..]),
            ("accepted", &b"due"[..])
        );
        // Offset 5 is still parked: nothing from it on may be committed.
        assert_eq!(stage.held_from("retry", 0), Some(5));
        stage.revoked(&[(Arc::from("retry"), 0)]).await;
        assert_eq!(stage.held_from("retry", 0), None);
    }
}
