//! `altflow query`: SQL over every shard index of an output, with Apache DataFusion.
//!
//! The indexes of an output are one table, `samples` (the columns of [`index::schema`]). A query's
//! rows print as a table, CSV or JSON lines, or land as a Parquet file; [`select`] writes a
//! *manifest*: the full index rows of the samples a query names, each with the URL of its tar, so
//! that a trainer reads a subset chosen by SQL without any image being copied (the rows'
//! `jpg_offset` and `jpg_bytes` are a range request into `shard_url`).

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::error::DataFusionError;
use datafusion::execution::memory_pool::{FairSpillPool, TrackConsumersPool};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{DataFrame, SessionConfig, SessionContext};
use futures::StreamExt;
use parquet::arrow::AsyncArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use url::Url;

use crate::writer::index;
use crate::writer::store::{Output, Store, StoreError, parse_output};

/// The name of the table of every index row.
pub const TABLE: &str = "samples";

/// Errors running a query.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// The output could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A local output that does not exist (a typo would otherwise read as an empty table).
    #[error("output {0} does not exist")]
    Missing(String),
    /// DataFusion refused the query or failed running it.
    #[error("query: {0}")]
    DataFusion(#[from] DataFusionError),
    /// The query's rows could not be encoded.
    #[error("writing the result: {0}")]
    Arrow(#[from] datafusion::arrow::error::ArrowError),
    /// The Parquet result could not be written.
    #[error("writing {path}: {source}")]
    Parquet {
        /// Where it was going.
        path: String,
        /// Why.
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// A sample could not be copied by [`reshard`].
    #[error("copying from {url}: {reason}")]
    Copy {
        /// The tar (or store) concerned.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// A `--select` query without a `key` column.
    #[error("a selection's query must return a `key` column (it returned: {0})")]
    NoKey(String),
    /// The result could not be written to the terminal or file.
    #[error("writing the result: {0}")]
    Io(#[from] std::io::Error),
}

impl QueryError {
    /// Whether the query needed more memory than its session's limit ([`Limits`]) allows, in an
    /// operator that cannot spill.
    pub fn is_out_of_memory(&self) -> bool {
        matches!(self, QueryError::DataFusion(e)
            if matches!(e.find_root(), DataFusionError::ResourcesExhausted(_)))
    }
}

/// How a query's rows are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// An aligned text table (collects the whole result first: for small results).
    Table,
    /// CSV with a header line.
    Csv,
    /// One JSON object per row (lists and structs as JSON arrays and objects).
    Json,
    /// A Parquet file (needs a destination).
    Parquet,
}

/// The index schema as a table over files of any age: every column nullable, so that an index
/// written before a column was added reads with nulls there instead of failing.
fn table_schema() -> SchemaRef {
    let fields: Vec<Field> = index::schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_nullable(true))
        .collect();
    Arc::new(Schema::new(fields))
}

/// How much memory a query may hold, and where what does not fit goes.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Bytes that DataFusion's operators may hold together. Past it, sorts and aggregations (the
    /// shared-text count among them) spill to disk; an operator that cannot spill (a hash join's
    /// build side, `array_agg`) fails with "Resources exhausted". `None`: unbounded.
    pub memory: Option<usize>,
    /// Where spill files go (`None`: the system's temporary directory).
    pub spill_dir: Option<PathBuf>,
}

/// A DataFusion session with the table `samples` over the shard indexes of `store`, its memory
/// bounded by `limits`.
///
/// The store is registered under a URL of its own, so a local directory and a cloud prefix are
/// read alike; only the top level is listed and only `shard-*.parquet` is taken, so the failures
/// stage's files (under `failures/`) and the writers' fences (`_fence/`) stay out.
pub async fn session(store: &Store, limits: &Limits) -> Result<SessionContext, QueryError> {
    let mut runtime = RuntimeEnvBuilder::new();
    let mut config = SessionConfig::new();
    if let Some(bytes) = limits.memory {
        // The fair pool gives each spilling operator an equal share, so that one aggregation
        // cannot starve the sort after it; the tracking wrapper names the top consumers when the
        // limit is hit.
        let pool = TrackConsumersPool::new(
            FairSpillPool::new(bytes),
            NonZeroUsize::new(3).expect("a constant"),
        );
        runtime = runtime.with_memory_pool(Arc::new(pool));
        // The pool is shared fairly by every spilling operator of a plan (several for each
        // partition in the shared-text pass), and each must hold at least one batch, twice
        // over while it sorts it. Batches of 8,192 rows of 1 KB texts would want 16 MB each, so a
        // small limit takes smaller batches: a 32nd of the limit at 1 KB a row.
        let rows = (bytes >> 15).clamp(64, 8192);
        config = config.with_batch_size(rows);
        // Each sort also sets aside this much for merging what it spilled (10 MB by default,
        // more than a small limit holds in all).
        let merge = (bytes / 16).min(10 << 20);
        config = config.set_u64(
            "datafusion.execution.sort_spill_reservation_bytes",
            merge as u64,
        );
    }
    if let Some(dir) = &limits.spill_dir {
        runtime = runtime.with_temp_file_path(dir);
    }
    let ctx = SessionContext::new_with_config_rt(config, runtime.build_arc()?);
    let root = Url::parse("altflow-output://store/").expect("a constant URL");
    ctx.register_object_store(&root, store.inner.clone());
    let prefix = store.prefix.as_ref();
    let dir = if prefix.is_empty() {
        root
    } else {
        root.join(&format!("{prefix}/"))
            .map_err(|e| DataFusionError::External(Box::new(e)))?
    };
    let url = ListingTableUrl::try_new(dir, None)?.with_glob("shard-*.parquet")?;
    let options =
        ListingOptions::new(Arc::new(ParquetFormat::default())).with_file_extension(".parquet");
    let config = ListingTableConfig::new(url)
        .with_listing_options(options)
        .with_schema(table_schema());
    ctx.register_table(TABLE, Arc::new(ListingTable::try_new(config)?))?;
    texts_view(&ctx, TABLE).await?;
    Ok(ctx)
}

/// (Re)creates the view [`TEXTS`] over the table `over`.
async fn texts_view(ctx: &SessionContext, over: &str) -> Result<(), QueryError> {
    ctx.deregister_table(TEXTS)?;
    // Distinct (text, image) pairs first, then a count per text: both are plain aggregations.
    ctx.sql(&format!(
        "CREATE VIEW {TEXTS} AS SELECT text, count(*) AS images FROM \
         (SELECT DISTINCT {} AS text, sha256 FROM {over}) GROUP BY text",
        text_key("alt")
    ))
    .await?;
    Ok(())
}

/// The view of every text of the output and the number of distinct images (by SHA-256) it came
/// with.
pub const TEXTS: &str = "texts";

/// The SQL expression comparing texts as the dedup stage does: `column` in lower case, white
/// space collapsed.
fn text_key(column: &str) -> String {
    format!("lower(regexp_replace(btrim({column}), '\\s+', ' ', 'g'))")
}

/// Makes `samples` leave out every sample whose text came with more than `max_images` distinct
/// images anywhere in the output (seed 003: "if too many images have the same description, we will
/// directly drop all these pairs"). The dedup stage applies the rule while streaming, but only to
/// what one member's window and sketch see; this second pass counts exactly over everything
/// written. The count is an aggregation by distinct text and image, which spills to disk past the
/// session's memory limit ([`Limits`]); the join that leaves the shared texts out holds those texts
/// only.
pub async fn drop_shared_texts(ctx: &SessionContext, max_images: u32) -> Result<(), QueryError> {
    if ctx.table_exist(ALL_SAMPLES)? {
        // Narrowed before: only the limit changes.
        ctx.deregister_table(TABLE)?;
    } else {
        let all = ctx.deregister_table(TABLE)?.ok_or_else(|| {
            DataFusionError::Plan(format!("no table `{TABLE}`: not a session() of an output"))
        })?;
        ctx.register_table(ALL_SAMPLES, all)?;
    }
    texts_view(ctx, ALL_SAMPLES).await?;
    // The shared texts build the join's hash table and the samples stream past it: memory
    // grows with the number of shared texts, not of samples. (Written as a right anti join so
    // that the small side is the build side; the plain NOT IN is a null-aware anti join that
    // builds on the samples.) A sample without text matches nothing and stays.
    ctx.sql(&format!(
        "CREATE VIEW {TABLE} AS SELECT s.* FROM \
         (SELECT text FROM {TEXTS} WHERE images > {max_images}) t \
         RIGHT ANTI JOIN {ALL_SAMPLES} s ON t.text = {}",
        text_key("s.alt")
    ))
    .await?;
    Ok(())
}

/// Every index row, shared texts included, once [`drop_shared_texts`] has narrowed `samples`.
pub const ALL_SAMPLES: &str = "all_samples";

/// Opens the output `output` (a directory, `file://`, `s3://`, `gs://`, `az://` URL) for reading,
/// with object_store `options` over those from the environment.
pub fn open(
    output: &str,
    options: &std::collections::BTreeMap<String, String>,
) -> Result<Store, QueryError> {
    if let Output::Local(dir) = parse_output(output)?
        && !dir.is_dir()
    {
        return Err(QueryError::Missing(dir.display().to_string()));
    }
    Ok(Store::open(output, options)?)
}

/// Runs `sql` and writes its rows to `out` as `format` (not [`Format::Parquet`]: see
/// [`write_parquet`]). Rows are written as they come, except for a table.
pub async fn print(
    ctx: &SessionContext,
    sql: &str,
    format: Format,
    out: &mut dyn std::io::Write,
) -> Result<u64, QueryError> {
    let frame = ctx.sql(sql).await?;
    if format == Format::Table {
        let batches = frame.collect().await?;
        let rows = batches.iter().map(|b| b.num_rows() as u64).sum();
        writeln!(
            out,
            "{}",
            datafusion::arrow::util::pretty::pretty_format_batches(&batches)?
        )?;
        return Ok(rows);
    }
    let mut stream = frame.execute_stream().await?;
    match format {
        Format::Csv => {
            let mut writer = datafusion::arrow::csv::Writer::new(out);
            drain(&mut stream, |batch| writer.write(batch)).await
        }
        Format::Json => {
            let mut writer = datafusion::arrow::json::LineDelimitedWriter::new(out);
            let rows = drain(&mut stream, |batch| writer.write(batch)).await?;
            writer.finish()?;
            Ok(rows)
        }
        Format::Table | Format::Parquet => unreachable!("handled above and by the caller"),
    }
}

/// Hands every batch of `stream` to `write`; returns the number of rows.
async fn drain(
    stream: &mut datafusion::execution::SendableRecordBatchStream,
    mut write: impl FnMut(&RecordBatch) -> Result<(), datafusion::arrow::error::ArrowError>,
) -> Result<u64, QueryError> {
    let mut rows = 0;
    while let Some(batch) = stream.next().await {
        let batch = batch?;
        rows += batch.num_rows() as u64;
        write(&batch)?;
    }
    Ok(rows)
}

/// Runs `sql` and writes its rows as one Parquet file at `destination` (a path or object store
/// URL), streaming: memory holds a row group, not the result. Returns the number of rows.
pub async fn write_parquet(
    ctx: &SessionContext,
    sql: &str,
    destination: &str,
    options: &std::collections::BTreeMap<String, String>,
) -> Result<u64, QueryError> {
    let frame = ctx.sql(sql).await?;
    write_frame(frame, destination, options).await
}

/// Writes the full index rows of the samples whose keys `sql` returns, with `shard_url` (the URL
/// of each sample's tar), as a Parquet manifest at `destination`. Returns the number of rows.
pub async fn select(
    ctx: &SessionContext,
    store: &Store,
    sql: &str,
    destination: &str,
    options: &std::collections::BTreeMap<String, String>,
) -> Result<u64, QueryError> {
    let manifest = manifest(ctx, store, sql, false).await?;
    write_frame(manifest, destination, options).await
}

/// The index rows of the samples whose keys `sql` returns, each once, with `shard_url`; `in_tar_order`
/// sorts them by shard and offset (a sort holds the whole selection: only resharding needs it, to
/// fetch each source tar once).
async fn manifest(
    ctx: &SessionContext,
    store: &Store,
    sql: &str,
    in_tar_order: bool,
) -> Result<DataFrame, QueryError> {
    let keys = ctx.sql(sql).await?;
    let columns: Vec<String> = keys
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    if !columns.iter().any(|c| c == "key") {
        return Err(QueryError::NoKey(columns.join(", ")));
    }
    ctx.register_table("selected", keys.select_columns(&["key"])?.into_view())?;
    // Keys are unique per sample, so the semi join keeps each selected sample once even when the
    // query returned its key several times (`unnest(qa)` does).
    let base = format!("{}/", store.base_url);
    let order = if in_tar_order {
        " ORDER BY s.shard, s.jpg_offset"
    } else {
        ""
    };
    Ok(ctx
        .sql(&format!(
            "SELECT s.*, {} || s.shard AS shard_url FROM {TABLE} s \
             WHERE s.key IN (SELECT key FROM selected){order}",
            quote(&base)
        ))
        .await?)
}

/// Copies the samples whose keys `sql` returns into new shards under `destination` (a directory or
/// object store URL): every member of each sample (`.jpg`, `.txt`, `.json`, `.qa.json`, `.npy`)
/// into tars of at most `shard_rows` samples, each with its index, named as the writer names them
/// (`shard-p0000-oNNNNNNNNNNNN`, the offset counting samples), so that everything that reads an
/// output reads the new one. Memory holds one source tar and one new shard. Returns the number of
/// samples copied.
pub async fn reshard(
    ctx: &SessionContext,
    store: &Store,
    sql: &str,
    destination: &str,
    options: &std::collections::BTreeMap<String, String>,
    shard_rows: usize,
) -> Result<u64, QueryError> {
    let mut rows = manifest(ctx, store, sql, true)
        .await?
        .execute_stream()
        .await?;
    let out = Store::open(destination, options)?;
    let mut source: Option<(String, SourceTar)> = None;
    let mut shard = NewShard::default();
    let mut copied = 0u64;
    while let Some(batch) = rows.next().await {
        let batch = batch?;
        let keys = string_column(&batch, "key")?;
        let shards = string_column(&batch, "shard")?;
        for row in 0..batch.num_rows() {
            use datafusion::arrow::array::Array;
            if shards.is_null(row) {
                return Err(QueryError::Copy {
                    url: store.base_url.clone(),
                    reason: format!(
                        "sample {} is in an index written before indexes named their tar",
                        keys.value(row)
                    ),
                });
            }
            // The tars are the queried store's own objects: read through it, not their URLs.
            let name = shards.value(row);
            if source.as_ref().is_none_or(|(current, _)| current != name) {
                source = Some((name.to_string(), SourceTar::fetch(store, name).await?));
            }
            let (_, tar) = source.as_ref().expect("set above");
            let key = keys.value(row);
            let members = tar.members_of(key).ok_or_else(|| QueryError::Copy {
                url: store.url(name),
                reason: format!("sample {key} is not in it"),
            })?;
            let mut jpg_offset = None;
            for member in members {
                let offset = shard.tar.append(&member.name, &member.data);
                if member.name.ends_with(".jpg") {
                    jpg_offset = Some(offset);
                }
            }
            let jpg_offset = jpg_offset.ok_or_else(|| QueryError::Copy {
                url: store.url(name),
                reason: format!("sample {key} has no .jpg"),
            })?;
            shard.rows.push(batch.slice(row, 1));
            shard.jpg_offsets.push(jpg_offset);
            copied += 1;
            if shard.rows.len() >= shard_rows {
                std::mem::take(&mut shard)
                    .put(&out, copied - shard_rows as u64)
                    .await?;
            }
        }
    }
    let first = copied - shard.rows.len() as u64;
    shard.put(&out, first).await?;
    Ok(copied)
}

fn string_column<'a>(
    batch: &'a RecordBatch,
    name: &str,
) -> Result<&'a datafusion::arrow::array::StringArray, QueryError> {
    use datafusion::arrow::array::AsArray;
    batch
        .column_by_name(name)
        .and_then(|c| c.as_string_opt::<i32>())
        .ok_or_else(|| QueryError::Copy {
            url: String::new(),
            reason: format!("the manifest has no string column {name}"),
        })
}

