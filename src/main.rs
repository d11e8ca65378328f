//! The `altflow` command line.

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};

use altflow::app::{self, RunOptions};
use altflow::config::{Pipeline, StageName};
use altflow::score::relatedness::IdfTable;
use altflow::writer::store::Store;
use altflow::writer::tar;
use object_store::ObjectStoreExt;

/// Turn a web crawl into vision-language training data: image–text pairs, filtered and written as
/// WebDataset shards (tar) with Parquet indexes to a directory or object store.
///
/// Start with `altflow run pipelines/local.toml`: it serves a small bundled website on 127.0.0.1,
/// crawls it, and writes shards under ./out. Read them with `altflow inspect out/<shard>.tar`.
#[derive(Parser)]
#[command(name = "altflow", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run every stage of a pipeline in this process (the embedded bus needs no services).
    ///
    /// With the embedded bus the run ends when all input is processed and prints a funnel: how many
    /// records entered and left each stage, and why the rest were rejected.
    Run {
        /// Pipeline file, e.g. pipelines/local.toml.
        pipeline: PathBuf,
        /// Keep running after the input is exhausted (streaming); stop with Ctrl-C.
        #[arg(long)]
        follow: bool,
        #[command(flatten)]
        redrive: RedriveArgs,
    },
    /// Run one stage of a Kafka pipeline: the unit you deploy and scale (start more copies of the
    /// same stage to split its partitions).
    Stage {
        /// One of: crawl, filter, fetch, score, dedup, qgen, write, retry, failures.
        name: StageName,
        /// Pipeline file with bus.kind = "kafka".
        #[arg(long)]
        pipeline: PathBuf,
    },
    /// Manage the pipeline's topics on its bus.
    Topics {
        #[command(subcommand)]
        command: TopicsCommand,
    },
    /// Publish the pipeline's seed URLs to the frontier topic (a Kafka run's first step).
    Seed {
        /// Pipeline file.
        #[arg(long)]
        pipeline: PathBuf,
        #[command(flatten)]
        redrive: RedriveArgs,
    },
    /// Serve the pipeline's sample site on its fixed address until stopped (for Kafka runs).
    ServeSite {
        /// Pipeline file with a [sample_site] table.
        #[arg(long)]
        pipeline: PathBuf,
    },
    /// Print the samples of a shard: key, caption, image size, metadata.
    Inspect {
        /// Shard URL or path, e.g. out/shard-p0000-o000000000000.tar or s3://bucket/x.tar.
        shard: String,
        /// Print at most this many samples.
        #[arg(long, default_value_t = usize::MAX)]
        limit: usize,
        /// One JSON object per line instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print the image candidates of an HTML file, or of every HTML response and WAT record in a WARC
    /// file, one JSON object per line, as the crawler sees them.
    Extract {
        /// HTML file to read.
        #[arg(
            long,
            conflicts_with = "warc",
            required_unless_present = "warc",
            requires = "base_url"
        )]
        html: Option<PathBuf>,
        /// URL the HTML page was fetched from, to resolve relative links.
        #[arg(long)]
        base_url: Option<url::Url>,
        /// WARC or WAT file (plain or gzip) to read.
        #[arg(long)]
        warc: Option<PathBuf>,
        /// With --warc: print only the number of records of each WARC-Type, as JSON.
        #[arg(long, requires = "warc")]
        counts: bool,
    },
    /// Print the filter presets side by side, with the seed and section each value comes from.
    Presets,
    /// Apply a filter preset to candidates read as JSON lines on stdin (`alt`, and optionally
    /// `image_url`, `page_url`, `width`, `height`, `format`, `dominant`), such as `altflow
    /// extract` prints; print one JSON line per input, in
    /// order: `decision` (accept or reject), `reasons` (every failed rule), `text` (transformed).
    Filter {
        /// Preset: cc3m, cc12m, alt200m or lait (default: the pipeline's, else cc12m).
        #[arg(long)]
        preset: Option<altflow::filter::Preset>,
        /// Pipeline file whose [filter] overrides apply.
        #[arg(long)]
        pipeline: Option<PathBuf>,
    },
    /// Generate visual questions and answers from captions read as JSON lines on stdin (`text`);
    /// print one JSON line per input, in order: `qa`, a list of `question`, `answer`,
    /// `answer_type`, `source` and `f1` (the round trip's token F1).
    Qgen {
        /// Pipeline file whose `[qgen]` table to use.
        #[arg(long)]
        pipeline: Option<PathBuf>,
        /// T5 question-generation checkpoint (Hugging Face layout); rules when absent.
        #[arg(long)]
        qg_model: Option<PathBuf>,
        /// T5 question-answering checkpoint for the round trip; the lexical reader when absent.
        #[arg(long)]
        qa_model: Option<PathBuf>,
    },
    /// Print the SHA-256 and the perceptual hash of image files, as the fetch stage computes them,
    /// one `SHA256 PHASH PATH` line each: the lines of a test-set file for `[dedup] test_sets`.
    Hash {
        /// Image files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Longer side the image is resized to before the perceptual hash (the pipeline's
        /// `fetch.max_side`).
        #[arg(long, default_value_t = 512)]
        max_side: u32,
    },
    /// Build an IDF table (document frequencies over pretraining text) for the relatedness score.
    Idf {
        #[command(subcommand)]
        command: IdfCommand,
    },
    /// Score pairs read as JSON lines on stdin: `text`, `image_path` or `image_url` (for
    /// `clip_similarity` and zero-shot `labels`), and optionally `labels` (object names to use
    /// instead of zero-shot ones). Prints one JSON line per input, in order, with each score whose
    /// model or data is configured: by the pipeline's `[score]` table and these flags.
    Score {
        /// Pipeline file whose `[score]` table (and `[http]`, for image URLs) to use.
        #[arg(long)]
        pipeline: Option<PathBuf>,
        /// CLIP checkpoint directory in Hugging Face layout (gives `clip_similarity`, `labels`).
        #[arg(long)]
        clip_model: Option<PathBuf>,
        /// Downstream texts S, one per line (gives `relatedness`).
        #[arg(long)]
        downstream: Option<PathBuf>,
        /// GloVe vectors: the text format, or a `.npy` matrix with its `*index.parquet`
        /// vocabulary beside it (gives `quality`).
        #[arg(long)]
        glove: Option<PathBuf>,
        /// IDF table written by `altflow idf build`.
        #[arg(long, conflicts_with = "idf_corpus")]
        idf: Option<PathBuf>,
        /// Pretraining text D, one document per line, to count the IDF table from.
        #[arg(long)]
        idf_corpus: Option<PathBuf>,
        /// The open-nsfw ONNX model (gives `nsfw`; ONNX Runtime from ORT_DYLIB_PATH or the
        /// pipeline's `score.onnxruntime`).
        #[arg(long)]
        nsfw_model: Option<PathBuf>,
    },
    /// SQL over every shard index of an output, as one table named `samples` (DataFusion).
    ///
    /// e.g. `altflow query --output out "SELECT count(*), avg(clip_similarity) FROM samples"`.
    /// With `--select DEST` the query names samples by their `key` and DEST receives their full
    /// index rows and each one's `shard_url`: a manifest a trainer reads without copying images;
    /// with `--reshard DEST` the samples themselves are copied into new shards under DEST.
    Query(QueryArgs),
    /// Check a pipeline file without running it; every problem is reported with its key.
    Validate {
        /// Pipeline file.
        pipeline: PathBuf,
    },
}

