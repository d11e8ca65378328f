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
use crate::stages::host_key;

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
                // Keyed by the image's host: one fetch member owns a host's politeness.
                Ok(()) => out.emit(&self.output, &host_key(&record.image_url), &record),
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

    #[tokio::test]
    async fn accepted_candidates_are_keyed_by_image_host() {
        let mut stage = FilterStage::new(FilterConfig::default(), Arc::from("accepted"));
        let candidate = |url: &str| Input {
            record: Candidate {
                id: crate::record::sample_id(url, "a red boat at sea"),
                image_url: url.into(),
                alt: "a red boat at sea".into(),
                ..Default::default()
            },
            topic: Arc::from("candidates"),
            partition: 0,
            offset: 0,
        };
        let batch = vec![
            candidate("https://img.example.com/1.jpg"),
            candidate("https://img.example.com/2.jpg"),
            candidate("https://other.example.org/3.jpg"),
        ];
        let mut out = Emitter::new("filter", Arc::from("rejects"), Arc::from("retry"));
        stage.process(batch, &mut out).await.unwrap();
        let (messages, outputs) = out.take();
        assert_eq!(outputs, 3);
        let keys: Vec<&[u8]> = messages.iter().map(|m| m.key.as_ref()).collect();
        assert_eq!(
            keys,
            [
                &b"img.example.com"[..],
                b"img.example.com",
                b"other.example.org"
            ]
        );
    }
}