/// A source shard's tar, read whole, its members by sample key.
struct SourceTar {
    members: std::collections::HashMap<String, Vec<crate::writer::tar::Member>>,
}

impl SourceTar {
    async fn fetch(store: &Store, name: &str) -> Result<Self, QueryError> {
        use object_store::ObjectStoreExt;
        let failed = |reason: String| QueryError::Copy {
            url: store.url(name),
            reason,
        };
        let bytes = store
            .inner
            .get(&store.path(name))
            .await
            .map_err(|e| failed(e.to_string()))?
            .bytes()
            .await
            .map_err(|e| failed(e.to_string()))?;
        let mut members: std::collections::HashMap<_, Vec<_>> = Default::default();
        for member in crate::writer::tar::read_members(&bytes).map_err(|e| failed(e.to_string()))? {
            // KEY.ext, where the extension may have dots of its own (`KEY.qa.json`).
            let key = member
                .name
                .split('.')
                .next()
                .unwrap_or_default()
                .to_string();
            members.entry(key).or_default().push(member);
        }
        Ok(Self { members })
    }

    fn members_of(&self, key: &str) -> Option<&[crate::writer::tar::Member]> {
        self.members.get(key).map(Vec::as_slice)
    }
}

/// A shard being filled by [`reshard`].
#[derive(Default)]
struct NewShard {
    tar: crate::writer::tar::TarBuilder,
    rows: Vec<RecordBatch>,
    jpg_offsets: Vec<u64>,
}

