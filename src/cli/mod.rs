//! The `altflow` subcommands, one module per concern; [`dispatch`] runs one.

mod config;
mod inspect;
mod pipeline;
#[cfg(feature = "sql")]
mod query;
mod score;
mod text;

use anyhow::Context;

/// The subcommands.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Run every stage of a pipeline in this process (the embedded bus needs no services).
    ///
    /// With the embedded bus the run ends when all input is processed and prints a funnel: how many
    /// records entered and left each stage, and why the rest were rejected.
    Run(pipeline::RunArgs),
    /// Run one stage of a Kafka pipeline: the unit you deploy and scale (start more copies of the
    /// same stage to split its partitions).
    Stage(pipeline::StageArgs),
    /// Manage the pipeline's topics on its bus.
    Topics {
        #[command(subcommand)]
        command: pipeline::TopicsCommand,
    },
    /// Publish the pipeline's seed URLs to the frontier topic (a Kafka run's first step).
    Seed(pipeline::SeedArgs),
    /// Serve the pipeline's sample site on its fixed address until stopped (for Kafka runs).
    ServeSite(pipeline::PipelineFlag),
    /// Print the samples of a shard: key, caption, image size, metadata.
    Inspect(inspect::InspectArgs),
    /// Print the image candidates of an HTML file, or of every HTML response and WAT record in a WARC
    /// file, one JSON object per line, as the crawler sees them.
    Extract(inspect::ExtractArgs),
    /// Print the filter presets side by side, with the seed and section each value comes from.
    Presets,
    /// Apply a filter preset to candidates read as JSON lines on stdin (`alt`, and optionally
    /// `image_url`, `page_url`, `width`, `height`, `format`, `dominant`), such as `altflow
    /// extract` prints; print one JSON line per input, in
    /// order: `decision` (accept or reject), `reasons` (every failed rule), `text` (transformed).
    Filter(text::FilterArgs),
    /// Generate visual questions and answers from captions read as JSON lines on stdin (`text`);
    /// print one JSON line per input, in order: `qa`, a list of `question`, `answer`,
    /// `answer_type`, `source` and `f1` (the round trip's token F1), and `not_description`
    /// (headline, question, call_to_action, nothing_visible, interface or unlikely) for a caption
    /// that describes no picture.
    Qgen(text::QgenArgs),
    /// Print the SHA-256 and the perceptual hash of image files, as the fetch stage computes them,
    /// one `SHA256 PHASH PATH` line each: the lines of a test-set file for `[dedup] test_sets`.
    Hash(score::HashArgs),
    /// Build an IDF table (document frequencies over pretraining text) for the relatedness score.
    Idf {
        #[command(subcommand)]
        command: score::IdfCommand,
    },
    /// Score pairs read as JSON lines on stdin: `text`, `image_path` or `image_url` (for
    /// `clip_similarity` and zero-shot `labels`), and optionally `labels` (object names to use
    /// instead of zero-shot ones). Prints one JSON line per input, in order, with each score whose
    /// model or data is configured: by the pipeline's `[score]` table and these flags.
    Score(score::ScoreArgs),
    /// SQL over every shard index of an output, as one table named `samples` (DataFusion).
    ///
    /// e.g. `altflow query --output out "SELECT count(*), avg(clip_similarity) FROM samples"`.
    /// With `--select DEST` the query names samples by their `key` and DEST receives their full
    /// index rows and each one's `shard_url`: a manifest a trainer reads without copying images;
    /// with `--reshard DEST` the samples themselves are copied into new shards under DEST.
    #[cfg(feature = "sql")]
    Query(query::QueryArgs),
    /// Check a pipeline file without running it; every problem is reported with its key.
    Validate(pipeline::PipelineArg),
    /// The configuration reference: every key of a pipeline file.
    Config {
        #[command(subcommand)]
        command: config::ConfigCommand,
    },
}

impl Command {
    /// Whether this command runs a whole pipeline here (its progress is drawn on a terminal).
    pub fn is_run(&self) -> bool {
        matches!(self, Command::Run(_))
    }
}

/// Runs `command`.
pub async fn dispatch(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Run(args) => pipeline::run(args).await,
        Command::Stage(args) => pipeline::stage(args).await,
        Command::Topics { command } => pipeline::topics(command).await,
        Command::Seed(args) => pipeline::seed(args).await,
        Command::ServeSite(args) => pipeline::serve_site(args).await,
        Command::Validate(args) => pipeline::validate(args),
        Command::Inspect(args) => inspect::inspect(args).await,
        Command::Extract(args) => inspect::extract(args),
        Command::Presets => {
            text::presets();
            Ok(())
        }
        Command::Filter(args) => text::filter(args),
        Command::Qgen(args) => text::qgen(args),
        Command::Hash(args) => score::hash(args),
        Command::Idf { command } => score::idf(command),
        Command::Score(args) => score::score(args).await,
        #[cfg(feature = "sql")]
        Command::Query(args) => query::query(args).await,
        Command::Config { command } => config::config(command),
    }
}

/// Reads JSON objects from stdin, one per line (blank lines skipped), and prints one JSON line per
/// input in order: `answer(field, object)` for an object with the string `field`, else the line
/// number and what is wrong with it, so that one bad line loses nothing else.
pub(crate) fn answer_json_lines(
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
