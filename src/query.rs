//! `altflow query`: SQL over every shard index of an output, with Apache DataFusion.
//!
//! The indexes of an output are one table, `samples` (the columns of [`index::schema`]). A query's
//! rows print as a table, CSV or JSON lines, or land as a Parquet file; [`select`] writes a
//! *manifest*: the full index rows of the samples a query names, each with the URL of its tar, so
//! that a trainer reads a subset chosen by SQL without any image being copied (the rows'
//! `jpg_offset` and `jpg_bytes` are a range request into `shard_url`).

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::error::DataFusionError;
use datafusion::prelude::{DataFrame, SessionContext};
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
    /// A `--select` query without a `key` column.
    #[error("a selection's query must return a `key` column (it returned: {0})")]
    NoKey(String),
    /// The result could not be written to the terminal or file.
    #[error("writing the result: {0}")]
    Io(#[from] std::io::Error),
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

/// A DataFusion session with the table `samples` over the shard indexes of `store`.
///
/// The store is registered under a URL of its own, so a local directory and a cloud prefix are
/// read alike; only the top level is listed and only `shard-*.parquet` is taken, so the failures
/// stage's files (under `failures/`) and the writers' fences (`_fence/`) stay out.
pub async fn session(store: &Store) -> Result<SessionContext, QueryError> {
    let ctx = SessionContext::new();
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
    Ok(ctx)
}

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
    let mut rows = 0;
    match format {
        Format::Csv => {
            let mut writer = datafusion::arrow::csv::Writer::new(out);
            while let Some(batch) = stream.next().await {
                let batch = batch?;
                rows += batch.num_rows() as u64;
                writer.write(&batch)?;
            }
        }
        Format::Json => {
            let mut writer = datafusion::arrow::json::LineDelimitedWriter::new(out);
            while let Some(batch) = stream.next().await {
                let batch = batch?;
                rows += batch.num_rows() as u64;
                writer.write(&batch)?;
            }
            writer.finish()?;
        }
        Format::Table | Format::Parquet => unreachable!("handled by the caller"),
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
    let manifest = ctx
        .sql(&format!(
            "SELECT s.*, {} || s.shard AS shard_url FROM {TABLE} s \
             WHERE s.key IN (SELECT key FROM selected) ORDER BY s.shard, s.jpg_offset",
            quote(&base)
        ))
        .await?;
    write_frame(manifest, destination, options).await
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