#[derive(Subcommand)]
enum IdfCommand {
    /// Count document frequencies over a corpus (one document per line) and write the table.
    Build {
        /// The corpus.
        #[arg(long)]
        corpus: PathBuf,
        /// Where the table goes (`#documents N`, then `word<TAB>frequency` lines).
        #[arg(long)]
        out: PathBuf,
        /// Drop words seen in fewer documents (bounds the table).
        #[arg(long, default_value_t = 1)]
        min_df: u64,
    },
}

#[derive(Subcommand)]
enum TopicsCommand {
    /// Create every topic the pipeline uses (existing topics are left alone).
    Create {
        /// Pipeline file.
        #[arg(long)]
        pipeline: PathBuf,
    },
}

fn main() -> anyhow::Result<()> {
    altflow::stage::cpu::keep_freed_buffers();
    let cli = Cli::parse();
    // A progress bar replaces routine log lines on a terminal; elsewhere the log is the progress.
    let quiet_default =
        matches!(cli.command, Command::Run { .. }) && std::io::stderr().is_terminal();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new(if quiet_default { "warn" } else { "info" })
    });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(dispatch(cli.command))
}

/// Re-driving the failures of an earlier run (kept by the `failures` stage).
#[derive(clap::Args, Debug)]
struct RedriveArgs {
    /// Publish the failures an earlier run kept under write.output/failures/ (the newest run's
    /// unless --run names one) instead of the seeds, URL lists and archives.
    #[arg(long)]
    redrive: bool,
    /// With --redrive: the run, by its folder name under failures/.
    #[arg(long, requires = "redrive")]
    run: Option<String>,
    /// With --redrive: only failures with this reason code (repeat for several), e.g. timeout.
    #[arg(long = "reason", requires = "redrive")]
    reasons: Vec<String>,
}

