//! The scores of seed 001 and of the CLIP-style filters, and the [`Scorer`] that computes every
//! configured one for a batch of pairs (the scoring stage and `altflow score` both use it).
//!
//! - [`clip`]: CLIP image–text cosine similarity (candle), and zero-shot object labels.
//! - [`glove`]: GloVe vectors and the quality score (eq. 3) from the image's object labels.
//! - [`relatedness`]: TF-IDF relatedness to a downstream text set (eq. 1–2).
//! - [`nsfw`]: the open_nsfw probability (ONNX Runtime).
//! - [`select`]: thresholds and top-N % selection over a sliding window.

pub mod clip;
pub mod glove;
pub mod nsfw;
pub mod relatedness;
pub mod select;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use candle_core::Tensor;
use image::RgbImage;

use crate::config::ScoreConfig;
use clip::{Clip, ClipError};
use glove::{Glove, GloveError};
use nsfw::{Nsfw, NsfwError};
use relatedness::{IdfError, IdfTable, Relatedness};

pub use crate::config::SCORES;

/// The 80 COCO object categories, the default zero-shot label vocabulary.
pub const COCO_LABELS: [&str; 80] = [
    "person",
    "bicycle",
    "car",
    "motorcycle",
    "airplane",
    "bus",
    "train",
    "truck",
    "boat",
    "traffic light",
    "fire hydrant",
    "stop sign",
    "parking meter",
    "bench",
    "bird",
    "cat",
    "dog",
    "horse",
    "sheep",
    "cow",
    "elephant",
    "bear",
    "zebra",
    "giraffe",
    "backpack",
    "umbrella",
    "handbag",
    "tie",
    "suitcase",
    "frisbee",
    "skis",
    "snowboard",
    "sports ball",
    "kite",
    "baseball bat",
    "baseball glove",
    "skateboard",
    "surfboard",
    "tennis racket",
    "bottle",
    "wine glass",
    "cup",
    "fork",
    "knife",
    "spoon",
    "bowl",
    "banana",
    "apple",
    "sandwich",
    "orange",
    "broccoli",
    "carrot",
    "hot dog",
    "pizza",
    "donut",
    "cake",
    "chair",
    "couch",
    "potted plant",
    "bed",
    "dining table",
    "toilet",
    "tv",
    "laptop",
    "mouse",
    "remote",
    "keyboard",
    "cell phone",
    "microwave",
    "oven",
    "toaster",
    "sink",
    "refrigerator",
    "book",
    "clock",
    "vase",
    "scissors",
    "teddy bear",
    "hair drier",
    "toothbrush",
];

