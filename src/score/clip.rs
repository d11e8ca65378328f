//! CLIP image–text similarity with candle: a checkpoint in Hugging Face layout (`config.json`,
//! `model.safetensors`, `tokenizer.json`, `preprocessor_config.json`), as OpenAI's checkpoints are
//! published and OpenCLIP's ViTs are converted.
//!
//! The model is written here from the architecture (Radford et al. 2021, and the HF layout's
//! parameter names): pre-norm transformer blocks for both towers, a causal text transformer pooled
//! at the end-of-text token, a ViT pooled at its class token, and linear projections without bias.
//! Preprocessing follows the checkpoint's own `preprocessor_config.json` (shortest side resized with
//! Pillow-style bicubic, centre crop, mean/std normalisation), and the tokenizer is the checkpoint's
//! own `tokenizer.json` (CLIP's BPE) through the `tokenizers` crate.
//!
//! Checked against transformers on tiny random-weight checkpoints (`tests/clip.rs`,
//! `scripts/make_clip_fixtures.py`).

use std::path::{Path, PathBuf};

use candle_core::{D, DType, Device, IndexOp, Module, Tensor};
use candle_nn::{Conv2d, Conv2dConfig, Embedding, LayerNorm, Linear, VarBuilder};
use image::RgbImage;
use serde::Deserialize;

use crate::checkpoint::{self, CheckpointError, Context, read_json};

/// Why a CLIP checkpoint could not be loaded or run.
pub type ClipError = CheckpointError;

/// `config.json`: the two towers and the projection.
#[derive(Debug, Deserialize)]
struct Config {
    text_config: TowerConfig,
    vision_config: TowerConfig,
    #[serde(default = "default_projection")]
    projection_dim: usize,
}

fn default_projection() -> usize {
    512
}

/// The fields of a tower's configuration this implementation reads; defaults are transformers'.
#[derive(Debug, Deserialize)]
struct TowerConfig {
    hidden_size: usize,
    intermediate_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    #[serde(default = "default_act")]
    hidden_act: String,
    #[serde(default = "default_eps")]
    layer_norm_eps: f64,
    // Text tower only.
    #[serde(default = "default_vocabulary")]
    vocab_size: usize,
    #[serde(default = "default_positions")]
    max_position_embeddings: usize,
    #[serde(default = "default_eos")]
    eos_token_id: u32,
    // Vision tower only.
    #[serde(default = "default_image_size")]
    image_size: usize,
    #[serde(default = "default_patch_size")]
    patch_size: usize,
}

fn default_act() -> String {
    "quick_gelu".into()
}
fn default_eps() -> f64 {
    1e-5
}
fn default_vocabulary() -> usize {
    49408
}
fn default_positions() -> usize {
    77
}
fn default_eos() -> u32 {
    2
}
fn default_image_size() -> usize {
    224
}
fn default_patch_size() -> usize {
    32
}

/// The activation of the MLPs.
#[derive(Clone, Copy, Debug)]
enum Activation {
    /// x·σ(1.702x), OpenAI's checkpoints.
    QuickGelu,
    /// The exact (erf) GELU, OpenCLIP's.
    Gelu,
    /// The tanh approximation of GELU.
    GeluTanh,
}

impl Activation {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "quick_gelu" => Some(Self::QuickGelu),
            "gelu" => Some(Self::Gelu),
            "gelu_new" | "gelu_pytorch_tanh" => Some(Self::GeluTanh),
            _ => None,
        }
    }

    fn apply(self, x: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            Self::QuickGelu => x * candle_nn::ops::sigmoid(&(x * 1.702)?)?,
            Self::Gelu => x.gelu_erf(),
            Self::GeluTanh => x.gelu(),
        }
    }
}

/// Multi-head self-attention.
struct Attention {
    q: Linear,
    k: Linear,
    v: Linear,
    out: Linear,
    heads: usize,
    scale: f64,
}

impl Attention {
    fn load(vb: VarBuilder, dim: usize, heads: usize) -> candle_core::Result<Self> {
        Ok(Self {
            q: candle_nn::linear(dim, dim, vb.pp("q_proj"))?,
            k: candle_nn::linear(dim, dim, vb.pp("k_proj"))?,
            v: candle_nn::linear(dim, dim, vb.pp("v_proj"))?,
            out: candle_nn::linear(dim, dim, vb.pp("out_proj"))?,
            heads,
            scale: ((dim / heads) as f64).powf(-0.5),
        })
    }

