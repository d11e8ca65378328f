//! Failures kept for a later run: the `failures` stage writes every re-drivable rejection (a crawl or
//! fetch failure, carrying its record) to Parquet files next to the shards, and [`read_failures`]
//! reads them back for `altflow run --redrive`, which publishes the records again where they came
//! from.
//!
//! Files are named `failures/RUN/PARTITION-FIRSTOFFSET.parquet`. On the embedded bus, whose offsets
//! start at 0 in every run, RUN is the process's start in milliseconds ([`crate::app::run_id`]), so
//! runs stay apart and a re-drive takes the newest run's by default. On Kafka offsets are durable, so
//! RUN is [`STREAM`] for every member and every restart: a replay after a crash rewrites the same
//! file, and one re-drive finds all of a stream's failures.
//! A file is written when it holds `write.max_records` rows or has been idle `write.flush_after`, and
//! input offsets are committed only after it is written, so a crash replays rather than loses.

use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, StringBuilder};
use arrow_array::{Array, ArrayRef, BinaryArray, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use async_trait::async_trait;
use object_store::{ObjectStoreExt, PutPayload};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::config::WriteConfig;
use crate::record::{Reject, ShardAnnouncement};
use crate::stage::held::Held;
use crate::stage::{Emitter, Input, Stage, StageError};
use crate::writer::WriterError;
use crate::writer::store::{Store, StoreError};

/// Folder of the failures files under the output.
pub const FOLDER: &str = "failures";

/// The run folder of a bus with durable offsets (Kafka).
pub const STREAM: &str = "stream";

fn schema() -> SchemaRef {
    let text = |name: &str| Field::new(name, DataType::Utf8, false);
    Arc::new(Schema::new(vec![
        text("stage"),
        text("reason"),
        text("detail"),
        text("id"),
        text("url"),
        text("input_topic"),
        text("input_key"),
        Field::new("payload", DataType::Binary, false),
    ]))
}

/// The failures stage.
pub struct FailuresStage {
    store: Store,
    config: WriteConfig,
    run: String,
    /// Rejections of each partition not yet written.
    pending: Held<Vec<Reject>>,
    announcements: Arc<str>,
}

impl FailuresStage {
    /// A stage writing under `config.output` (with its roll settings) into the folder of `run` (the
    /// run's number on a bus whose offsets restart with the process, `None` on one whose offsets are
    /// durable), announcing each file on `announcements`.
    pub fn new(
        config: WriteConfig,
        run: Option<u64>,
        announcements: Arc<str>,
    ) -> Result<Self, StoreError> {
        let store = Store::open(&config.output, &config.store_options)?;
        Ok(Self {
            store,
            config,
            run: run.map_or_else(|| STREAM.to_string(), |run| run.to_string()),
            pending: Held::default(),
            announcements,
        })
    }

    async fn write(&mut self, partition: i32, out: &mut Emitter) -> Result<(), WriterError> {
        let Some((first_offset, rows)) = self.pending.take(partition) else {
            return Ok(());
        };
        let file = format!("{partition:05}-{first_offset:012}.parquet");
        let name = format!("{FOLDER}/{}/{file}", self.run);
        let path = self.store.path(FOLDER).join(self.run.as_str()).join(file);
        let bytes = encode(&rows).map_err(|source| WriterError::Index {
            path: name.clone(),
            source,
        })?;
        let size = bytes.len() as u64;
        self.store
            .inner
            .put(&path, PutPayload::from(bytes))
            .await
            .map_err(|source| WriterError::Object {
                op: "writing",
                path: name.clone(),
                source,
            })?;
        let announcement = ShardAnnouncement {
            url: self.store.url(&name),
            rows: rows.len() as u64,
            bytes: size,
            partition,
            first_offset,
            ..Default::default()
        };
        out.emit(&self.announcements.clone(), &name, &announcement);
        Ok(())
    }
}

fn encode(rows: &[Reject]) -> Result<Vec<u8>, parquet::errors::ParquetError> {
    let mut text: Vec<StringBuilder> = (0..7).map(|_| StringBuilder::new()).collect();
    let mut payload = BinaryBuilder::new();
    for row in rows {
        let values = [
            &row.stage,
            &row.reason,
            &row.detail,
            &row.id,
            &row.url,
            &row.input_topic,
            &row.input_key,
        ];
        for (builder, value) in text.iter_mut().zip(values) {
            builder.append_value(value);
        }
        payload.append_value(&row.payload);
    }
    let mut columns: Vec<ArrayRef> = text
        .into_iter()
        .map(|mut b| Arc::new(b.finish()) as ArrayRef)
        .collect();
    columns.push(Arc::new(payload.finish()));
    crate::writer::index::encode_parquet(RecordBatch::try_new(schema(), columns)?)
}

fn decode(parquet: bytes::Bytes) -> Result<Vec<Reject>, parquet::errors::ParquetError> {
    let general = |what: &str| parquet::errors::ParquetError::General(what.to_string());
    let mut rows = Vec::new();
    for batch in ParquetRecordBatchReaderBuilder::try_new(parquet)?.build()? {
        let batch = batch?;
        let text = |name: &str| -> Result<&StringArray, parquet::errors::ParquetError> {
            batch
                .column_by_name(name)
                .and_then(|c| c.as_any().downcast_ref::<StringArray>())
                .ok_or_else(|| general(&format!("no text column `{name}`")))
        };
        let (stage, reason, detail, id, url, topic, key) = (
            text("stage")?,
            text("reason")?,
            text("detail")?,
            text("id")?,
            text("url")?,
            text("input_topic")?,
            text("input_key")?,
        );
        let payload = batch
            .column_by_name("payload")
            .and_then(|c| c.as_any().downcast_ref::<BinaryArray>())
            .ok_or_else(|| general("no binary column `payload`"))?;
        for i in 0..batch.num_rows() {
            rows.push(Reject {
                stage: stage.value(i).into(),
                reason: reason.value(i).into(),
                detail: detail.value(i).into(),
                id: id.value(i).into(),
                url: url.value(i).into(),
                input_topic: topic.value(i).into(),
                input_key: key.value(i).into(),
                payload: payload.value(i).to_vec(),
            });
        }
    }
    Ok(rows)
}

/// Reads the failures of one run from `store` (the run `run` names, else the newest) and calls `each`
/// with the re-drivable rejections of each file whose reason is in `reasons` (all when empty): one
/// file at a time, so memory is bounded by a file's rows whatever the run's size. Returns the run's
/// name and the number of rejections handed over.
pub async fn read_failures<F, Fut>(
    store: &Store,
    run: Option<&str>,
    reasons: &[String],
    mut each: F,
) -> Result<(String, u64), WriterError>
where
    F: FnMut(Vec<Reject>) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let folder = store.path(FOLDER);
    let listed = crate::writer::list_all(store, &folder).await?;
    // failures/RUN/FILE: embedded runs are numbered by start time, so the greatest is the newest
    // (and any of them is newer than a Kafka stream's folder, by length).
    let run_of = |meta: &object_store::ObjectMeta| -> Option<String> {
        let parts: Vec<_> = meta.location.parts().collect();
        let at = parts.iter().position(|p| p.as_ref() == FOLDER)?;
        parts.get(at + 1).map(|p| p.as_ref().to_string())
    };
    let chosen = match run {
        Some(run) => run.to_string(),
        None => match listed
            .iter()
            .filter_map(run_of)
            .max_by_key(|r| (r.len(), r.clone()))
        {
            Some(newest) => newest,
            None => return Ok((String::new(), 0)),
        },
    };
    let mut total = 0u64;
    for meta in listed
        .iter()
        .filter(|m| run_of(m).as_deref() == Some(&chosen))
    {
        let store_error = |source| WriterError::Object {
            op: "reading",
            path: meta.location.to_string(),
            source,
        };
        let bytes = store
            .inner
            .get(&meta.location)
            .await
            .map_err(store_error)?
            .bytes()
            .await
            .map_err(store_error)?;
        let file = decode(bytes).map_err(|source| WriterError::Index {
            path: meta.location.to_string(),
            source,
        })?;
        let rows: Vec<Reject> = file
            .into_iter()
            .filter(|r| !r.payload.is_empty())
            .filter(|r| reasons.is_empty() || reasons.contains(&r.reason))
            .collect();
        total += rows.len() as u64;
        each(rows).await;
    }
    Ok((chosen, total))
}