impl RedriveArgs {
    fn into_option(self) -> Option<app::Redrive> {
        self.redrive.then_some(app::Redrive {
            run: self.run,
            reasons: self.reasons,
        })
    }
}

async fn dispatch(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Run {
            pipeline,
            follow,
            redrive,
        } => {
            let pipeline = Pipeline::load(&pipeline)?;
            let options = RunOptions {
                follow,
                redrive: redrive.into_option(),
            };
            let funnel = app::run_all(&pipeline, options).await?;
            println!("{funnel}");
        }
        Command::Stage { name, pipeline } => {
            let pipeline = Pipeline::load(&pipeline)?;
            app::run_one(&pipeline, name).await?;
        }
        Command::Topics {
            command: TopicsCommand::Create { pipeline },
        } => {
            let pipeline = Pipeline::load(&pipeline)?;
            let (bus, _) = app::open_bus(&pipeline);
            for spec in app::create_topics(bus.as_ref(), &pipeline).await? {
                println!("{} ({} partitions)", spec.name, spec.partitions);
            }
        }
        Command::Seed { pipeline, redrive } => {
            let pipeline = Pipeline::load(&pipeline)?;
            let (bus, _) = app::open_bus(&pipeline);
            let producer = bus.producer()?;
            match redrive.into_option() {
                Some(redrive) => {
                    let count = app::redrive(producer.as_ref(), &pipeline, &redrive).await?;
                    println!("re-published {count} failure(s) to the topics they came from");
                }
                None => {
                    let count = app::seed(
                        producer.as_ref(),
                        &pipeline,
                        app::fixed_site_url(&pipeline).as_deref(),
                    )
                    .await?;
                    println!(
                        "published {count} seed(s) to {}",
                        pipeline.topic("frontier")
                    );
                }
            }
        }
        Command::ServeSite { pipeline } => {
            let pipeline = Pipeline::load(&pipeline)?;
            let Some(site) = &pipeline.sample_site else {
                bail!("the pipeline has no [sample_site] table");
            };
            let addr: SocketAddr = altflow::web::serve::serve_dir(site.dir.clone(), site.listen)
                .await
                .with_context(|| format!("serving {} on {}", site.dir.display(), site.listen))?;
            eprintln!(
                "serving {} at http://{addr}/ (Ctrl-C stops)",
                site.dir.display()
            );
            app::shutdown_signal().await;
        }
        Command::Inspect { shard, limit, json } => inspect(&shard, limit, json).await?,
        Command::Extract {
            html,
            base_url,
            warc,
            counts,
        } => match (html, base_url, warc) {
            (Some(html), Some(base_url), _) => {
                let bytes =
                    std::fs::read(&html).with_context(|| format!("reading {}", html.display()))?;
                let page = altflow::web::html::extract(&bytes, &base_url);
                for image in &page.images {
                    print_candidate(
                        &altflow::web::html::candidate(image, &page, &base_url, 1),
                        None,
                    );
                }
            }
            (_, _, Some(warc)) => extract_warc(&warc, counts)?,
            _ => bail!("give --html FILE --base-url URL, or --warc FILE"),
        },
        Command::Presets => print_presets(),
        Command::Filter { preset, pipeline } => filter_stdin(preset, pipeline)?,
        Command::Qgen {
            pipeline,
            qg_model,
            qa_model,
        } => {
            let mut config = match &pipeline {
                Some(path) => Pipeline::load(path)?.qgen,
                None => altflow::config::QgenConfig::default(),
            };
            if qg_model.is_some() {
                config.qg_model = qg_model;
            }
            if qa_model.is_some() {
                config.qa_model = qa_model;
            }
            let mut generator = altflow::qgen::Generator::from_config(&config)?;
            answer_json_lines("text", |text, _| {
                match generator.generate_batch(&[text.to_string()]) {
                    Ok(mut outcomes) => serde_json::json!({"qa": outcomes.remove(0).qa}),
                    Err(e) => serde_json::json!({"error": e.to_string()}),
                }
            })?
        }
        Command::Hash { files, max_side } => {
            for file in files {
                let (sha256, phash) = altflow::stages::dedup::hash_image_file(&file, max_side)
                    .map_err(anyhow::Error::msg)?;
                println!("{sha256} {phash} {}", file.display());
            }
        }
        Command::Idf {
            command:
                IdfCommand::Build {
                    corpus,
                    out,
                    min_df,
                },
        } => {
            let mut table = IdfTable::from_corpus(&corpus)?;
            table.prune(min_df);
            table.save(&out)?;
            println!(
                "{}: {} documents, {} words",
                out.display(),
                table.documents(),
                table.len()
            );
        }
        Command::Score {
            pipeline,
            clip_model,
            downstream,
            glove,
            idf,
            idf_corpus,
            nsfw_model,
        } => {
            let (mut config, http, fetch) = match &pipeline {
                Some(path) => {
                    let p = Pipeline::load(path)?;
                    (p.score, p.http, p.fetch)
                }
                None => Default::default(),
            };
            // Flags override the file; an IDF flag replaces the file's IDF source.
            if idf.is_some() || idf_corpus.is_some() {
                config.idf = idf;
                config.idf_corpus = idf_corpus;
            }
            for (flag, value) in [
                (&mut config.clip_model, clip_model),
                (&mut config.downstream, downstream),
                (&mut config.glove, glove),
                (&mut config.nsfw_model, nsfw_model),
            ] {
                if value.is_some() {
                    *flag = value;
                }
            }
            score_stdin(config, http, fetch.max_image_bytes).await?
        }
        Command::Query(args) => {
            let memory_mb = args.memory_mb;
            query(args).await.map_err(|e| {
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
            })?
        }
        Command::Validate { pipeline: path } => {
            let pipeline = Pipeline::load(&path)?;
            let stages: Vec<&str> = pipeline.stages.iter().map(|s| s.as_str()).collect();
            println!(
                "{}: ok ({:?} bus, stages: {}, output: {})",
                path.display(),
                pipeline.bus.kind,
                stages.join(" → "),
                pipeline.write.output
            );
        }
    }
    Ok(())
}