    /// `mask`, added to the scores, is (n, n) with −∞ where a position may not look.
    fn forward(&self, x: &Tensor, mask: Option<&Tensor>) -> candle_core::Result<Tensor> {
        let (b, n, c) = x.dims3()?;
        let d = c / self.heads;
        let split = |t: Tensor| {
            t.reshape((b, n, self.heads, d))?
                .transpose(1, 2)?
                .contiguous()
        };
        let q = split((self.q.forward(x)? * self.scale)?)?;
        let k = split(self.k.forward(x)?)?;
        let v = split(self.v.forward(x)?)?;
        let mut scores = q.matmul(&k.t()?)?;
        if let Some(mask) = mask {
            scores = scores.broadcast_add(mask)?;
        }
        let weights = candle_nn::ops::softmax_last_dim(&scores)?;
        let context = weights.matmul(&v)?.transpose(1, 2)?.reshape((b, n, c))?;
        self.out.forward(&context)
    }
}

/// A pre-norm transformer block.
struct Block {
    norm1: LayerNorm,
    attention: Attention,
    norm2: LayerNorm,
    fc1: Linear,
    fc2: Linear,
    act: Activation,
}

impl Block {
    fn load(vb: VarBuilder, c: &TowerConfig, act: Activation) -> candle_core::Result<Self> {
        let dim = c.hidden_size;
        Ok(Self {
            norm1: candle_nn::layer_norm(dim, c.layer_norm_eps, vb.pp("layer_norm1"))?,
            attention: Attention::load(vb.pp("self_attn"), dim, c.num_attention_heads)?,
            norm2: candle_nn::layer_norm(dim, c.layer_norm_eps, vb.pp("layer_norm2"))?,
            fc1: candle_nn::linear(dim, c.intermediate_size, vb.pp("mlp.fc1"))?,
            fc2: candle_nn::linear(c.intermediate_size, dim, vb.pp("mlp.fc2"))?,
            act,
        })
    }

    fn forward(&self, x: &Tensor, mask: Option<&Tensor>) -> candle_core::Result<Tensor> {
        let x = (x + self.attention.forward(&self.norm1.forward(x)?, mask)?)?;
        let h = self
            .act
            .apply(&self.fc1.forward(&self.norm2.forward(&x)?)?)?;
        x + self.fc2.forward(&h)?
    }
}

fn encoder(vb: VarBuilder, c: &TowerConfig, act: Activation) -> candle_core::Result<Vec<Block>> {
    (0..c.num_hidden_layers)
        .map(|i| Block::load(vb.pp(format!("encoder.layers.{i}")), c, act))
        .collect()
}

struct TextTower {
    tokens: Embedding,
    positions: Tensor,
    blocks: Vec<Block>,
    final_norm: LayerNorm,
    projection: Linear,
    max_positions: usize,
    eos: u32,
}

struct VisionTower {
    patches: Conv2d,
    class: Tensor,
    positions: Tensor,
    pre_norm: LayerNorm,
    blocks: Vec<Block>,
    post_norm: LayerNorm,
    projection: Linear,
    image_size: usize,
}

/// The checkpoint's `preprocessor_config.json`, as far as CLIP's processors use it.
#[derive(Debug, Deserialize)]
struct Preprocessor {
    #[serde(default = "yes")]
    do_resize: bool,
    size: Option<Size>,
    #[serde(default = "yes")]
    do_center_crop: bool,
    crop_size: Option<Size>,
    #[serde(default = "yes")]
    do_rescale: bool,
    #[serde(default = "default_rescale")]
    rescale_factor: f32,
    #[serde(default = "yes")]
    do_normalize: bool,
    image_mean: Option<[f32; 3]>,
    image_std: Option<[f32; 3]>,
    /// Pillow's resampling filter number: 2 bilinear, 3 bicubic.
    #[serde(default = "default_resample")]
    resample: u8,
}

fn yes() -> bool {
    true
}
fn default_rescale() -> f32 {
    1.0 / 255.0
}
fn default_resample() -> u8 {
    3
}

/// A size in a processor config: a number, `{shortest_edge}` or `{height, width}`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Size {
    Square(u32),
    Shortest { shortest_edge: u32 },
    Exact { height: u32, width: u32 },
}

