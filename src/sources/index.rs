//! Selection through Common Crawl's columnar URL index: an SQL condition on the index's columns
//! (host, TLD, language, MIME type, …) picks captures, and only their WARC records are read, each
//! with a ranged request (`warc_filename`, `warc_record_offset`, `warc_record_length`), instead of
//! whole files.
//!
//! The seeding process runs the query with DataFusion over the index's Parquet files (row groups
//! whose statistics rule the condition out are skipped) and streams the rows out; it publishes
//! them on the `archives` topic grouped by WARC file, so the extract stage's members share the
//! reading. Rows are grouped as they come (the index is sorted by URL, not by file): a file's
//! group is published once it holds [`RANGES_PER_RECORD`] records, and every group once
//! [`HELD_RECORDS`] are held, so memory stays bounded whatever the selection's size.

use std::collections::HashMap;

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Int64Type};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::execution::context::SQLOptions;
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use futures::StreamExt;
use url::Url;

use crate::sources::SourceError;
use crate::writer::store::{Output, Store, parse_output};

/// Records of one WARC file put in one `archives` record: enough that a member's ranged reads
/// overlap, few enough that a crash re-reads little.
pub const RANGES_PER_RECORD: usize = 32;

/// Selected records held back, waiting for more of their file, before every group is published.
pub const HELD_RECORDS: usize = 65_536;

/// The index as the query sees it.
const TABLE: &str = "ccindex";

/// A group of records of one WARC file: its location and `[offset, length, …]` pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The WARC file, resolved against the entry's base.
    pub file: String,
    /// Byte offset and length of each record, in pairs.
    pub ranges: Vec<u64>,
}

/// The rows a selection keeps, in groups, as the query yields them.
pub struct Selection {
    stream: SendableRecordBatchStream,
    base: String,
    location: String,
    held: HashMap<String, Vec<u64>>,
    held_records: usize,
    /// Rows kept by the condition so far.
    pub rows: u64,
    /// Rows without a file, offset or length (left out).
    pub incomplete: u64,
}

impl Selection {
    /// Runs `SELECT … FROM index WHERE condition` over the Parquet files `index` (local paths or
    /// object-store URLs, read with `options`). The rows' `warc_filename`s are resolved against
    /// `base`. `location` names the configuration key in errors.
    pub async fn open(
        index: &[String],
        condition: &str,
        base: &str,
        options: &std::collections::BTreeMap<String, String>,
        location: &str,
    ) -> Result<Self, SourceError> {
        let error = |reason: String| SourceError::Index {
            location: location.to_string(),
            reason,
        };
        if index.is_empty() {
            return Err(error("the index names no Parquet file".into()));
        }
        let ctx = SessionContext::new();
        let mut urls = Vec::with_capacity(index.len());
        let mut registered = std::collections::HashSet::new();
        for file in index {
            match parse_output(file) {
                Ok(Output::Cloud(url)) => {
                    // DataFusion finds a file's store by scheme and host.
                    let root = Url::parse(&url[..url::Position::BeforePath])
                        .map_err(|e| error(format!("{file}: {e}")))?;
                    if registered.insert(root.clone()) {
                        let (store, _) = Store::open_object(
                            file,
                            options.iter().map(|(k, v)| (k.clone(), v.clone())),
                        )
                        .map_err(|e| error(format!("{file}: {e}")))?;
                        ctx.register_object_store(&root, store.inner);
                    }
                    urls.push(file.clone());
                }
                Ok(Output::Local(path)) => urls.push(path.to_string_lossy().into_owned()),
                _ => return Err(error(format!("{file}: not a file or object-store URL"))),
            }
        }
        let read = ParquetReadOptions {
            // Common Crawl's files end `.gz.parquet`; the listing already chose them.
            file_extension: "",
            ..Default::default()
        };
        let table = ctx
            .read_parquet(urls, read)
            .await
            .map_err(|e| error(format!("reading the index: {e}")))?;
        ctx.register_table(TABLE, table.into_view())
            .map_err(|e| error(e.to_string()))?;
        let query = format!(
            "SELECT warc_filename, warc_record_offset, warc_record_length FROM {TABLE} \
             WHERE ({condition})"
        );
        // The condition is the pipeline file's, but a query over the index is all it may make.
        let only_queries = SQLOptions::new()
            .with_allow_ddl(false)
            .with_allow_dml(false)
            .with_allow_statements(false);
        let stream = ctx
            .sql_with_options(&query, only_queries)
            .await
            .map_err(|e| error(format!("`{condition}`: {e}")))?
            .execute_stream()
            .await
            .map_err(|e| error(format!("`{condition}`: {e}")))?;
        Ok(Self {
            stream,
            base: base.to_string(),
            location: location.to_string(),
            held: HashMap::new(),
            held_records: 0,
            rows: 0,
            incomplete: 0,
        })
    }

    /// The next groups ready to publish; `None` once every row has been given.
    pub async fn next(&mut self) -> Result<Option<Vec<Group>>, SourceError> {
        loop {
            let Some(batch) = self.stream.next().await else {
                let rest = self.take_all();
                return Ok((!rest.is_empty()).then_some(rest));
            };
            let batch = batch.map_err(|e| SourceError::Index {
                location: self.location.clone(),
                reason: format!("reading the index: {e}"),
            })?;
            let ready = self.add(&batch)?;
            if self.held_records >= HELD_RECORDS {
                let mut all = ready;
                all.extend(self.take_all());
                return Ok(Some(all));
            }
            if !ready.is_empty() {
                return Ok(Some(ready));
            }
        }
    }

