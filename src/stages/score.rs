//! The scoring stage: attaches every configured score (see [`crate::score`]) and the image's labels
//! to each pair, then applies the selection of `[score.select]`. A pair failing a selection is
//! rejected with reason `low_score`, naming the score, its value and the threshold.
//!
//! Batching where batching pays: the stage is [`Pipelined`], so pairs arrive one by one across polls,
//! and a batcher gathers them into model batches of `score.batch_size`, or fewer once the first has
//! waited `score.max_wait`. Two tasks form a pipeline: one gathers a batch and decodes its JPEGs
//! while the other runs the models on the batch before it, so the models do not wait for decoding.

use std::sync::Arc;
use std::time::Duration;

use image::RgbImage;
use tokio::sync::{mpsc, oneshot};

use crate::config::ScoreConfig;
use crate::reason::Reason;
use crate::record::{Candidate, Scored};
use crate::score::select::Selector;
use crate::score::{Item, ScoreError, Scorer, Scores};
use crate::stage::{Emitter, Input, Pipelined, StageError, Work};
use crate::stages::pair_key;

/// The scoring stage.
pub struct ScoreStage {
    scorer: Arc<Scorer>,
    nsfw_threshold: f32,
    selectors: Vec<(String, Selector)>,
    output: Arc<str>,
    by_content: bool,
    batch_size: usize,
    max_wait: Duration,
    /// Where pairs go to be batched; the batcher starts with the first pair.
    batcher: Option<mpsc::UnboundedSender<Waiting>>,
}

impl ScoreStage {
    /// Loads the models and data `config` names; fails when a required or selected score cannot be
    /// computed.
    pub fn from_config(config: &ScoreConfig, output: Arc<str>) -> Result<Self, ScoreError> {
        Ok(Self::new(
            Arc::new(Scorer::from_config(config)?),
            config,
            output,
        ))
    }

    /// A stage around an already built scorer.
    pub fn new(scorer: Arc<Scorer>, config: &ScoreConfig, output: Arc<str>) -> Self {
        Self {
            scorer,
            nsfw_threshold: config.nsfw_threshold,
            selectors: config
                .select
                .iter()
                .map(|(name, select)| (name.clone(), Selector::new(select)))
                .collect(),
            output,
            by_content: false,
            batch_size: config.batch_size.max(1),
            max_wait: config.max_wait,
            batcher: None,
        }
    }

    /// Keys outputs by the SHA-256 of the original image (as the fetch stage does before a dedup
    /// stage) instead of the sample id.
    pub fn keyed_by_content(mut self, yes: bool) -> Self {
        self.by_content = yes;
        self
    }

    fn batcher(&mut self) -> &mpsc::UnboundedSender<Waiting> {
        let (scorer, batch_size, max_wait) = (self.scorer.clone(), self.batch_size, self.max_wait);
        self.batcher.get_or_insert_with(|| {
            let (pairs, incoming) = mpsc::unbounded_channel();
            // One batch decoded while the one before it is scored; no more waits in memory.
            let (decoded, ready) = mpsc::channel(1);
            tokio::spawn(gather(incoming, decoded, batch_size, max_wait));
            tokio::spawn(run_models(scorer, ready));
            pairs
        })
    }
}

/// A pair waiting for its scores, and where to send them.
type Waiting = (Scored, oneshot::Sender<Done>);

/// A pair with what scoring made of it, or the error of a batch the models failed on as a whole.
pub struct Done {
    record: Scored,
    outcome: Result<Outcome, String>,
}

/// A gathered batch, decoded.
struct Decoded {
    records: Vec<Scored>,
    images: Vec<Result<RgbImage, String>>,
    replies: Vec<oneshot::Sender<Done>>,
}