#[async_trait]
impl Stage for FailuresStage {
    type Input = Reject;

    async fn process(
        &mut self,
        batch: Vec<Input<Reject>>,
        out: &mut Emitter,
    ) -> Result<(), StageError> {
        let mut full = Vec::new();
        for input in batch {
            // Rejections without a record (a text rule, a duplicate) cannot be re-driven.
            if input.record.payload.is_empty() {
                continue;
            }
            let rows = self.pending.input(input.partition, input.offset, Vec::new);
            rows.push(input.record);
            if rows.len() >= self.config.max_records {
                full.push(input.partition);
            }
        }
        for partition in full {
            self.write(partition, out).await?;
        }
        Ok(())
    }

    async fn tick(&mut self, out: &mut Emitter) -> Result<(), StageError> {
        for partition in self.pending.idle(self.config.flush_after) {
            self.write(partition, out).await?;
        }
        Ok(())
    }

    fn held_from(&self, _topic: &str, partition: i32) -> Option<i64> {
        self.pending.held_from(partition)
    }

    async fn revoked(&mut self, partitions: &[(Arc<str>, i32)]) {
        self.pending.revoke(partitions);
    }

    async fn finish(&mut self, out: &mut Emitter) -> Result<(), StageError> {
        for partition in self.pending.partitions() {
            self.write(partition, out).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_survive_parquet() {
        let rows = vec![Reject {
            stage: "fetch".into(),
            reason: "timeout".into(),
            detail: "slow".into(),
            id: "abc".into(),
            url: "http://x/1.jpg".into(),
            input_topic: "accepted".into(),
            input_key: "abc".into(),
            payload: vec![1, 2, 3, 0],
        }];
        assert_eq!(decode(encode(&rows).unwrap().into()).unwrap(), rows);
    }
}
