//! The `altflow` command line: parses the arguments, sets up logging and the async runtime, and
//! hands the subcommand to [`cli::dispatch`] (one module per command under `src/cli/`).

mod cli;

use std::io::IsTerminal;

use anyhow::Context;
use clap::Parser;

/// Turn a web crawl into vision-language training data: image–text pairs, filtered and written as
/// WebDataset shards (tar) with Parquet indexes to a directory or object store.
///
/// Start with `altflow run pipelines/local.toml`: it serves a small bundled website on 127.0.0.1,
/// crawls it, and writes shards under ./out. Read them with `altflow inspect out/<shard>.tar`.
#[derive(Parser)]
#[command(name = "altflow", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: cli::Command,
}

fn main() -> anyhow::Result<()> {
    altflow::stage::cpu::keep_freed_buffers();
    let cli = Cli::parse();
    // A progress bar replaces routine log lines on a terminal; elsewhere the log is the progress.
    let quiet_default = cli.command.is_run() && std::io::stderr().is_terminal();
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
    match runtime.block_on(cli::dispatch(cli.command)) {
        // The reader of our output went away (`altflow inspect … | head`): nothing more to say.
        Err(error) if is_broken_pipe(&error) => Ok(()),
        result => result,
    }
}

/// Whether `error` comes from writing to a pipe whose reader has closed it.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
