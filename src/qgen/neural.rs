//! Model-backed question generation and answering: a T5 checkpoint in Hugging Face layout
//! ([`super::t5`]) with its own `tokenizer.json`, prompted as the seed's models were fine-tuned
//! (question generation on SQuAD: "answer: A context: C"; question answering: "question: Q
//! context: C").

use std::path::{Path, PathBuf};

use candle_core::Device;

use super::QgenError;
use super::t5::{Generation, T5};
use crate::checkpoint::{self, CheckpointError};

/// A T5 checkpoint and its tokenizer, run on batches of prompts.
pub struct Seq2Seq {
    dir: PathBuf,
    model: T5,
    tokenizer: tokenizers::Tokenizer,
    generation: Generation,
    batch_size: usize,
}

impl Seq2Seq {
    /// Loads `dir` (`config.json`, `model.safetensors`, `tokenizer.json`) on the CPU.
    pub fn load(dir: &Path, generation: Generation, batch_size: usize) -> Result<Self, QgenError> {
        let failed = |source| QgenError::Model {
            dir: dir.to_path_buf(),
            source: Box::new(source),
        };
        let model = T5::load(dir, &Device::Cpu).map_err(failed)?;
        let tokenizer = checkpoint::tokenizer(dir).map_err(failed)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            model,
            tokenizer,
            generation,
            batch_size: batch_size.max(1),
        })
    }

    /// The model's output text for each prompt, in order.
    pub fn run(&self, prompts: &[String]) -> Result<Vec<String>, QgenError> {
        let mut out = Vec::with_capacity(prompts.len());
        let failed = |source| QgenError::Model {
            dir: self.dir.clone(),
            source: Box::new(source),
        };
        let tokenizer_error = |e: tokenizers::Error| {
            failed(CheckpointError::Tokenizer {
                path: self.dir.join("tokenizer.json"),
                message: e.to_string(),
            })
        };
        for chunk in prompts.chunks(self.batch_size) {
            let ids: Vec<Vec<u32>> = chunk
                .iter()
                .map(|p| {
                    self.tokenizer
                        .encode(p.as_str(), true)
                        .map(|e| e.get_ids().to_vec())
                })
                .collect::<Result<_, _>>()
                .map_err(tokenizer_error)?;
            let generated = self
                .model
                .generate(&ids, &self.generation)
                .map_err(failed)?;
            for g in generated {
                out.push(
                    self.tokenizer
                        .decode(&g, true)
                        .map_err(tokenizer_error)?
                        .trim()
                        .to_string(),
                );
            }
        }
        Ok(out)
    }
}
