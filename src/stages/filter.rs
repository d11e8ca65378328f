//! The filter stage: the preset's text rules on candidates, before any image is downloaded (saving
//! bandwidth). The rules themselves live in [`crate::filter`].

use std::sync::Arc;

use async_trait::async_trait;

use crate::filter::{Rules, TextFilter};
use crate::reason::Reason;
use crate::record::Candidate;
use crate::stage::{Emitter, Input, Stage, StageError, isolate};
use crate::stages::host_key;

/// The filter stage.
pub struct FilterStage {
    filter: TextFilter,
    output: Arc<str>,
}

impl FilterStage {
    /// A filter applying `rules`, producing accepted candidates to `output`.
    pub fn new(rules: Rules, output: Arc<str>) -> Self {
        Self {
            filter: TextFilter::new(rules),
            output,
        }
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
        let dominant_only = self.filter.rules().dominant_only;
        for input in batch {
            // A caption the rules panic on is dead-lettered; the filter's state is its sketches.
            let mut decision = match isolate(|| self.filter.check(&input.record.alt)) {
                Ok(decision) => decision,
                Err(panic) => {
                    out.panicked(&input, &panic);
                    continue;
                }
            };
            let mut record = input.record;
            if dominant_only && !record.dominant {
                decision.reasons.push(Reason::NotDominant);
            }
            match decision.reasons.first() {
                None => {
                    if decision.text != record.alt {
                        record.caption = decision.text;
                    }
                    // Keyed by the image's host: one fetch member owns a host's politeness.
                    out.emit(&self.output, &host_key(&record.image_url), &record);
                }
                // One reject per candidate, under the first failed rule; the detail names them all.
                Some(&reason) => {
                    let all: Vec<&str> = decision.reasons.iter().map(|r| r.as_str()).collect();
                    out.reject(
                        reason,
                        &record.id,
                        &record.image_url,
                        format!("{:?} failed {}", record.alt, all.join(", ")),
                    )
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::Preset;
    use crate::record::Record;

    fn input(url: &str, alt: &str) -> Input<Candidate> {
        Input {
            record: Candidate {
                id: crate::record::sample_id(url, alt),
                image_url: url.into(),
                alt: alt.into(),
                ..Default::default()
            },
            topic: Arc::from("candidates"),
            partition: 0,
            offset: 0,
        }
    }

    #[tokio::test]
    async fn accepted_candidates_are_keyed_by_image_host_and_carry_the_caption() {
        let mut stage = FilterStage::new(Rules::of(Preset::Cc12m), Arc::from("accepted"));
        let batch = vec![
            input("https://img.example.com/1.jpg", "a red boat at sea"),
            input(
                "https://img.example.com/2.jpg",
                "Emma Watson on a red carpet",
            ),
            input("https://other.example.org/3.jpg", "a red boat at sea"),
            input("https://other.example.org/4.jpg", "boat"),
        ];
        let mut out = Emitter::new(
            "filter",
            Arc::from("rejects"),
            Arc::from("retry"),
            Arc::from("dead"),
        );
        stage.process(batch, &mut out).await.unwrap();
        let (messages, outputs) = out.take();
        assert_eq!(outputs, 3);
        let keys: Vec<&[u8]> = messages.iter().map(|m| m.key.as_ref()).collect();
        assert_eq!(
            &keys[..3],
            [
                &b"img.example.com"[..],
                b"img.example.com",
                b"other.example.org"
            ]
        );
        let second = Candidate::from_bytes(&messages[1].payload).unwrap();
        assert_eq!(second.caption, "PERSON on a red carpet");
        assert_eq!(second.alt, "Emma Watson on a red carpet");
        let reject = crate::record::Reject::from_bytes(&messages[3].payload).unwrap();
        assert_eq!(reject.reason, Reason::TooFewWords.as_str());
    }

    #[tokio::test]
    async fn lait_keeps_only_dominant_images() {
        let mut stage = FilterStage::new(Rules::of(Preset::Lait), Arc::from("accepted"));
        let mut lead = input("https://img.example.com/lead.jpg", "a red barn in a field");
        lead.record.dominant = true;
        let logo = input("https://img.example.com/logo.png", "the logo of the farm");
        let mut out = Emitter::new(
            "filter",
            Arc::from("rejects"),
            Arc::from("retry"),
            Arc::from("dead"),
        );
        stage.process(vec![lead, logo], &mut out).await.unwrap();
        let (messages, outputs) = out.take();
        assert_eq!(outputs, 1);
        let kept = Candidate::from_bytes(&messages[0].payload).unwrap();
        assert!(kept.image_url.ends_with("lead.jpg"));
        let reject = crate::record::Reject::from_bytes(&messages[1].payload).unwrap();
        assert_eq!(reject.reason, Reason::NotDominant.as_str());
        // The other presets do not ask.
        let mut cc12m = FilterStage::new(Rules::of(Preset::Cc12m), Arc::from("accepted"));
        let logo = input("https://img.example.com/logo.png", "the logo of the farm");
        let mut out = Emitter::new(
            "filter",
            Arc::from("rejects"),
            Arc::from("retry"),
            Arc::from("dead"),
        );
        cc12m.process(vec![logo], &mut out).await.unwrap();
        assert_eq!(out.take().1, 1);
    }
}
