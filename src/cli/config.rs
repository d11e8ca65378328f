//! `altflow config reference`: the configuration reference, generated from the code.

use std::path::PathBuf;

use anyhow::{Context, bail};

use altflow::config::reference;

/// `altflow config`.
#[derive(clap::Subcommand)]
pub enum ConfigCommand {
    /// Print the reference of every pipeline key (type, allowed values, default, meaning) as
    /// Markdown, generated from the config structs' doc comments and defaults.
    Reference {
        /// Replace the generated part of this page (between its markers) instead of printing,
        /// e.g. docs/configuration.md.
        #[arg(long)]
        write: Option<PathBuf>,
    },
}

/// Runs `altflow config …`.
pub fn config(command: ConfigCommand) -> anyhow::Result<()> {
    let ConfigCommand::Reference { write } = command;
    let generated = reference::reference();
    let Some(path) = write else {
        print!("{generated}");
        return Ok(());
    };
    let page =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let Some(updated) = reference::splice(&page, &generated) else {
        bail!(
            "{} has no generated part: put the lines\n{}\n{}\nwhere the reference goes",
            path.display(),
            reference::BEGIN,
            reference::END
        );
    };
    std::fs::write(&path, updated).with_context(|| format!("writing {}", path.display()))?;
    eprintln!("{}: reference updated", path.display());
    Ok(())
}