/// The preprocessing a checkpoint asks for, resolved.
#[derive(Clone, Debug)]
struct Preprocess {
    /// Shortest side after resizing, or an exact (width, height); `None`: no resize.
    resize: Option<Resize>,
    /// (width, height) of the centre crop; `None`: no crop.
    crop: Option<(u32, u32)>,
    filter: fast_image_resize::FilterType,
    scale: f32,
    mean: [f32; 3],
    std: [f32; 3],
}

#[derive(Clone, Copy, Debug)]
enum Resize {
    Shortest(u32),
    Exact(u32, u32),
}

/// OpenAI's CLIP normalisation, transformers' default for CLIP processors.
const CLIP_MEAN: [f32; 3] = [0.481_454_66, 0.457_827_5, 0.408_210_73];
const CLIP_STD: [f32; 3] = [0.268_629_54, 0.261_302_6, 0.275_777_1];

impl Preprocess {
    fn from_config(p: Preprocessor, path: &Path) -> Result<Self, ClipError> {
        let bad = |message: String| ClipError::Config {
            path: path.to_path_buf(),
            message,
        };
        let filter = match p.resample {
            2 => fast_image_resize::FilterType::Bilinear,
            // Pillow's bicubic is the a = −0.5 cubic, which is Catmull-Rom.
            3 => fast_image_resize::FilterType::CatmullRom,
            1 => fast_image_resize::FilterType::Lanczos3,
            other => {
                return Err(bad(format!(
                    "resample {other} is not supported (1, 2 or 3)"
                )));
            }
        };
        let resize = match (p.do_resize, p.size) {
            (false, _) => None,
            (true, Some(Size::Shortest { shortest_edge })) => Some(Resize::Shortest(shortest_edge)),
            (true, Some(Size::Square(side))) => Some(Resize::Shortest(side)),
            (true, Some(Size::Exact { height, width })) => Some(Resize::Exact(width, height)),
            (true, None) => Some(Resize::Shortest(224)),
        };
        let crop = match (p.do_center_crop, p.crop_size) {
            (false, _) => None,
            (true, Some(Size::Square(side))) => Some((side, side)),
            (true, Some(Size::Exact { height, width })) => Some((width, height)),
            (true, Some(Size::Shortest { shortest_edge })) => Some((shortest_edge, shortest_edge)),
            (true, None) => Some((224, 224)),
        };
        let (mean, std) = if p.do_normalize {
            (
                p.image_mean.unwrap_or(CLIP_MEAN),
                p.image_std.unwrap_or(CLIP_STD),
            )
        } else {
            ([0.0; 3], [1.0; 3])
        };
        Ok(Self {
            resize,
            crop,
            filter,
            scale: if p.do_rescale { p.rescale_factor } else { 1.0 },
            mean,
            std,
        })
    }

    /// The image as the model's input: channels first, normalised.
    fn apply(&self, image: &RgbImage) -> Vec<f32> {
        let (w, h) = image.dimensions();
        let resized;
        let image = match self.resize {
            None => image,
            Some(resize) => {
                let (tw, th) = match resize {
                    // As transformers: the short side becomes `s`, the long one is truncated.
                    Resize::Shortest(s) if w <= h => (s, ((s as u64 * h as u64) / w as u64) as u32),
                    Resize::Shortest(s) => (((s as u64 * w as u64) / h as u64) as u32, s),
                    Resize::Exact(tw, th) => (tw, th),
                };
                resized = crate::imaging::resize_with(image, tw.max(1), th.max(1), self.filter);
                &resized
            }
        };
        let (w, h) = image.dimensions();
        // transformers' centre crop: the offset rounds down; a crop larger than the image pads
        // with zeros (kept here by reading outside as 0).
        let (cw, ch) = self.crop.unwrap_or((w, h));
        let left = (w as i64 - cw as i64) / 2;
        let top = (h as i64 - ch as i64) / 2;
        let plane = (cw * ch) as usize;
        let mut out = vec![0f32; 3 * plane];
        for y in 0..ch as i64 {
            let sy = y + top;
            for x in 0..cw as i64 {
                let sx = x + left;
                let pixel = if (0..w as i64).contains(&sx) && (0..h as i64).contains(&sy) {
                    image.get_pixel(sx as u32, sy as u32).0
                } else {
                    [0, 0, 0]
                };
                let at = (y * cw as i64 + x) as usize;
                for c in 0..3 {
                    out[c * plane + at] =
                        (pixel[c] as f32 * self.scale - self.mean[c]) / self.std[c];
                }
            }
        }
        out
    }
}

