//! The filter stage: text rules on candidates, before any image is downloaded (saving bandwidth).
//!
//! This issue implements the word-count rule of CC12M (seed 000 §3: alt-text of 3 to 256 words); the
//! full rule set and presets build on the same shape.

use std::sync::Arc;

use async_trait::async_trait;

use crate::config::FilterConfig;
use crate::reason::Reason;
use crate::record::Candidate;
use crate::stage::{Emitter, Input, Stage, StageError};

/// Checks the word count of `text` against `[min, max]`.
pub fn word_count_rule(text: &str, min: usize, max: usize) -> Result<(), Reason> {
    let words = text.split_whitespace().count();
    if words < min {
        Err(Reason::TooFewWords)
    } else if words > max {
        Err(Reason::TooManyWords)
    } else {
        Ok(())
    }
}

/// The filter stage.
pub struct FilterStage {
    config: FilterConfig,
    output: Arc<str>,
}

impl FilterStage {
    /// A filter with the rules of `config`, producing accepted candidates to `output`.
    pub fn new(config: FilterConfig, output: Arc<str>) -> Self {
        Self { config, output }
    }
}

#[async_trait]
impl Stage for FilterStage {
    type Input = Candidate;

    async fn process(
        &mut self,
        batch: Vec<Input<Candidate>>,
        out: &mut Emitter,
    ) -> Result<(), StageError> {
        for Input { record, .. } in batch {
            match word_count_rule(&record.alt, self.config.min_words, self.config.max_words) {
                Ok(()) => out.emit(&self.output, &record.id, &record),
                Err(reason) => out.reject(
                    reason,
                    &record.id,
                    &record.image_url,
                    format!("{} words", record.alt.split_whitespace().count()),
                ),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_count_bounds_are_inclusive() {
        assert_eq!(
            word_count_rule("blue circles", 3, 256),
            Err(Reason::TooFewWords)
        );
        assert_eq!(word_count_rule("a blue circle", 3, 256), Ok(()));
        let long = vec!["word"; 257].join(" ");
        assert_eq!(word_count_rule(&long, 3, 256), Err(Reason::TooManyWords));
        assert_eq!(word_count_rule(&long, 3, 257), Ok(()));
        assert_eq!(word_count_rule("  ", 1, 5), Err(Reason::TooFewWords));
    }
}