/// Why a scorer could not be built or failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScoreError {
    /// The CLIP checkpoint.
    #[error("score.clip_model: {0}")]
    Clip(#[from] ClipError),
    /// The GloVe vectors.
    #[error("score.glove: {0}")]
    Glove(#[from] GloveError),
    /// The IDF table, its corpus or the downstream texts.
    #[error("score.downstream/idf: {0}")]
    Idf(#[from] IdfError),
    /// The NSFW model or its runtime.
    #[error("score.nsfw_model: {0}")]
    Nsfw(#[from] NsfwError),
    /// The label vocabulary file.
    #[error("score.labels: {path}: {message}")]
    Labels {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A score the pipeline requires or selects on cannot be computed.
    #[error("{key}: score `{score}` is not computed: {why}")]
    Unavailable {
        /// The configuration key that asks for it.
        key: String,
        /// The score.
        score: String,
        /// What it would need.
        why: &'static str,
    },
}

impl From<ScoreError> for crate::stage::StageError {
    fn from(error: ScoreError) -> Self {
        crate::stage::StageError::failed(error)
    }
}

/// What one pair gives the scorer.
#[derive(Clone, Copy, Debug)]
pub struct Item<'a> {
    /// The caption.
    pub text: &'a str,
    /// The image, if there is one (a text-only item gets no CLIP similarity).
    pub image: Option<&'a RgbImage>,
    /// Object labels already known (an external detector's); zero-shot labels when empty.
    pub labels: &'a [String],
}

/// The scores of one pair.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scores {
    /// By name (see [`SCORES`]); only computed scores are present.
    pub values: BTreeMap<&'static str, f32>,
    /// The labels quality was computed from: the item's, or zero-shot ones.
    pub labels: Vec<String>,
    /// The image's normalised CLIP embedding, when asked to keep it.
    pub embedding: Vec<f32>,
}

/// CLIP with the text embeddings of the label vocabulary, computed once.
struct ZeroShot {
    labels: Vec<String>,
    /// (labels × projection), normalised.
    embeddings: Tensor,
}

/// Computes every configured score for batches of pairs.
pub struct Scorer {
    clip: Option<(Clip, ZeroShot)>,
    glove: Option<Glove>,
    relatedness: Option<Relatedness>,
    nsfw: Option<Nsfw>,
    config: ScoreConfig,
}

/// Reads a label vocabulary: one name per line, `#` comments and blank lines skipped.
pub fn read_labels(path: &Path) -> Result<Vec<String>, ScoreError> {
    let text = std::fs::read_to_string(path).map_err(|e| ScoreError::Labels {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let labels: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    if labels.is_empty() {
        return Err(ScoreError::Labels {
            path: path.to_path_buf(),
            message: "no labels in the file".into(),
        });
    }
    Ok(labels)
}

/// Why the score `name` is not computed under `config`, or `None` when it is.
pub fn missing(config: &ScoreConfig, name: &str) -> Option<&'static str> {
    match name {
        "clip_similarity" if config.clip_model.is_none() => Some("no `score.clip_model`"),
        "quality" if config.glove.is_none() => Some("no `score.glove`"),
        "relatedness" if config.downstream.is_none() => {
            Some("no `score.downstream` (with `score.idf` or `score.idf_corpus`)")
        }
        "nsfw" if config.nsfw_model.is_none() => Some("no `score.nsfw_model`"),
        _ => None,
    }
}

impl Scorer {
    /// Loads every model and data file `config` names. Scores whose model or data is absent are
    /// left out (logged once), unless `require` or `select` names them: then this fails.
    pub fn from_config(config: &ScoreConfig) -> Result<Self, ScoreError> {
        // What is computed follows from what is configured: refuse before loading any model.
        for (key, name) in config
            .require
            .iter()
            .map(|n| ("score.require".to_string(), n))
            .chain(
                config
                    .select
                    .keys()
                    .map(|n| (format!("score.select.{n}"), n)),
            )
        {
            if let Some(why) = missing(config, name) {
                return Err(ScoreError::Unavailable {
                    key,
                    score: name.clone(),
                    why,
                });
            }
        }
        for name in SCORES {
            if let Some(why) = missing(config, name) {
                tracing::warn!(score = name, "not computed: {why}");
            }
        }
        let clip = match &config.clip_model {
            None => None,
            Some(dir) => {
                let device = clip::device(&config.device)?;
                let model = Clip::load(dir, &device)?;
                let labels = match &config.labels {
                    Some(path) => read_labels(path)?,
                    None => COCO_LABELS.iter().map(|l| l.to_string()).collect(),
                };
                let prompts: Vec<String> = labels
                    .iter()
                    .map(|l| config.label_prompt.replace("{}", l))
                    .collect();
                let prompts: Vec<&str> = prompts.iter().map(String::as_str).collect();
                let embeddings = model.embed_texts(&prompts)?;
                Some((model, ZeroShot { labels, embeddings }))
            }
        };
        let glove = config.glove.as_deref().map(Glove::load).transpose()?;
        let relatedness = match &config.downstream {
            None => None,
            Some(downstream) => {
                let table = match (&config.idf, &config.idf_corpus) {
                    (Some(path), _) => IdfTable::load(path)?,
                    (None, Some(corpus)) => IdfTable::from_corpus(corpus)?,
                    (None, None) => {
                        return Err(ScoreError::Unavailable {
                            key: "score.downstream".into(),
                            score: "relatedness".into(),
                            why: "it needs `score.idf` or `score.idf_corpus`",
                        });
                    }
                };
                Some(Relatedness::from_file(table, downstream)?)
            }
        };
        let nsfw = config
            .nsfw_model
            .as_deref()
            .map(|model| Nsfw::load(model, config.onnxruntime.as_deref()))
            .transpose()?;
        Ok(Self {
            clip,
            glove,
            relatedness,
            nsfw,
            config: config.clone(),
        })
    }

    /// The CLIP model, if one is configured.
    pub fn clip(&self) -> Option<&Clip> {
        self.clip.as_ref().map(|(model, _)| model)
    }

    /// Scores `items`, the image models in batches of `score.batch_size`.
    pub fn score(&self, items: &[Item<'_>]) -> Result<Vec<Scores>, ScoreError> {
        let mut out = vec![Scores::default(); items.len()];
        for (item, scores) in items.iter().zip(&mut out) {
            scores.labels = item.labels.to_vec();
        }
        let with_image: Vec<usize> = (0..items.len())
            .filter(|&i| items[i].image.is_some())
            .collect();
        for chunk in with_image.chunks(self.config.batch_size) {
            let images: Vec<&RgbImage> = chunk.iter().filter_map(|&i| items[i].image).collect();
            if let Some(nsfw) = &self.nsfw {
                for (&i, p) in chunk.iter().zip(nsfw.probabilities(&images)?) {
                    out[i].values.insert("nsfw", p);
                }
            }
            let Some((model, zero_shot)) = &self.clip else {
                continue;
            };
            let texts: Vec<&str> = chunk.iter().map(|&i| items[i].text).collect();
            let image_embeddings = model.embed_images(&images)?;
            let text_embeddings = model.embed_texts(&texts)?;
            let similarity = clip::rowwise_dot(&image_embeddings, &text_embeddings)?;
            let labels = self.zero_shot(model, zero_shot, &image_embeddings)?;
            let mut rows = if self.config.keep_embeddings {
                image_embeddings
                    .to_vec2::<f32>()
                    .map_err(|source| ClipError::Candle {
                        context: "reading embeddings".into(),
                        source,
                    })?
            } else {
                Vec::new()
            }
            .into_iter();
            for ((&i, similarity), labels) in chunk.iter().zip(similarity).zip(labels) {
                out[i].values.insert("clip_similarity", similarity);
                if out[i].labels.is_empty() {
                    out[i].labels = labels;
                }
                out[i].embedding = rows.next().unwrap_or_default();
            }
        }
        for (item, scores) in items.iter().zip(&mut out) {
            // Without zero-shot labels and none in the record, the image's objects are unknown:
            // no quality rather than a quality of 0.
            if let Some(glove) = &self.glove
                && (self.clip.is_some() || !scores.labels.is_empty())
            {
                let labels: Vec<&str> = scores.labels.iter().map(String::as_str).collect();
                scores.values.insert(
                    "quality",
                    glove.quality(&labels, item.text, self.config.quality_k),
                );
            }
            if let Some(relatedness) = &self.relatedness {
                scores
                    .values
                    .insert("relatedness", relatedness.score(item.text));
            }
        }
        Ok(out)
    }

    /// The labels whose zero-shot probability (softmax of the scaled similarities over the whole
    /// vocabulary, as CLIP classifies) is at least `label_min_probability`, best first, at most
    /// `label_top_k`.
    fn zero_shot(
        &self,
        model: &Clip,
        zero_shot: &ZeroShot,
        images: &Tensor,
    ) -> Result<Vec<Vec<String>>, ScoreError> {
        let run = || -> candle_core::Result<Vec<Vec<f32>>> {
            let logits = (images.matmul(&zero_shot.embeddings.t()?)? * model.logit_scale() as f64)?;
            candle_nn::ops::softmax_last_dim(&logits)?.to_vec2::<f32>()
        };
        let probabilities = run().map_err(|source| ClipError::Candle {
            context: "zero-shot labels".into(),
            source,
        })?;
        Ok(probabilities
            .into_iter()
            .map(|p| {
                let mut ranked: Vec<(usize, f32)> = p.into_iter().enumerate().collect();
                ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
                ranked
                    .into_iter()
                    .take(self.config.label_top_k)
                    .filter(|&(_, p)| p >= self.config.label_min_probability)
                    .map(|(i, _)| zero_shot.labels[i].clone())
                    .collect()
            })
            .collect())
    }
}
