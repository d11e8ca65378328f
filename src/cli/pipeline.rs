//! The commands that run a pipeline or prepare its bus: `run`, `stage`, `topics`, `seed`,
//! `serve-site`, `validate`.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, bail};

use altflow::app::{self, RunOptions};
use altflow::config::{Pipeline, StageName};

/// `altflow run`.
#[derive(clap::Args)]
pub struct RunArgs {
    /// Pipeline file, e.g. pipelines/local.toml.
    pipeline: PathBuf,
    /// Keep running after the input is exhausted (streaming); stop with Ctrl-C.
    #[arg(long)]
    follow: bool,
    #[command(flatten)]
    redrive: RedriveArgs,
}

/// `altflow stage`.
#[derive(clap::Args)]
pub struct StageArgs {
    /// One of: crawl, extract, filter, fetch, score, dedup, qgen, write, retry, failures.
    name: StageName,
    /// Pipeline file with bus.kind = "kafka".
    #[arg(long)]
    pipeline: PathBuf,
}

/// `altflow topics`.
#[derive(clap::Subcommand)]
pub enum TopicsCommand {
    /// Create every topic the pipeline uses (existing topics are left alone).
    Create {
        /// Pipeline file.
        #[arg(long)]
        pipeline: PathBuf,
    },
}

/// `altflow seed`.
#[derive(clap::Args)]
pub struct SeedArgs {
    /// Pipeline file.
    #[arg(long)]
    pipeline: PathBuf,
    #[command(flatten)]
    redrive: RedriveArgs,
}

/// A command that takes only a pipeline file, by `--pipeline`.
#[derive(clap::Args)]
pub struct PipelineFlag {
    /// Pipeline file.
    #[arg(long)]
    pipeline: PathBuf,
}

/// A command that takes only a pipeline file, as its argument.
#[derive(clap::Args)]
pub struct PipelineArg {
    /// Pipeline file.
    pipeline: PathBuf,
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

/// `altflow run`: every stage in this process, then the funnel.
pub async fn run(args: RunArgs) -> anyhow::Result<()> {
    let pipeline = Pipeline::load(&args.pipeline)?;
    let options = RunOptions {
        follow: args.follow,
        redrive: args.redrive.into_option(),
    };
    let funnel = app::run_all(&pipeline, options).await?;
    println!("{funnel}");
    Ok(())
}

/// `altflow stage`: one stage of a Kafka pipeline.
pub async fn stage(args: StageArgs) -> anyhow::Result<()> {
    let pipeline = Pipeline::load(&args.pipeline)?;
    app::run_one(&pipeline, args.name).await?;
    Ok(())
}

/// `altflow topics create`.
pub async fn topics(command: TopicsCommand) -> anyhow::Result<()> {
    let TopicsCommand::Create { pipeline } = command;
    let pipeline = Pipeline::load(&pipeline)?;
    let (bus, _) = app::open_bus(&pipeline);
    for spec in app::create_topics(bus.as_ref(), &pipeline).await? {
        println!("{} ({} partitions)", spec.name, spec.partitions);
    }
    Ok(())
}

/// `altflow seed`: the seeds (or an earlier run's failures) onto the bus.
pub async fn seed(args: SeedArgs) -> anyhow::Result<()> {
    let pipeline = Pipeline::load(&args.pipeline)?;
    let (bus, _) = app::open_bus(&pipeline);
    let producer = bus.producer()?;
    match args.redrive.into_option() {
        Some(redrive) => {
            let count = app::redrive(producer.as_ref(), &pipeline, &redrive).await?;
            println!("re-published {count} failure(s) to the topics they came from");
        }
        None => {
            let site = app::fixed_site_url(&pipeline);
            let count = app::seed(producer.as_ref(), &pipeline, site.as_deref()).await?;
            println!(
                "published {count} seed(s) to {}",
                pipeline.topic("frontier")
            );
        }
    }
    Ok(())
}

/// `altflow serve-site`: the sample site on its fixed address until stopped.
pub async fn serve_site(args: PipelineFlag) -> anyhow::Result<()> {
    let pipeline = Pipeline::load(&args.pipeline)?;
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
    Ok(())
}

/// `altflow validate`: a pipeline file checked without running it.
pub fn validate(args: PipelineArg) -> anyhow::Result<()> {
    let pipeline = Pipeline::load(&args.pipeline)?;
    let stages: Vec<&str> = pipeline.stages.iter().map(|s| s.as_str()).collect();
    println!(
        "{}: ok ({:?} bus, stages: {}, output: {})",
        args.pipeline.display(),
        pipeline.bus.kind,
        stages.join(" → "),
        pipeline.write.output
    );
    Ok(())
}