impl NewShard {
    /// Puts the tar, then its index (the writer's order: an index never names a missing tar).
    async fn put(self, out: &Store, first: u64) -> Result<(), QueryError> {
        use datafusion::arrow::array::{ArrayRef, StringArray, UInt64Array};
        use object_store::{ObjectStoreExt, PutPayload};
        if self.rows.is_empty() {
            return Ok(());
        }
        let name = format!("shard-p0000-o{first:012}");
        let tar_name = format!("{name}.tar");
        let rows = datafusion::arrow::compute::concat_batches(&self.rows[0].schema(), &self.rows)?;
        let schema = table_schema();
        let count = rows.num_rows();
        let columns = schema
            .fields()
            .iter()
            .map(|field| -> Result<ArrayRef, QueryError> {
                Ok(match field.name().as_str() {
                    "jpg_offset" => Arc::new(UInt64Array::from(self.jpg_offsets.clone())),
                    "shard" => Arc::new(StringArray::from_iter_values(std::iter::repeat_n(
                        tar_name.as_str(),
                        count,
                    ))),
                    other => {
                        rows.column_by_name(other)
                            .cloned()
                            .ok_or_else(|| QueryError::Copy {
                                url: String::new(),
                                reason: format!("the manifest has no column {other}"),
                            })?
                    }
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let index_name = format!("{name}.parquet");
        let index =
            index::encode_parquet(RecordBatch::try_new(schema, columns)?).map_err(|source| {
                QueryError::Parquet {
                    path: index_name.clone(),
                    source,
                }
            })?;
        for (name, bytes) in [(&tar_name, self.tar.finish()), (&index_name, index)] {
            out.inner
                .put(&out.path(name), PutPayload::from(bytes))
                .await
                .map_err(|e| QueryError::Copy {
                    url: out.url(name),
                    reason: e.to_string(),
                })?;
        }
        Ok(())
    }
}

/// `text` as a SQL string literal.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

async fn write_frame(
    frame: DataFrame,
    destination: &str,
    options: &std::collections::BTreeMap<String, String>,
) -> Result<u64, QueryError> {
    let failed = |source| QueryError::Parquet {
        path: destination.to_string(),
        source,
    };
    let schema: SchemaRef = Arc::new(frame.schema().as_arrow().clone());
    let mut stream = frame.execute_stream().await?;
    let (store, path) = Store::open_object(destination, options.clone())?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let sink = object_store::buffered::BufWriter::new(store.inner.clone(), path);
    let mut writer = AsyncArrowWriter::try_new(sink, schema, Some(props)).map_err(failed)?;
    let mut rows = 0;
    while let Some(batch) = stream.next().await {
        let batch: RecordBatch = batch?;
        rows += batch.num_rows() as u64;
        writer.write(&batch).await.map_err(failed)?;
    }
    writer.close().await.map_err(failed)?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Candidate, Image, Sample};
    use crate::writer::index::{IndexBuilder, Placement};
    use object_store::{ObjectStoreExt, PutPayload};

    /// An index of `shard` whose rows are the given alt texts with their images.
    fn index_from(shard: &str, rows: impl IntoIterator<Item = (String, Image)>) -> Vec<u8> {
        let mut builder = IndexBuilder::default();
        for (n, (alt, image)) in rows.into_iter().enumerate() {
            let sample = Sample {
                candidate: Some(Candidate {
                    id: format!("{shard}-{n}"),
                    alt,
                    ..Default::default()
                }),
                image: Some(image),
                ..Default::default()
            };
            let placement = Placement {
                jpg_offset: 512 * n as u64,
                partition: 0,
                offset: n as i64,
            };
            builder.push(&sample, &placement);
        }
        builder.finish(shard).unwrap()
    }

    fn index(rows: usize, shard: &str) -> Vec<u8> {
        index_from(
            shard,
            (0..rows).map(|n| {
                let image = Image {
                    jpeg: vec![0xff; 10],
                    width: 10 + n as u32,
                    ..Default::default()
                };
                (format!("picture {n}"), image)
            }),
        )
    }

    /// An index as written before the `shard` column existed.
    fn old_index(rows: usize) -> Vec<u8> {
        use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
        let bytes = bytes::Bytes::from(index(rows, "old.tar"));
        let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
            .unwrap()
            .build()
            .unwrap();
        let batch = reader.into_iter().next().unwrap().unwrap();
        let without = batch.num_columns() - 1;
        let old = batch.project(&(0..without).collect::<Vec<_>>()).unwrap();
        index::encode_parquet(old).unwrap()
    }

    /// A memory store holding `objects`.
    async fn store_with(objects: Vec<(&str, Vec<u8>)>) -> Store {
        let store = Store::open("memory://", std::iter::empty()).unwrap();
        for (name, bytes) in objects {
            store
                .inner
                .put(&store.path(name), PutPayload::from(bytes))
                .await
                .unwrap();
        }
        store
    }

    async fn rows(ctx: &SessionContext, sql: &str) -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        print(ctx, sql, Format::Json, &mut out).await.unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[tokio::test]
    async fn samples_is_every_shard_index_and_nothing_else() {
        let store = store_with(vec![
            ("shard-p0000-o000000000000.parquet", index(3, "a.tar")),
            ("shard-p0001-o000000000000.parquet", index(2, "b.tar")),
            ("shard-p0002-o000000000000.parquet", old_index(4)),
            // The failures stage's files and the fences are not samples, and do not parse as
            // them; nor does a tar.
            (
                "failures/1/00000-000000000000.parquet",
                b"PAR1 junk".to_vec(),
            ),
            ("_fence/p0000/g000000000001", b"0".to_vec()),
            ("shard-p0000-o000000000000.tar", b"not an index".to_vec()),
        ])
        .await;
        let ctx = session(&store, &Limits::default()).await.unwrap();
        let got = rows(
            &ctx,
            "SELECT count(*) AS n, count(shard) AS named, sum(width) AS w FROM samples",
        )
        .await;
        // Widths 10.., per file: 10+11+12, 10+11, 10+11+12+13 = 100.
        assert_eq!(got, vec![serde_json::json!({"n": 9, "named": 5, "w": 100})]);
        let by_shard = rows(
            &ctx,
            "SELECT shard, count(*) AS n FROM samples WHERE shard IS NOT NULL \
             GROUP BY shard ORDER BY shard",
        )
        .await;
        assert_eq!(
            by_shard,
            vec![
                serde_json::json!({"shard": "a.tar", "n": 3}),
                serde_json::json!({"shard": "b.tar", "n": 2})
            ]
        );
    }

    #[tokio::test]
    async fn shared_texts_are_counted_over_the_whole_output_and_dropped() {
        // Texts with images, spread over three indexes (as over windows and members): "logo"
        // comes with 3 distinct images (one of them twice), "a red boat" with 1, "A  Red boat "
        // is the same text.
        let index_of = |shard: &str, rows: &[(&str, u8)]| {
            index_from(
                shard,
                rows.iter().map(|&(alt, image)| {
                    let image = Image {
                        jpeg: vec![0xff; 10],
                        sha256: vec![image; 32],
                        ..Default::default()
                    };
                    (alt.to_string(), image)
                }),
            )
        };
        let store = store_with(vec![
            (
                "shard-p0000-o000000000000.parquet",
                index_of("a.tar", &[("logo", 1), ("a red boat", 9)]),
            ),
            (
                "shard-p0001-o000000000000.parquet",
                index_of("b.tar", &[("Logo", 2), ("A  Red boat ", 9)]),
            ),
            (
                "shard-p0002-o000000000000.parquet",
                index_of("c.tar", &[("logo ", 3), ("LOGO", 1), ("a dog", 4)]),
            ),
        ])
        .await;
        let ctx = session(&store, &Limits::default()).await.unwrap();
        let texts = rows(&ctx, "SELECT text, images FROM texts ORDER BY text").await;
        assert_eq!(
            texts,
            vec![
                serde_json::json!({"text": "a dog", "images": 1}),
                serde_json::json!({"text": "a red boat", "images": 1}),
                serde_json::json!({"text": "logo", "images": 3}),
            ]
        );
        let keys = |ctx: SessionContext| async move {
            rows(&ctx, "SELECT key FROM samples ORDER BY key")
                .await
                .into_iter()
                .map(|r| r["key"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        drop_shared_texts(&ctx, 3).await.unwrap();
        assert_eq!(keys(ctx).await.len(), 7);
        let ctx = session(&store, &Limits::default()).await.unwrap();
        drop_shared_texts(&ctx, 1).await.unwrap();
        // Narrowing again changes the limit, over every row.
        drop_shared_texts(&ctx, 2).await.unwrap();
        assert_eq!(keys(ctx.clone()).await, ["a.tar-1", "b.tar-1", "c.tar-2"]);
        // The whole output stays at hand.
        assert_eq!(
            rows(&ctx, "SELECT count(*) AS n FROM all_samples").await,
            vec![serde_json::json!({"n": 7})]
        );
    }

    #[tokio::test]
    async fn the_shared_text_pass_holds_to_its_memory_limit() {
        // 160,000 samples over four indexes (as from four members), every text long and
        // distinct but "logo", which comes with 5 distinct images: the distinct (text, image)
        // pairs alone take ~60 MB, four times the limit: the count spills, and the join holds
        // the one shared text (a join building on the samples fails here).
        const PER_INDEX: usize = 40_000;
        let filler = "a long description of a picture that no other sample shares ".repeat(5);
        let mut objects = Vec::new();
        for member in 0..4u8 {
            let shard = format!("m{member}.tar");
            let rows = (0..PER_INDEX).map(|n| {
                let logo = n == 0 || (member == 0 && n == 1);
                let alt = if logo {
                    "logo".to_string()
                } else {
                    format!("{member} {n} {filler}")
                };
                let mut sha256 = vec![member; 32];
                sha256[..8].copy_from_slice(&(n as u64).to_le_bytes());
                let image = Image {
                    jpeg: vec![0xff; 10],
                    sha256,
                    ..Default::default()
                };
                (alt, image)
            });
            let name = format!("shard-p000{member}-o000000000000.parquet");
            objects.push((name, index_from(&shard, rows)));
        }
        let store = store_with(
            objects
                .iter()
                .map(|(n, b)| (n.as_str(), b.clone()))
                .collect(),
        )
        .await;
        let spill = tempfile::tempdir().unwrap();
        let limits = Limits {
            memory: Some(16 << 20),
            spill_dir: Some(spill.path().to_path_buf()),
        };
        let ctx = session(&store, &limits).await.unwrap();
        // The limit is real: an aggregation that cannot spill fails under it.
        let err = print(
            &ctx,
            "SELECT array_agg(alt) FROM samples",
            Format::Json,
            &mut Vec::new(),
        )
        .await
        .unwrap_err();
        assert!(err.to_string().contains("Resources exhausted"), "{err}");
        assert!(err.is_out_of_memory(), "{err:?}");
        assert_eq!(
            rows(&ctx, "SELECT count(*) AS n FROM texts WHERE images > 4").await,
            vec![serde_json::json!({"n": 1})]
        );
        drop_shared_texts(&ctx, 4).await.unwrap();
        assert_eq!(
            rows(
                &ctx,
                "SELECT count(*) AS n, count(*) FILTER (WHERE alt = 'logo') AS logos FROM samples"
            )
            .await,
            vec![serde_json::json!({"n": 4 * PER_INDEX - 5, "logos": 0})]
        );
    }

    #[tokio::test]
    async fn a_selection_needs_keys_and_writes_located_rows() {
        let store = store_with(vec![(
            "shard-p0000-o000000000000.parquet",
            index(3, "a.tar"),
        )])
        .await;
        let ctx = session(&store, &Limits::default()).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("m.parquet");
        let dest = dest.to_str().unwrap();
        let options = Default::default();
        let err = select(&ctx, &store, "SELECT alt FROM samples", dest, &options)
            .await
            .unwrap_err();
        assert!(
            matches!(err, QueryError::NoKey(ref c) if c == "alt"),
            "{err}"
        );
        // A key returned twice (as `unnest` would) is one row of the manifest.
        let sql = "SELECT key FROM samples WHERE width >= 11 UNION ALL \
                   SELECT key FROM samples WHERE width = 12";
        assert_eq!(select(&ctx, &store, sql, dest, &options).await.unwrap(), 2);
        let manifest = session(&store, &Limits::default()).await.unwrap();
        manifest
            .register_parquet("m", dest, Default::default())
            .await
            .unwrap();
        let got = rows(
            &manifest,
            "SELECT key, shard_url, jpg_offset FROM m ORDER BY key",
        )
        .await;
        assert_eq!(
            got,
            vec![
                serde_json::json!({"key": "a.tar-1", "shard_url": "memory:///a.tar", "jpg_offset": 512}),
                serde_json::json!({"key": "a.tar-2", "shard_url": "memory:///a.tar", "jpg_offset": 1024})
            ]
        );
    }
}
