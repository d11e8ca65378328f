//! What the candle models (CLIP, T5) share about a checkpoint in Hugging Face layout: reading its
//! JSON files, mapping `model.safetensors`, loading `tokenizer.json`, and one error type that names
//! the file or the tensor at fault.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device};
use candle_nn::VarBuilder;

/// Why a checkpoint could not be loaded or run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckpointError {
    /// A file of the checkpoint could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A configuration file is malformed or asks for something the implementation lacks.
    #[error("{path}: {message}")]
    Config {
        /// The file (or the pipeline key).
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The tokenizer could not be loaded or failed.
    #[error("tokenizer {path}: {message}")]
    Tokenizer {
        /// `tokenizer.json`.
        path: PathBuf,
        /// The tokenizers crate's message.
        message: String,
    },
    /// A tensor operation failed (a weight missing or of the wrong shape, a device error).
    #[error("{context}: {source}")]
    Candle {
        /// What was being done.
        context: String,
        /// candle's error.
        source: candle_core::Error,
    },
}

/// Names what a failed candle operation was doing.
pub(crate) trait Context<T> {
    /// The error as [`CheckpointError::Candle`] with `what` as its context.
    fn context(self, what: impl FnOnce() -> String) -> Result<T, CheckpointError>;
}

impl<T> Context<T> for candle_core::Result<T> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T, CheckpointError> {
        self.map_err(|source| CheckpointError::Candle {
            context: what(),
            source,
        })
    }
}

/// A JSON file of the checkpoint, parsed.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, CheckpointError> {
    let text = std::fs::read_to_string(path).map_err(|source| CheckpointError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| CheckpointError::Config {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// `dir/model.safetensors` memory-mapped as float32 weights on `device`, and its path.
pub fn map_weights(
    dir: &Path,
    device: &Device,
) -> Result<(VarBuilder<'static>, PathBuf), CheckpointError> {
    let weights = dir.join("model.safetensors");
    if !weights.exists() {
        return Err(CheckpointError::Read {
            path: weights,
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no model.safetensors (PyTorch .bin checkpoints are not read; convert them)",
            ),
        });
    }
    // SAFETY: the file is mapped read-only; altflow never writes it, and a checkpoint changed by
    // another process while mapped is outside what any loader can guard against.
    let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[&weights], DType::F32, device) }
        .context(|| format!("mapping {}", weights.display()))?;
    Ok((vb, weights))
}

/// `dir/tokenizer.json`.
pub fn tokenizer(dir: &Path) -> Result<tokenizers::Tokenizer, CheckpointError> {
    let path = dir.join("tokenizer.json");
    tokenizers::Tokenizer::from_file(&path).map_err(|e| CheckpointError::Tokenizer {
        path,
        message: e.to_string(),
    })
}