/// Gathers pairs into batches of `batch_size`, or fewer once the first has waited `max_wait`,
/// decodes each and hands it on. Ends when the stage is dropped.
async fn gather(
    mut incoming: mpsc::UnboundedReceiver<Waiting>,
    decoded: mpsc::Sender<Decoded>,
    batch_size: usize,
    max_wait: Duration,
) {
    while let Some(first) = incoming.recv().await {
        let deadline = tokio::time::Instant::now() + max_wait;
        let mut batch = vec![first];
        while batch.len() < batch_size {
            tokio::select! {
                next = incoming.recv() => match next {
                    Some(next) => batch.push(next),
                    None => break,
                },
                _ = tokio::time::sleep_until(deadline) => break,
            }
        }
        let (records, replies): (Vec<Scored>, Vec<_>) = batch.into_iter().unzip();
        let records = Arc::new(records);
        let images = {
            let records = records.clone();
            crate::stage::cpu::run(move || decode(&records)).await
        };
        let records = Arc::try_unwrap(records).unwrap_or_else(|shared| (*shared).clone());
        let images = images.unwrap_or_else(|panic| {
            let error = format!("decoder panicked: {panic}");
            records.iter().map(|_| Err(error.clone())).collect()
        });
        let batch = Decoded {
            records,
            images,
            replies,
        };
        if decoded.send(batch).await.is_err() {
            return;
        }
    }
}

/// Runs the models on each decoded batch and answers every pair of it.
async fn run_models(scorer: Arc<Scorer>, mut ready: mpsc::Receiver<Decoded>) {
    while let Some(batch) = ready.recv().await {
        let shared = Arc::new((batch.records, batch.images));
        let outcomes = isolate(shared.0.len(), |range| {
            let (scorer, shared) = (scorer.clone(), shared.clone());
            async move {
                crate::stage::cpu::run(move || {
                    let (records, images) = &*shared;
                    score_decoded(&scorer, &records[range.clone()], &images[range])
                        .map_err(|e| e.to_string())
                })
                .await
                .map_err(|panic| format!("scoring panicked: {panic}"))?
            }
        })
        .await;
        // Every blocking job has returned (or unwound), so the records are this task's again.
        let (records, _) = Arc::try_unwrap(shared).unwrap_or_else(|shared| (*shared).clone());
        let outcomes: Vec<Result<Outcome, String>> = match outcomes {
            Ok(outcomes) => outcomes.into_iter().map(Ok).collect(),
            Err(error) => records.iter().map(|_| Err(error.clone())).collect(),
        };
        for ((record, outcome), reply) in records.into_iter().zip(outcomes).zip(batch.replies) {
            // A pair whose partition was revoked meanwhile has no one waiting: nothing to do.
            let _ = reply.send(Done { record, outcome });
        }
    }
}