/// A CLIP model with its tokenizer and preprocessing.
pub struct Clip {
    text: TextTower,
    vision: VisionTower,
    tokenizer: tokenizers::Tokenizer,
    preprocess: Preprocess,
    logit_scale: f32,
    device: Device,
    dir: PathBuf,
}

/// The device `name` names: `cpu`, `cuda` or `cuda:N` (with the `cuda` feature).
pub fn device(name: &str) -> Result<Device, ClipError> {
    let unavailable = |message: String| ClipError::Config {
        path: PathBuf::from("score.device"),
        message,
    };
    match name {
        "cpu" => Ok(Device::Cpu),
        cuda if cuda.starts_with("cuda") => {
            let ordinal = match cuda.strip_prefix("cuda:") {
                Some(n) => n
                    .parse::<usize>()
                    .map_err(|_| unavailable(format!("`{cuda}`: not a device number")))?,
                None => 0,
            };
            if !cfg!(feature = "cuda") {
                return Err(unavailable(format!(
                    "`{cuda}`: this build has no CUDA support (build with `--features cuda`)"
                )));
            }
            Device::new_cuda(ordinal).map_err(|source| ClipError::Candle {
                context: format!("opening {cuda}"),
                source,
            })
        }
        other => Err(unavailable(format!("unknown device `{other}`"))),
    }
}

impl Clip {
    /// Loads the checkpoint in `dir` onto `device`. The weights are memory-mapped.
    pub fn load(dir: &Path, device: &Device) -> Result<Self, ClipError> {
        let (vb, weights) = checkpoint::map_weights(dir, device)?;
        Self::with_weights(dir, vb, &weights.display().to_string())
    }