/// Prints a candidate as one JSON line.
fn print_candidate(c: &altflow::record::Candidate, warc_record: Option<u64>) {
    println!(
        "{}",
        serde_json::json!({
            "id": c.id,
            "image_url": c.image_url,
            "alt": c.alt,
            "title": c.image_title,
            "figcaption": c.figcaption,
            "context": c.context,
            "page_url": c.page_url,
            "page_title": c.page_title,
            "page_language": c.page_language,
            "declared_width": c.declared_width,
            "declared_height": c.declared_height,
            "position": c.position,
            "in_boilerplate": c.in_boilerplate,
            "in_link": c.in_link,
            "dominance": c.dominance,
            "dominant": c.dominant,
            "warc_record": warc_record,
        })
    );
}

/// Candidates (or record counts) of every HTML response and WAT metadata record of a WARC file.
fn extract_warc(path: &std::path::Path, counts_only: bool) -> anyhow::Result<()> {
    let reader = altflow::web::warc::open(path, altflow::sources::archive::MAX_RECORD_BYTES)
        .with_context(|| format!("opening {}", path.display()))?;
    let mut counts: std::collections::BTreeMap<String, u64> = Default::default();
    let mut total = 0u64;
    // Opt-outs are the crawl's business: extraction shows everything there is.
    let mut candidates = altflow::sources::ArchiveCandidates::new(None);
    for (index, record) in reader.enumerate() {
        let record = record.with_context(|| format!("reading {}", path.display()))?;
        total += 1;
        *counts.entry(record.kind()).or_default() += 1;
        if counts_only {
            continue;
        }
        for candidate in candidates.of_record(&record) {
            print_candidate(&candidate, Some(index as u64));
        }
    }
    if counts_only {
        println!("{}", serde_json::json!({"records": total, "types": counts}));
    }
    Ok(())
}

