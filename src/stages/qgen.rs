//! The question-generation stage: visual questions and answers from each sample's caption (VQ2A,
//! seed 002), written into the sample for the writer's `KEY.qa.json` and the index. The work is
//! in [`crate::qgen`].

use std::sync::Arc;

use async_trait::async_trait;

use crate::metrics;
use crate::qgen::caption::NotDescription;
use crate::qgen::{AnswerType, Generator};
use crate::record::Sample;
use crate::stage::{Emitter, Input, Stage, StageError, isolate_batch};

/// The qgen stage.
pub struct QgenStage {
    generator: Generator,
    output: Arc<str>,
}

impl QgenStage {
    /// A stage writing questions with `generator`, producing samples to `output`.
    pub fn new(generator: Generator, output: Arc<str>) -> Self {
        Self { generator, output }
    }
}

#[async_trait]
impl Stage for QgenStage {
    type Input = Sample;

    async fn process(
        &mut self,
        batch: Vec<Input<Sample>>,
        out: &mut Emitter,
    ) -> Result<(), StageError> {
        let captions: Vec<String> = batch
            .iter()
            .map(|i| i.record.caption().to_string())
            .collect();
        // A caption whose generation panics is dead-lettered, the others of its batch go on; the
        // generator's state is its reservoir of zero-count questions.
        let outcomes = isolate_batch(&captions, |captions| {
            self.generator.generate_batch(captions)
        })
        .map_err(StageError::failed)?;
        let mut by_type = [0u64; AnswerType::ALL.len()];
        let (mut round_trip, mut vocabulary, mut over_limit) = (0, 0, 0);
        let mut not_described = [0u64; NotDescription::ALL.len()];
        for (input, outcome) in batch.into_iter().zip(outcomes) {
            let outcome = match outcome {
                Ok(outcome) => outcome,
                Err(panic) => {
                    out.panicked(&input, &panic);
                    continue;
                }
            };
            let mut record = input.record;
            for qa in &outcome.qa {
                if let Some(t) = AnswerType::from_name(&qa.answer_type) {
                    by_type[t as usize] += 1;
                }
            }
            round_trip += outcome.round_trip_failed as u64;
            vocabulary += outcome.off_vocabulary as u64;
            over_limit += outcome.over_limit as u64;
            if let Some(why) = outcome.not_description {
                not_described[why as usize] += 1;
            }
            record.qa = outcome.qa;
            // A caption without questions still makes an image–text pair: it goes on, with none.
            let id = record.id().to_string();
            out.emit(&self.output, &id, &record);
        }
        let kept: Vec<(&str, u64)> = AnswerType::ALL
            .iter()
            .zip(by_type)
            .map(|(t, n)| (t.as_str(), n))
            .collect();
        metrics::questions(
            &kept,
            &[
                ("round_trip", round_trip),
                ("vocabulary", vocabulary),
                ("over_limit", over_limit),
            ],
        );
        let not_described: Vec<(&'static str, u64)> = NotDescription::ALL
            .iter()
            .zip(not_described)
            .map(|(why, n)| (why.as_str(), n))
            .collect();
        metrics::not_descriptions(&not_described);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qgen::Settings;
    use crate::record::{Candidate, Record};

    #[tokio::test]
    async fn samples_carry_their_questions() {
        let mut stage = QgenStage::new(Generator::new(Settings::default()), Arc::from("samples"));
        let record = Sample {
            candidate: Some(Candidate {
                id: "abc".into(),
                alt: "Emma Watson riding a horse".into(),
                caption: "PERSON riding a horse on a beach".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let batch = vec![Input {
            record,
            topic: Arc::from("unique"),
            partition: 0,
            offset: 3,
        }];
        let mut out = Emitter::new(
            "qgen",
            Arc::from("rejects"),
            Arc::from("retry"),
            Arc::from("dead"),
        );
        stage.process(batch, &mut out).await.unwrap();
        let (messages, outputs) = out.take();
        assert_eq!(outputs, 1);
        assert_eq!(messages[0].key.as_ref(), b"abc");
        let sample = Sample::from_bytes(&messages[0].payload).unwrap();
        let who = sample
            .qa
            .iter()
            .find(|q| q.answer_type == "person")
            .unwrap();
        assert_eq!(
            (who.question.as_str(), who.answer.as_str()),
            ("Who is riding a horse on a beach?", "PERSON")
        );
        assert!(sample.qa.len() >= 3, "{:#?}", sample.qa);
    }
}