    /// The model `dir`'s configuration, tokenizer and preprocessing describe, with its weights
    /// from `vb` (named `source` in errors). [`Clip::load`] maps them from `model.safetensors`;
    /// a benchmark gives random ones of any shape (`candle_nn::VarMap`).
    pub fn with_weights(dir: &Path, vb: VarBuilder, source: &str) -> Result<Self, ClipError> {
        let device = vb.device().clone();
        let config_path = dir.join("config.json");
        let config: Config = read_json(&config_path)?;
        let act = |c: &TowerConfig| {
            Activation::parse(&c.hidden_act).ok_or_else(|| ClipError::Config {
                path: config_path.clone(),
                message: format!(
                    "hidden_act `{}` is not supported (quick_gelu, gelu, gelu_new)",
                    c.hidden_act
                ),
            })
        };
        let (text_act, vision_act) = (act(&config.text_config)?, act(&config.vision_config)?);
        let loading = || format!("loading {source}");
        let projection_dim = config.projection_dim;

        let t = &config.text_config;
        let tv = vb.pp("text_model");
        let text = TextTower {
            tokens: candle_nn::embedding(
                t.vocab_size,
                t.hidden_size,
                tv.pp("embeddings.token_embedding"),
            )
            .context(loading)?,
            positions: tv
                .get(
                    (t.max_position_embeddings, t.hidden_size),
                    "embeddings.position_embedding.weight",
                )
                .context(loading)?,
            blocks: encoder(tv.clone(), t, text_act).context(loading)?,
            final_norm: candle_nn::layer_norm(
                t.hidden_size,
                t.layer_norm_eps,
                tv.pp("final_layer_norm"),
            )
            .context(loading)?,
            projection: candle_nn::linear_no_bias(
                t.hidden_size,
                projection_dim,
                vb.pp("text_projection"),
            )
            .context(loading)?,
            max_positions: t.max_position_embeddings,
            eos: t.eos_token_id,
        };

        let v = &config.vision_config;
        let vv = vb.pp("vision_model");
        let grid = v.image_size / v.patch_size;
        let conv = Conv2dConfig {
            stride: v.patch_size,
            ..Default::default()
        };
        let vision = VisionTower {
            patches: candle_nn::conv2d_no_bias(
                3,
                v.hidden_size,
                v.patch_size,
                conv,
                vv.pp("embeddings.patch_embedding"),
            )
            .context(loading)?,
            class: vv
                .get(v.hidden_size, "embeddings.class_embedding")
                .context(loading)?,
            positions: vv
                .get(
                    (grid * grid + 1, v.hidden_size),
                    "embeddings.position_embedding.weight",
                )
                .context(loading)?,
            pre_norm: candle_nn::layer_norm(v.hidden_size, v.layer_norm_eps, vv.pp("pre_layrnorm"))
                .context(loading)?,
            blocks: encoder(vv.clone(), v, vision_act).context(loading)?,
            post_norm: candle_nn::layer_norm(
                v.hidden_size,
                v.layer_norm_eps,
                vv.pp("post_layernorm"),
            )
            .context(loading)?,
            projection: candle_nn::linear_no_bias(
                v.hidden_size,
                projection_dim,
                vb.pp("visual_projection"),
            )
            .context(loading)?,
            image_size: v.image_size,
        };
        // A scalar; 100 (CLIP's trained, clamped value) if a converted checkpoint lacks it.
        let logit_scale = vb
            .get((), "logit_scale")
            .and_then(|s| s.to_scalar::<f32>())
            .map(f32::exp)
            .unwrap_or(100.0);

        let tokenizer_path = dir.join("tokenizer.json");
        let mut tokenizer = checkpoint::tokenizer(dir)?;
        // As transformers with `truncation=True`: content is cut so that, with its start and end
        // tokens, a text fills at most the model's positions.
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: text.max_positions,
                ..Default::default()
            }))
            .map_err(|e| ClipError::Tokenizer {
                path: tokenizer_path.clone(),
                message: e.to_string(),
            })?;
        tokenizer.with_padding(None);

        let pre_path = dir.join("preprocessor_config.json");
        let preprocess = if pre_path.exists() {
            Preprocess::from_config(read_json(&pre_path)?, &pre_path)?
        } else {
            // OpenAI's settings, which every CLIP processor defaults to.
            Preprocess::from_config(
                serde_json::from_value(serde_json::json!({
                    "size": v.image_size, "crop_size": v.image_size
                }))
                .expect("a valid literal"),
                &pre_path,
            )?
        };
        if let Some((cw, ch)) = preprocess.crop
            && (cw as usize != v.image_size || ch as usize != v.image_size)
        {
            return Err(ClipError::Config {
                path: pre_path,
                message: format!(
                    "crop {cw}x{ch} does not match the model's image_size {}",
                    v.image_size
                ),
            });
        }
        Ok(Self {
            text,
            vision,
            tokenizer,
            preprocess,
            logit_scale,
            device,
            dir: dir.to_path_buf(),
        })
    }

    /// `exp(logit_scale)`: the temperature CLIP multiplies similarities by before a softmax.
    pub fn logit_scale(&self) -> f32 {
        self.logit_scale
    }

    /// Token ids of `text`: start token, BPE tokens, end token, at most the model's positions.
    pub fn tokenize(&self, text: &str) -> Result<Vec<u32>, ClipError> {
        let encoding = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| ClipError::Tokenizer {
                path: self.dir.join("tokenizer.json"),
                message: e.to_string(),
            })?;
        Ok(encoding.get_ids().to_vec())
    }

    /// The normalised text embeddings of `texts`, one row each.
    pub fn embed_texts(&self, texts: &[&str]) -> Result<Tensor, ClipError> {
        let ids = texts
            .iter()
            .map(|t| self.tokenize(t))
            .collect::<Result<Vec<_>, _>>()?;
        self.embed_token_ids(&ids)
    }

    /// The normalised text embeddings of already tokenized texts.
    pub fn embed_token_ids(&self, ids: &[Vec<u32>]) -> Result<Tensor, ClipError> {
        let t = &self.text;
        let run = || -> candle_core::Result<Tensor> {
            let n = ids
                .iter()
                .map(Vec::len)
                .max()
                .unwrap_or(1)
                .clamp(1, t.max_positions);
            // Rows are padded at the end with the end token. The mask is causal, so a padded
            // position is never seen by the end token where the text is pooled.
            let mut flat = Vec::with_capacity(ids.len() * n);
            let mut pooled_at = Vec::with_capacity(ids.len());
            for row in ids {
                let row = &row[..row.len().min(n)];
                // transformers: the first end token, or (old configs with eos 2) the largest id.
                let at = if t.eos == 2 {
                    row.iter()
                        .enumerate()
                        .max_by_key(|&(i, id)| (*id, std::cmp::Reverse(i)))
                        .map_or(0, |(i, _)| i)
                } else {
                    row.iter()
                        .position(|&id| id == t.eos)
                        .unwrap_or(row.len().saturating_sub(1))
                };
                pooled_at.push(at as u32);
                flat.extend_from_slice(row);
                flat.extend(std::iter::repeat_n(t.eos, n - row.len()));
            }
            let input = Tensor::from_vec(flat, (ids.len(), n), &self.device)?;
            let positions = t.positions.narrow(0, 0, n)?;
            let mut x = t.tokens.forward(&input)?.broadcast_add(&positions)?;
            let mask = causal_mask(n, &self.device)?;
            for block in &t.blocks {
                x = block.forward(&x, Some(&mask))?;
            }
            let x = t.final_norm.forward(&x)?;
            let rows = pooled_at
                .iter()
                .enumerate()
                .map(|(i, &at)| x.i((i, at as usize)))
                .collect::<candle_core::Result<Vec<_>>>()?;
            normalize(&t.projection.forward(&Tensor::stack(&rows, 0)?)?)
        };
        run().context(|| "text forward pass".into())
    }

    /// The model's input for `image`, channels first (3 × size × size), normalised.
    pub fn preprocess(&self, image: &RgbImage) -> Vec<f32> {
        self.preprocess.apply(image)
    }

    /// Side of the square input images.
    pub fn image_size(&self) -> usize {
        self.vision.image_size
    }

    /// The normalised image embeddings of a batch of preprocessed images (`n × 3 × size × size`).
    pub fn embed_pixels(&self, pixels: &Tensor) -> Result<Tensor, ClipError> {
        let v = &self.vision;
        let run = || -> candle_core::Result<Tensor> {
            let pixels = pixels.to_device(&self.device)?.to_dtype(DType::F32)?;
            let b = pixels.dim(0)?;
            let patches = v
                .patches
                .forward(&pixels)?
                .flatten_from(2)?
                .transpose(1, 2)?;
            let dim = v.class.dim(0)?;
            let class = v.class.reshape((1, 1, dim))?.expand((b, 1, dim))?;
            let x = Tensor::cat(&[&class, &patches], 1)?.broadcast_add(&v.positions)?;
            let mut x = v.pre_norm.forward(&x)?;
            for block in &v.blocks {
                x = block.forward(&x, None)?;
            }
            let pooled = v.post_norm.forward(&x.i((.., 0, ..))?)?;
            normalize(&v.projection.forward(&pooled)?)
        };
        run().context(|| "image forward pass".into())
    }

    /// The normalised image embeddings of `images`, preprocessed as the checkpoint asks.
    pub fn embed_images(&self, images: &[&RgbImage]) -> Result<Tensor, ClipError> {
        let size = self.vision.image_size;
        let mut flat = Vec::with_capacity(images.len() * 3 * size * size);
        for image in images {
            flat.extend(self.preprocess(image));
        }
        let pixels = Tensor::from_vec(flat, (images.len(), 3, size, size), &self.device)
            .context(|| "image batch".into())?;
        self.embed_pixels(&pixels)
    }

    /// Cosine similarity of each image with its text (row i with row i), not scaled by the logit
    /// scale: the number LAION and DataComp threshold.
    pub fn similarities(
        &self,
        images: &[&RgbImage],
        texts: &[&str],
    ) -> Result<Vec<f32>, ClipError> {
        let (i, t) = (self.embed_images(images)?, self.embed_texts(texts)?);
        rowwise_dot(&i, &t)
    }
}

/// Row-wise dot products of two equally shaped matrices.
pub fn rowwise_dot(a: &Tensor, b: &Tensor) -> Result<Vec<f32>, ClipError> {
    (a * b)
        .and_then(|p| p.sum(D::Minus1))
        .and_then(|s| s.to_vec1::<f32>())
        .context(|| "similarity".into())
}

fn normalize(x: &Tensor) -> candle_core::Result<Tensor> {
    x.broadcast_div(&x.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?)
}

/// (n, n): 0 where a position may look (itself and before), −∞ after.
fn causal_mask(n: usize, device: &Device) -> candle_core::Result<Tensor> {
    let mask: Vec<f32> = (0..n)
        .flat_map(|i| (0..n).map(move |j| if j > i { f32::NEG_INFINITY } else { 0.0 }))
        .collect();
    Tensor::from_vec(mask, (n, n), device)
}