    /// Adds a batch's rows to their files' groups; returns the groups that filled up.
    fn add(&mut self, batch: &RecordBatch) -> Result<Vec<Group>, SourceError> {
        let column = |i: usize, to: &DataType| {
            datafusion::arrow::compute::cast(batch.column(i), to).map_err(|e| SourceError::Index {
                location: self.location.clone(),
                reason: format!("column {}: {e}", batch.schema().field(i).name()),
            })
        };
        let files = column(0, &DataType::Utf8)?;
        let offsets = column(1, &DataType::Int64)?;
        let lengths = column(2, &DataType::Int64)?;
        let (files, offsets, lengths) = (
            files.as_string::<i32>(),
            offsets.as_primitive::<Int64Type>(),
            lengths.as_primitive::<Int64Type>(),
        );
        let mut ready = Vec::new();
        for row in 0..batch.num_rows() {
            self.rows += 1;
            if files.is_null(row) || offsets.is_null(row) || lengths.is_null(row) {
                self.incomplete += 1;
                continue;
            }
            let (offset, length) = (offsets.value(row), lengths.value(row));
            if offset < 0 || length <= 0 {
                self.incomplete += 1;
                continue;
            }
            let file = files.value(row);
            let ranges = match self.held.get_mut(file) {
                Some(ranges) => ranges,
                None => self.held.entry(file.to_string()).or_default(),
            };
            ranges.extend([offset as u64, length as u64]);
            self.held_records += 1;
            if ranges.len() >= 2 * RANGES_PER_RECORD {
                let ranges = std::mem::take(ranges);
                self.held.remove(file);
                self.held_records -= RANGES_PER_RECORD;
                ready.push(self.group(file, ranges));
            }
        }
        Ok(ready)
    }

    fn take_all(&mut self) -> Vec<Group> {
        self.held_records = 0;
        let mut groups: Vec<Group> = std::mem::take(&mut self.held)
            .into_iter()
            .map(|(file, ranges)| self.group(&file, ranges))
            .collect();
        // Files in name order: the same selection publishes the same records.
        groups.sort_by(|a, b| a.file.cmp(&b.file));
        groups
    }

    fn group(&self, file: &str, ranges: Vec<u64>) -> Group {
        let absolute = file.starts_with('/') || Url::parse(file).is_ok();
        Group {
            file: if absolute {
                file.to_string()
            } else {
                format!("{}{file}", self.base)
            },
            ranges,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{ArrayRef, Int32Array, RecordBatch as Batch, StringArray};

    /// An index of `rows` rows, row `i` in file `file(i)` at offset `i * 100`.
    fn index(dir: &std::path::Path, rows: usize, file: impl Fn(usize) -> String) -> String {
        let batch = Batch::try_from_iter([
            (
                "warc_filename",
                std::sync::Arc::new(StringArray::from_iter_values((0..rows).map(&file)))
                    as ArrayRef,
            ),
            (
                "warc_record_offset",
                std::sync::Arc::new(Int32Array::from_iter_values(
                    (0..rows).map(|i| i as i32 * 100),
                )),
            ),
            (
                "warc_record_length",
                std::sync::Arc::new(Int32Array::from_iter_values((0..rows).map(|_| 100))),
            ),
        ])
        .unwrap();
        let path = dir.join("index.parquet");
        let mut writer = parquet::arrow::ArrowWriter::try_new(
            std::fs::File::create(&path).unwrap(),
            batch.schema(),
            None,
        )
        .unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        path.to_string_lossy().into_owned()
    }

    async fn groups(index: &str, condition: &str) -> Vec<Vec<Group>> {
        let mut selection = Selection::open(
            &[index.to_string()],
            condition,
            "s3://commoncrawl/",
            &Default::default(),
            "archives[0].select",
        )
        .await
        .unwrap();
        let mut all = Vec::new();
        while let Some(groups) = selection.next().await.unwrap() {
            all.push(groups);
        }
        all
    }

    #[tokio::test]
    async fn a_files_records_are_published_in_groups_of_32_as_they_fill() {
        let dir = tempfile::tempdir().unwrap();
        // 100 rows over 3 files, interleaved as an index sorted by URL interleaves them.
        let index = index(dir.path(), 100, |i| {
            format!("crawl-data/x/f{}.warc.gz", i % 3)
        });
        let calls = groups(&index, "warc_record_offset >= 0").await;
        let all: Vec<&Group> = calls.iter().flatten().collect();
        assert!(all.iter().all(|g| g.ranges.len() <= 2 * RANGES_PER_RECORD));
        assert!(
            all.iter()
                .all(|g| g.file.starts_with("s3://commoncrawl/crawl-data/x/f"))
        );
        let mut offsets: Vec<u64> = all
            .iter()
            .flat_map(|g| g.ranges.chunks(2).map(|p| p[0]))
            .collect();
        offsets.sort();
        assert_eq!(offsets, (0..100).map(|i| i * 100).collect::<Vec<u64>>());
        // Each file's first 32 records went out as soon as they were there; the rest at the end.
        assert_eq!(all.iter().filter(|g| g.ranges.len() == 64).count(), 3);
    }

    #[tokio::test]
    async fn held_records_are_bounded_whatever_the_selection() {
        let dir = tempfile::tempdir().unwrap();
        // Every row in a file of its own: no group ever fills, so only the bound flushes them.
        let rows = HELD_RECORDS + 1000;
        let index = index(dir.path(), rows, |i| format!("f{i}.warc.gz"));
        let calls = groups(&index, "warc_record_length = 100").await;
        assert!(calls.len() >= 2, "flushed before the end");
        let held_at_most = calls.iter().map(Vec::len).max().unwrap();
        assert!(held_at_most <= HELD_RECORDS + 8192, "{held_at_most}");
        assert_eq!(calls.iter().map(Vec::len).sum::<usize>(), rows);
    }
}