/// Decodes the pairs' training JPEGs: per pair its pixels, or why not.
fn decode(records: &[Scored]) -> Vec<Result<RgbImage, String>> {
    records
        .iter()
        .map(|r| {
            let jpeg = r.image.as_ref().map(|i| i.jpeg.as_slice()).unwrap_or(&[]);
            image::load_from_memory_with_format(jpeg, image::ImageFormat::Jpeg)
                .map(|i| i.to_rgb8())
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// Scores decoded pairs (on a blocking thread): per pair its scores, or why its JPEG could not be
/// decoded. `Err` when a model failed on the batch.
fn score_decoded(
    scorer: &Scorer,
    records: &[Scored],
    images: &[Result<RgbImage, String>],
) -> Result<Vec<Result<Scores, String>>, ScoreError> {
    let items: Vec<Item<'_>> = records
        .iter()
        .zip(images)
        .filter_map(|(record, image)| {
            Some(Item {
                text: record.candidate.as_ref().map_or("", Candidate::text),
                image: Some(image.as_ref().ok()?),
                labels: &record.labels,
            })
        })
        .collect();
    let mut scores = scorer.score(&items)?.into_iter();
    Ok(images
        .iter()
        .map(|image| match image {
            Ok(_) => Ok(scores.next().expect("one result per decoded image")),
            Err(error) => Err(error.clone()),
        })
        .collect())
}

/// What scoring made of one pair.
#[derive(Debug)]
enum Outcome {
    Scored(Scores),
    /// Its JPEG could not be decoded.
    Undecodable(String),
    /// A scorer failed on it alone (an error or a panic).
    Failed(String),
}

/// Per pair of a batch: its scores, or why its JPEG could not be decoded; `Err` when the batch
/// as a whole failed.
type BatchResult = Result<Vec<Result<Scores, String>>, String>;

/// Scores pairs `0..n` with `run` (which scores a range of them), all at once. Should the batch
/// fail, one pair may be what a model fails on (a panic in a kernel, a tokenizer error), so the
/// pairs are tried one by one and only those that fail alone are `Failed`; when every one fails
/// alone, the cause is not the pairs (a lost device, a broken model) and the batch's error is
/// returned, for the stage to stop and the batch to be replayed.
async fn isolate<F, Fut>(n: usize, run: F) -> Result<Vec<Outcome>, String>
where
    F: Fn(std::ops::Range<usize>) -> Fut,
    Fut: std::future::Future<Output = BatchResult>,
{
    let from = |result: Result<Scores, String>| match result {
        Ok(scores) => Outcome::Scored(scores),
        Err(error) => Outcome::Undecodable(error),
    };
    let error = match run(0..n).await {
        Ok(results) => return Ok(results.into_iter().map(from).collect()),
        Err(error) => error,
    };
    let mut outcomes = Vec::with_capacity(n);
    for i in 0..n {
        outcomes.push(match run(i..i + 1).await {
            Ok(mut results) if results.len() == 1 => from(results.remove(0)),
            Ok(results) => Outcome::Failed(format!("{} results for one pair", results.len())),
            Err(error) => Outcome::Failed(error),
        });
    }
    if n > 0 && outcomes.iter().all(|o| matches!(o, Outcome::Failed(_))) {
        return Err(error);
    }
    tracing::warn!(%error, "a batch failed; its pairs were scored one by one");
    Ok(outcomes)
}

impl Pipelined for ScoreStage {
    type Input = Scored;
    type Done = Done;

    fn admit(&mut self, input: Input<Scored>, _out: &mut Emitter) -> Option<Work<Done>> {
        let (reply, scored) = oneshot::channel();
        // Should the batcher have stopped (a panic), the reply is dropped with the pair, and the
        // work below fails the stage.
        let _ = self.batcher().send((input.record, reply));
        Some(Box::pin(async move {
            scored.await.unwrap_or_else(|_| Done {
                record: Scored::default(),
                outcome: Err("the scoring batcher stopped".into()),
            })
        }))
    }

    fn complete(&mut self, done: Done, out: &mut Emitter) -> Result<(), StageError> {
        let Done {
            mut record,
            outcome,
        } = done;
        let (id, url) = record.id_and_url();
        match outcome.map_err(StageError::failed)? {
            Outcome::Scored(s) => {
                for (name, value) in s.values {
                    record.scores.insert(name.to_string(), value);
                }
                record.labels = s.labels;
                record.embedding = s.embedding;
            }
            Outcome::Undecodable(error) => {
                out.reject(
                    Reason::DecodeError,
                    &id,
                    &url,
                    format!("training JPEG: {error}"),
                );
                return Ok(());
            }
            Outcome::Failed(error) => {
                out.reject(Reason::ScoreError, &id, &url, error);
                return Ok(());
            }
        }
        // Every selector sees every pair's score (its window is the stream's, not the survivors').
        let mut failed = None;
        for (name, selector) in &mut self.selectors {
            let value = record.scores.get(name.as_str()).copied();
            if let (Some(Some(f)), None) = (selector.judge(&[value]).pop(), &failed) {
                failed = Some(match value {
                    Some(v) => format!("{name} {v:.4} < {:.4} ({})", f.threshold, f.rule),
                    None => format!("{name} missing"),
                });
            }
        }
        if let Some(&p) = record.scores.get("nsfw")
            && p > self.nsfw_threshold
        {
            out.reject(
                Reason::Nsfw,
                &id,
                &url,
                format!("nsfw {p:.4} > {}", self.nsfw_threshold),
            );
            return Ok(());
        }
        match failed {
            Some(detail) => out.reject(Reason::LowScore, &id, &url, detail),
            None => {
                let sha256 = record.image.as_ref().map_or(&[][..], |i| &i.sha256);
                let key = pair_key(&id, sha256, self.by_content);
                out.emit(&self.output, &key, &record);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SelectConfig;
    use crate::record::{Candidate, Image, Record, Reject};

    fn jpeg() -> Vec<u8> {
        crate::imaging::encode_jpeg(
            &RgbImage::from_pixel(16, 16, image::Rgb([90, 120, 200])),
            90,
        )
        .unwrap()
    }

    fn pair(alt: &str, labels: &[&str], jpeg: Vec<u8>) -> Input<Scored> {
        Input {
            record: Scored {
                candidate: Some(Candidate {
                    id: crate::record::sample_id("http://a/x.jpg", alt),
                    image_url: "http://a/x.jpg".into(),
                    alt: alt.into(),
                    ..Default::default()
                }),
                image: Some(Image {
                    jpeg,
                    sha256: vec![3; 32],
                    ..Default::default()
                }),
                labels: labels.iter().map(|l| l.to_string()).collect(),
                ..Default::default()
            },
            topic: Arc::from("pairs"),
            partition: 0,
            offset: 0,
        }
    }

    #[tokio::test]
    async fn scores_selects_and_rejects_undecodable_images() {
        let dir = tempfile::tempdir().unwrap();
        let glove = dir.path().join("glove.txt");
        std::fs::write(&glove, "dog 1 0\ncat 0 1\npuppy 0.9 0.1\n").unwrap();
        let mut config = ScoreConfig {
            glove: Some(glove),
            ..Default::default()
        };
        config.select.insert(
            "quality".into(),
            SelectConfig {
                min: Some(0.5),
                top_percent: None,
                window: 10,
            },
        );
        let mut stage = ScoreStage::from_config(&config, Arc::from("scored"))
            .unwrap()
            .keyed_by_content(true);
        let batch = vec![
            pair("a puppy on the grass", &["dog"], jpeg()),
            pair("a cat on a mat", &["dog"], jpeg()),
            pair("a dog", &["dog"], b"not a jpeg".to_vec()),
        ];
        let mut out = Emitter::new(
            "score",
            Arc::from("rejects"),
            Arc::from("retry"),
            Arc::from("dead"),
        );
        // The three pairs are admitted at once and gathered into one batch (of the default 32).
        let works: Vec<_> = batch
            .into_iter()
            .map(|input| stage.admit(input, &mut out).unwrap())
            .collect();
        for done in futures::future::join_all(works).await {
            stage.complete(done, &mut out).unwrap();
        }
        let (messages, outputs) = out.take();
        assert_eq!(outputs, 1);
        let (kept, rejects): (Vec<_>, Vec<_>) =
            messages.iter().partition(|m| m.topic.as_ref() == "scored");
        let kept = Scored::from_bytes(&kept[0].payload).unwrap();
        assert!((kept.scores["quality"] - 0.9939).abs() < 1e-3, "{kept:?}");
        assert_eq!(kept.labels, ["dog"]);
        // Keyed by the image's SHA-256, for the dedup stage after it.
        let key = &messages
            .iter()
            .find(|m| m.topic.as_ref() == "scored")
            .unwrap()
            .key;
        assert_eq!(key.as_ref(), hex::encode([3u8; 32]).as_bytes());
        let rejects: Vec<Reject> = rejects
            .iter()
            .map(|m| Reject::from_bytes(&m.payload).unwrap())
            .collect();
        let reasons: Vec<&str> = rejects.iter().map(|r| r.reason.as_str()).collect();
        assert_eq!(
            reasons,
            ["low_score", "decode_error"],
            "in the pairs' order"
        );
        assert!(
            rejects[0]
                .detail
                .starts_with("quality 0.0000 < 0.5000 (min)")
        );
    }

    #[tokio::test]
    async fn a_batch_goes_when_full_or_when_its_first_pair_has_waited() {
        let dir = tempfile::tempdir().unwrap();
        let glove = dir.path().join("glove.txt");
        std::fs::write(&glove, "dog 1 0\ncat 0 1\n").unwrap();
        let config = ScoreConfig {
            glove: Some(glove),
            batch_size: 2,
            max_wait: Duration::from_secs(1),
            ..Default::default()
        };
        let mut stage = ScoreStage::from_config(&config, Arc::from("scored")).unwrap();
        let mut out = Emitter::new(
            "score",
            Arc::from("rejects"),
            Arc::from("retry"),
            Arc::from("dead"),
        );
        let mut admit = |alt: &str| stage.admit(pair(alt, &["dog"], jpeg()), &mut out).unwrap();
        // Two pairs fill a batch: scored without waiting.
        let started = tokio::time::Instant::now();
        let full = futures::future::join(admit("a dog"), admit("a cat")).await;
        assert!(full.0.outcome.is_ok() && full.1.outcome.is_ok());
        assert!(
            started.elapsed() < Duration::from_millis(300),
            "{:?}",
            started.elapsed()
        );
        // A lone pair waits for company, then goes alone.
        let started = tokio::time::Instant::now();
        let alone = admit("a dog").await;
        assert!(alone.outcome.is_ok());
        assert!(
            started.elapsed() >= Duration::from_millis(400),
            "{:?}",
            started.elapsed()
        );
    }

    /// A stand-in for the scorer: pair 2 makes any batch holding it fail, pair 3's JPEG is bad.
    async fn fake(range: std::ops::Range<usize>) -> BatchResult {
        if range.contains(&2) {
            return Err("kernel panicked".into());
        }
        Ok(range
            .map(|i| {
                if i == 3 {
                    Err("bad JPEG".into())
                } else {
                    let mut scores = Scores::default();
                    scores.values.insert("quality", i as f32);
                    Ok(scores)
                }
            })
            .collect())
    }

    #[tokio::test]
    async fn a_pair_a_model_fails_on_is_rejected_alone() {
        let outcomes = isolate(5, fake).await.unwrap();
        let kinds: Vec<String> = outcomes
            .iter()
            .map(|o| match o {
                Outcome::Scored(s) => format!("scored {}", s.values["quality"]),
                Outcome::Undecodable(e) => format!("undecodable {e}"),
                Outcome::Failed(e) => format!("failed {e}"),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "scored 0",
                "scored 1",
                "failed kernel panicked",
                "undecodable bad JPEG",
                "scored 4"
            ]
        );
        // A batch without the bad pair is scored at once.
        assert!(matches!(
            isolate(2, fake).await.unwrap()[1],
            Outcome::Scored(_)
        ));
        // When every pair fails alone the model is at fault: the batch's error, for a replay.
        let broken =
            |_: std::ops::Range<usize>| async { Err::<Vec<_>, _>("device lost".to_string()) };
        assert_eq!(isolate(3, broken).await.unwrap_err(), "device lost");
    }

    #[test]
    fn selecting_on_a_score_that_is_not_computed_fails_at_start() {
        let mut config = ScoreConfig::default();
        config.select.insert(
            "clip_similarity".into(),
            SelectConfig {
                min: Some(0.28),
                top_percent: None,
                window: 10,
            },
        );
        let error = ScoreStage::from_config(&config, Arc::from("scored"))
            .err()
            .unwrap()
            .to_string();
        assert!(
            error.contains("score.select.clip_similarity") && error.contains("clip_model"),
            "{error}"
        );
    }
}
