//! The retry stage: holds transiently failed records until their backoff has passed, then sends each
//! back to the topic it came from.
//!
//! Parked records wait in memory, ordered by due time; the stage reports the earliest offset it still
//! holds per partition ([`Stage::held_from`]), so a crash replays them rather than losing them.
//! Memory grows with the transient failures of the last `retry.max_delay` only: nothing else lands
//! on the retry topic, and each record at most `retry.max_attempts − 1` times.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;

use crate::record::Retry;
use crate::stage::{Emitter, Input, Stage, StageError};

/// The retry stage.
#[derive(Default)]
pub struct RetryStage {
    /// Parked records by (due time, partition, offset).
    due: BTreeMap<(u64, i32, i64), Retry>,
    /// Offsets still parked, per partition.
    held: HashMap<i32, BTreeSet<i64>>,
}

impl RetryStage {
    /// An empty retry stage.
    pub fn new() -> Self {
        Self::default()
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
            self.held
                .entry(input.partition)
                .or_default()
                .insert(input.offset);
            self.due.insert(
                (input.record.not_before_ms, input.partition, input.offset),
                input.record,
            );
        }
        self.tick(out).await
    }

    async fn tick(&mut self, out: &mut Emitter) -> Result<(), StageError> {
        let now = now_ms();
        while let Some(entry) = self.due.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let ((_, partition, offset), retry) = entry.remove_entry();
            if let Some(held) = self.held.get_mut(&partition) {
                held.remove(&offset);
            }
            out.emit_encoded(Arc::from(retry.topic.as_str()), &retry.key, retry.payload);
        }
        Ok(())
    }

    fn held_from(&self, _topic: &str, partition: i32) -> Option<i64> {
        self.held.get(&partition).and_then(|h| h.first().copied())
    }

    async fn revoked(&mut self, partitions: &[(Arc<str>, i32)]) {
        for (_, partition) in partitions {
            self.held.remove(partition);
            self.due.retain(|(_, p, _), _| p != partition);
        }
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
        let mut stage = RetryStage::new();
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
