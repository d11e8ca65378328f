//! `altflow query`: SQL over an output's shard indexes (DataFusion), manifests and reshards.

use std::path::PathBuf;

use anyhow::{Context, bail};

use altflow::config::Pipeline;

/// `altflow query`, with DataFusion's out-of-memory error explained in terms of the flag that
/// sets the budget.
pub async fn query(args: QueryArgs) -> anyhow::Result<()> {
    let memory_mb = args.memory_mb;
    run_query(args).await.map_err(|e| {
        // DataFusion's message names the operator, not the flag that sets its budget.
        let out_of_memory = e
            .downcast_ref::<altflow::query::QueryError>()
            .is_some_and(altflow::query::QueryError::is_out_of_memory);
        if out_of_memory {
            e.context(format!(
                "the query needs more memory than --memory-mb {memory_mb} lets it hold \
                 and cannot spill what it holds: give it more (0: unbounded)"
            ))
        } else {
            e
        }
    })
}

/// The arguments of `altflow query`.
#[derive(clap::Args)]
pub struct QueryArgs {
    /// The SQL; the table is `samples`, with the columns of the Parquet index, and the view
    /// `texts` (`text`, `images`: distinct images per text).
    sql: String,
    /// The output to read: a directory or an `s3://`, `gs://`, `az://` URL (credentials and
    /// endpoint from the environment: AWS_*, GOOGLE_*, AZURE_*).
    #[arg(
        long,
        required_unless_present = "pipeline",
        conflicts_with = "pipeline"
    )]
    output: Option<String>,
    /// Read the output of this pipeline file (`write.output`, with `write.store_options`).
    #[arg(long)]
    pipeline: Option<PathBuf>,
    /// How rows are printed; `parquet` writes a file and needs `--to`.
    #[arg(long, value_enum, default_value_t = altflow::query::Format::Table)]
    format: altflow::query::Format,
    /// Write the rows here instead of printing them: a file, or with `--format parquet` also an
    /// object store URL.
    #[arg(long)]
    to: Option<String>,
    /// Write a manifest of the samples whose keys the query returns to this path or URL
    /// (Parquet: their index rows and `shard_url`).
    #[arg(long, conflicts_with_all = ["to", "format"])]
    select: Option<String>,
    /// Copy the samples whose keys the query returns, images and all, into new shards (tars
    /// and indexes) under this directory or URL: a subset that is an output of its own.
    #[arg(long, conflicts_with_all = ["to", "format", "select"])]
    reshard: Option<String>,
    /// With --reshard: samples per new shard.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    shard_rows: u32,
    /// Leave out of `samples` every sample whose text (lower case, white space collapsed) came
    /// with more than this many distinct images anywhere in the output: seed 003's shared-text
    /// rule counted exactly, as a second pass (`all_samples` keeps every row; the view `texts`
    /// has each text's image count).
    #[arg(long)]
    max_images_per_text: Option<u32>,
    /// Memory the query's operators may hold, in MiB (0: unbounded). Past it, sorts and
    /// aggregations spill to disk; a query whose operator cannot spill (a hash join's build
    /// side, `array_agg`) fails with "Resources exhausted" and may be given more.
    #[arg(long, default_value_t = 2048)]
    memory_mb: usize,
    /// Where spill files go (default: the system's temporary directory).
    #[arg(long)]
    spill_dir: Option<std::path::PathBuf>,
}

/// `altflow query`.
async fn run_query(args: QueryArgs) -> anyhow::Result<()> {
    let QueryArgs {
        sql,
        output,
        pipeline,
        format,
        to,
        select,
        reshard,
        shard_rows,
        max_images_per_text,
        memory_mb,
        spill_dir,
    } = args;
    use altflow::query::{self, Format};
    let (output, options) = match (output, pipeline) {
        (Some(output), _) => (output, Default::default()),
        (None, Some(path)) => {
            let pipeline = Pipeline::load(&path)?;
            (pipeline.write.output, pipeline.write.store_options)
        }
        (None, None) => bail!("give --output DIR|URL or --pipeline FILE"),
    };
    let store = query::open(&output, &options)?;
    let limits = query::Limits {
        memory: (memory_mb > 0).then_some(memory_mb << 20),
        spill_dir,
    };
    let ctx = query::session(&store, &limits).await?;
    if let Some(max_images) = max_images_per_text {
        query::drop_shared_texts(&ctx, max_images).await?;
    }
    let started = std::time::Instant::now();
    if let Some(destination) = reshard {
        let rows = query::reshard(
            &ctx,
            &store,
            &sql,
            &destination,
            &options,
            shard_rows as usize,
        )
        .await?;
        eprintln!(
            "{rows} sample(s) copied to {destination} in {:.2?}",
            started.elapsed()
        );
        return Ok(());
    }
    let (rows, destination) = match (select, to, format) {
        (Some(destination), _, _) => (
            query::select(&ctx, &store, &sql, &destination, &options).await?,
            destination,
        ),
        (None, Some(destination), Format::Parquet) => (
            query::write_parquet(&ctx, &sql, &destination, &options).await?,
            destination,
        ),
        (None, None, Format::Parquet) => bail!("--format parquet writes a file: give --to PATH"),
        (None, Some(destination), format) => {
            let mut file = std::io::BufWriter::new(
                std::fs::File::create(&destination)
                    .with_context(|| format!("creating {destination}"))?,
            );
            let rows = query::print(&ctx, &sql, format, &mut file).await?;
            std::io::Write::flush(&mut file)?;
            (rows, destination)
        }
        (None, None, format) => {
            let mut stdout = std::io::stdout().lock();
            query::print(&ctx, &sql, format, &mut stdout).await?;
            return Ok(());
        }
    };
    eprintln!(
        "{rows} row(s) written to {destination} in {:.2?}",
        started.elapsed()
    );
    Ok(())
}
