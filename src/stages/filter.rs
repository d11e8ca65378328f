//! The filter stage: the preset's text rules on candidates, before any image is downloaded (saving
//! bandwidth). The rules themselves live in [`crate::filter`].

use std::sync::Arc;

use async_trait::async_trait;

use crate::filter::{Rules, TextFilter};
use crate::record::Candidate;
use crate::stage::{Emitter, Input, Stage, StageError};
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
        for Input { mut record, .. } in batch {
            let decision = self.filter.check(&record.alt);
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
    use crate::reason::Reason;
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
        let mut out = Emitter::new("filter", Arc::from("rejects"), Arc::from("retry"));
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
}