/// The arguments of `altflow query`.
#[derive(clap::Args)]
struct QueryArgs {
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
async fn query(args: QueryArgs) -> anyhow::Result<()> {
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

async fn inspect(shard: &str, limit: usize, json: bool) -> anyhow::Result<()> {
    // Credentials and endpoints come from the environment, as the cloud SDKs read them.
    let (store, path) = Store::open_object(shard, std::iter::empty())?;
    let bytes = store
        .inner
        .get(&path)
        .await
        .with_context(|| format!("reading {shard}"))?
        .bytes()
        .await
        .with_context(|| format!("reading {shard}"))?;
    let members = tar::read_members(&bytes).with_context(|| format!("reading {shard}"))?;
    let mut samples: std::collections::BTreeMap<String, Vec<&tar::Member>> = Default::default();
    let mut order = Vec::new();
    for member in &members {
        let Some((key, _)) = member.name.split_once('.') else {
            continue;
        };
        if !samples.contains_key(key) {
            order.push(key.to_string());
        }
        samples.entry(key.to_string()).or_default().push(member);
    }
    for key in order.iter().take(limit) {
        let parts = &samples[key];
        let find = |ext: &str| {
            parts
                .iter()
                .find(|m| m.name.ends_with(ext))
                .map(|m| &m.data)
        };
        let caption = find(".txt")
            .map(|d| String::from_utf8_lossy(d).into_owned())
            .unwrap_or_default();
        let meta: serde_json::Value = find(".json")
            .and_then(|d| serde_json::from_slice(d).ok())
            .unwrap_or(serde_json::Value::Null);
        let jpg = find(".jpg").map(|d| d.len()).unwrap_or(0);
        if json {
            println!(
                "{}",
                serde_json::json!({"key": key, "caption": caption, "jpg_bytes": jpg, "meta": meta})
            );
        } else {
            println!(
                "{key}  {}x{} jpg {jpg} B  {:?}\n    from {}",
                meta["width"],
                meta["height"],
                caption,
                meta["image_url"].as_str().unwrap_or("?")
            );
        }
    }
    if !json {
        println!("{} sample(s) in {shard}", order.len());
    }
    Ok(())
}

fn print_presets() {
    use altflow::filter::{Preset, Rules, presets::SOURCES};
    let tables: Vec<toml::Table> = Preset::ALL
        .iter()
        .map(|p| toml::Table::try_from(Rules::of(*p)).expect("rules serialise"))
        .collect();
    let show = |v: &toml::Value| match v {
        toml::Value::Array(a) if a.len() > 3 => format!("[{} entries]", a.len()),
        toml::Value::String(s) if s.is_empty() => "\"\"".to_string(),
        other => other.to_string(),
    };
    println!(
        "{:<24}{:<22}{:<22}{:<22}{:<22}",
        "rule", "cc3m", "cc12m", "alt200m", "lait"
    );
    for (field, _) in SOURCES {
        print!("{field:<24}");
        for table in &tables {
            print!("{:<22}", show(&table[*field]));
        }
        println!();
    }
    println!("\nwhere each value comes from (seed file number and section; altflow: our choice):");
    for (field, sources) in SOURCES {
        println!("{field}");
        for (preset, source) in Preset::ALL.iter().zip(sources) {
            println!("  {:<8} {source}", preset.as_str());
        }
    }
}

/// `altflow score`: one JSON line out per JSON line in.
async fn score_stdin(
    config: altflow::config::ScoreConfig,
    http: altflow::config::HttpConfig,
    max_image_bytes: usize,
) -> anyhow::Result<()> {
    use altflow::score::{Item, Scorer};
    if config.clip_model.is_none()
        && config.glove.is_none()
        && config.downstream.is_none()
        && config.nsfw_model.is_none()
    {
        bail!(
            "nothing to score: give --clip-model, --glove, --nsfw-model or --downstream (with \
             --idf or --idf-corpus), or a --pipeline whose [score] table names them"
        );
    }
    let scorer = Scorer::from_config(&config)?;
    let web = altflow::web::Web::new(&http, "score")?;
    let runtime = tokio::runtime::Handle::current();
    let image = |value: &serde_json::Value| -> Result<Option<image::RgbImage>, String> {
        let bytes = if let Some(path) = value.get("image_path").and_then(|v| v.as_str()) {
            std::fs::read(path).map_err(|e| format!("image_path {path}: {e}"))?
        } else if let Some(url) = value.get("image_url").and_then(|v| v.as_str()) {
            // The crawler's HTTP rules (address guard, robots, size limit) hold here too.
            let fetched =
                tokio::task::block_in_place(|| runtime.block_on(web.get(url, max_image_bytes)));
            fetched
                .map_err(|e| format!("image_url {url}: {} {}", e.reason, e.detail))?
                .body
        } else {
            return Ok(None);
        };
        // As the fetch stage prepares images: upright by EXIF, transparency on white.
        let format = image::guess_format(&bytes).map_err(|e| format!("image: {e}"))?;
        // The image crate's default allocation limit: a hostile file is refused, not decoded.
        let decoded = altflow::imaging::Decoder::new(&bytes, format)
            .and_then(|decoder| decoder.decode_opaque(512 << 20))
            .map_err(|e| format!("image: {e}"))?;
        Ok(Some(image::DynamicImage::ImageRgba8(decoded).into_rgb8()))
    };
    answer_json_lines("text", |text, value| {
        let image = match image(value) {
            Ok(image) => image,
            Err(error) => return serde_json::json!({ "error": error }),
        };
        let labels: Vec<String> = value["labels"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|l| l.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let item = Item {
            text,
            image: image.as_ref(),
            labels: &labels,
        };
        match scorer.score(&[item]) {
            Err(error) => serde_json::json!({ "error": error.to_string() }),
            Ok(mut scores) => {
                let scores = scores.pop().expect("one item, one result");
                let mut out = serde_json::Map::new();
                for (name, value) in scores.values {
                    out.insert(name.into(), value.into());
                }
                if scorer.clip().is_some() || !labels.is_empty() {
                    out.insert("labels".into(), scores.labels.into());
                }
                serde_json::Value::Object(out)
            }
        }
    })
}

/// Reads JSON objects from stdin, one per line (blank lines skipped), and prints one JSON line per
/// input in order: `answer(field, object)` for an object with the string `field`, else the line
/// number and what is wrong with it, so that one bad line loses nothing else.
fn answer_json_lines(
    field: &str,
    mut answer: impl FnMut(&str, &serde_json::Value) -> serde_json::Value,
) -> anyhow::Result<()> {
    use std::io::{BufRead, Write};
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (number, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("reading stdin")?;
        if line.trim().is_empty() {
            continue;
        }
        let output = match serde_json::from_str::<serde_json::Value>(&line) {
            Err(e) => serde_json::json!({"line": number + 1, "error": e.to_string()}),
            Ok(value) => match value.get(field).and_then(|v| v.as_str()) {
                Some(text) => answer(text, &value),
                None => serde_json::json!({
                    "line": number + 1,
                    "error": format!("no string field `{field}`"),
                }),
            },
        };
        writeln!(out, "{output}")?;
    }
    out.flush()?;
    Ok(())
}

fn filter_stdin(
    preset: Option<altflow::filter::Preset>,
    pipeline: Option<PathBuf>,
) -> anyhow::Result<()> {
    let mut config = match &pipeline {
        Some(path) => Pipeline::load(path)?.filter,
        None => altflow::config::FilterConfig::default(),
    };
    if let Some(preset) = preset {
        config.preset = preset;
    }
    let rules = config
        .rules()
        .map_err(|e| anyhow::anyhow!("[filter]: {e}"))?;
    let image_rules = rules.image();
    let dominant_only = rules.dominant_only;
    let mut filter = altflow::filter::TextFilter::new(rules);
    answer_json_lines("alt", |alt, input| {
        let decision = filter.check(alt);
        let mut reasons: Vec<&str> = decision.reasons.iter().map(|r| r.as_str()).collect();
        // Dominance as `altflow extract` prints it; an input without it is not held against.
        let dominant = input.get("dominant").and_then(|d| d.as_bool());
        if dominant_only && dominant == Some(false) {
            reasons.push(altflow::reason::Reason::NotDominant.as_str());
        }
        let size = |key: &str| input.get(key).and_then(|v| v.as_u64()).map(|v| v as u32);
        if let (Some(width), Some(height)) = (size("width"), size("height")) {
            let format = input.get("format").and_then(|f| f.as_str()).unwrap_or("");
            let format = if format == "jpg" { "jpeg" } else { format };
            let rules = altflow::filter::ImageRules {
                // An unknown format is not held against the image.
                formats: if format.is_empty() {
                    Vec::new()
                } else {
                    image_rules.formats.clone()
                },
                ..image_rules.clone()
            };
            if let Some((reason, _)) = rules.check(format, width, height) {
                reasons.push(reason.as_str());
            }
        }
        let decision_name = if reasons.is_empty() {
            "accept"
        } else {
            "reject"
        };
        serde_json::json!({"decision": decision_name, "reasons": reasons, "text": decision.text})
    })
}
