//! T5 (Raffel et al. 2020) with candle: a checkpoint in Hugging Face layout (`config.json`,
//! `model.safetensors`), for question generation and the round trip's question answering.
//!
//! Written here from the architecture and the Hugging Face parameter names, as transformers computes
//! it, where candle-transformers' `t5.rs` (0.11) differs:
//! - the decoder's relative-position buckets are unidirectional (a query sees only earlier keys), the
//!   encoder's bidirectional; candle-transformers buckets both bidirectionally, and its decoder drifts
//!   from transformers after about 9 positions;
//! - the decoder output is scaled by `d_model^-0.5` before the output projection where
//!   transformers scales it (original T5, tied; `scale_decoder_outputs` in transformers 5 configs),
//!   not by `√d_model`; T5 v1.1 and flan-T5 (untied, their own `lm_head.weight`) do not scale;
//! - padded batches mask the encoder's padding in its self-attention and in cross-attention, so a
//!   batched prompt gives what it gives alone;
//! - generation is greedy or beam search (transformers' `generate` with `num_beams`, no sampling,
//!   length penalty 1), with a key/value cache.
//!
//! Checked against transformers on tiny random checkpoints, tied and untied, relu and gated-gelu
//! (`tests/t5.rs`, `scripts/make_t5_fixtures.py`).

use std::path::Path;

use candle_core::{D, DType, Device, IndexOp, Module, Tensor};
use candle_nn::{Embedding, Linear, VarBuilder};
use serde::Deserialize;

use crate::checkpoint::{self, CheckpointError, Context, read_json};

/// Why a T5 checkpoint could not be loaded or run.
pub type T5Error = CheckpointError;

/// The fields of `config.json` this implementation reads; defaults are transformers'.
#[derive(Clone, Debug, Deserialize)]
pub struct T5Config {
    /// Width of the residual stream.
    pub d_model: usize,
    /// Width of one attention head.
    pub d_kv: usize,
    /// Width of the feed-forward layer.
    pub d_ff: usize,
    /// Encoder layers.
    pub num_layers: usize,
    /// Decoder layers (the encoder's number when absent).
    pub num_decoder_layers: Option<usize>,
    /// Attention heads.
    pub num_heads: usize,
    /// Relative-position buckets.
    #[serde(default = "default_buckets")]
    pub relative_attention_num_buckets: usize,
    /// Distance beyond which relative positions share a bucket.
    #[serde(default = "default_max_distance")]
    pub relative_attention_max_distance: usize,
    /// Epsilon of the RMS layer norms.
    #[serde(default = "default_eps")]
    pub layer_norm_epsilon: f64,
    /// `relu` (T5) or `gated-gelu` (T5 v1.1, flan-T5).
    #[serde(default = "default_ff")]
    pub feed_forward_proj: String,
    /// Whether the output projection is the input embedding (a checkpoint with a `lm_head.weight`
    /// tensor uses that tensor either way).
    #[serde(default = "default_true")]
    pub tie_word_embeddings: bool,
    /// Whether the decoder output is scaled by `d_model^-0.5` before the output projection
    /// (transformers 5 writes this key; older configs meant it by `tie_word_embeddings`: original
    /// T5 ties and scales, T5 v1.1 and flan-T5 neither).
    pub scale_decoder_outputs: Option<bool>,
    /// Vocabulary size.
    pub vocab_size: usize,
    /// Padding token.
    #[serde(default)]
    pub pad_token_id: u32,
    /// End-of-sequence token.
    #[serde(default = "default_eos")]
    pub eos_token_id: u32,
    /// The decoder's first input token.
    #[serde(default)]
    pub decoder_start_token_id: u32,
}

fn default_buckets() -> usize {
    32
}
fn default_max_distance() -> usize {
    128
}
fn default_eps() -> f64 {
    1e-6
}
fn default_ff() -> String {
    "relu".into()
}
fn default_true() -> bool {
    true
}
fn default_eos() -> u32 {
    1
}

/// How [`T5::generate`] searches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generation {
    /// Most tokens generated after the decoder's start token.
    pub max_new_tokens: usize,
    /// Beams (1: greedy).
    pub num_beams: usize,
}

/// T5's layer norm: scaled by the root mean square, no mean subtracted, no bias.
struct RmsNorm {
    weight: Tensor,
    eps: f64,
}

impl RmsNorm {
    fn load(vb: VarBuilder, c: &T5Config) -> candle_core::Result<Self> {
        Ok(Self {
            weight: vb.get(c.d_model, "weight")?,
            eps: c.layer_norm_epsilon,
        })
    }

    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let variance = x.sqr()?.mean_keepdim(D::Minus1)?;
        x.broadcast_div(&(variance + self.eps)?.sqrt()?)?
            .broadcast_mul(&self.weight)
    }
}

fn linear(vb: VarBuilder, input: usize, output: usize) -> candle_core::Result<Linear> {
    Ok(Linear::new(vb.get((output, input), "weight")?, None))
}

struct Attention {
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    heads: usize,
    d_kv: usize,
    /// Layer 0 of each stack holds the relative-position embedding, shared by the later layers.
    relative_bias: Option<Embedding>,
}

impl Attention {
    fn load(vb: VarBuilder, c: &T5Config, has_bias: bool) -> candle_core::Result<Self> {
        let inner = c.num_heads * c.d_kv;
        let relative_bias = if has_bias {
            let w = vb
                .pp("relative_attention_bias")
                .get((c.relative_attention_num_buckets, c.num_heads), "weight")?;
            Some(Embedding::new(w, c.num_heads))
        } else {
            None
        };
        Ok(Self {
            q: linear(vb.pp("q"), c.d_model, inner)?,
            k: linear(vb.pp("k"), c.d_model, inner)?,
            v: linear(vb.pp("v"), c.d_model, inner)?,
            o: linear(vb.pp("o"), inner, c.d_model)?,
            heads: c.num_heads,
            d_kv: c.d_kv,
            relative_bias,
        })
    }

    /// (b, t, d_model) → (b, heads, t, d_kv)
    fn split(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let (b, t, _) = x.dims3()?;
        x.reshape((b, t, self.heads, self.d_kv))?
            .transpose(1, 2)?
            .contiguous()
    }

    /// Attention of queries `q` (already split) over keys and values `k`, `v`, with `bias` (b or 1,
    /// heads or 1, tq, tk) added to the scores (no 1/√d scaling: T5 folds it into its weights).
    fn attend(
        &self,
        q: &Tensor,
        k: &Tensor,
        v: &Tensor,
        bias: &Tensor,
    ) -> candle_core::Result<Tensor> {
        let scores = q.matmul(&k.t()?)?.broadcast_add(bias)?;
        let weights = candle_nn::ops::softmax_last_dim(&scores)?;
        let out = weights.matmul(v)?;
        let (b, _, t, _) = out.dims4()?;
        let out = out
            .transpose(1, 2)?
            .reshape((b, t, self.heads * self.d_kv))?;
        self.o.forward(&out)
    }
}

/// The bucket of each relative position (key − query), as transformers computes it (`_relative_
/// position_bucket`, the logarithm in float32 and truncated).
fn bucket(relative: i64, bidirectional: bool, buckets: usize, max_distance: usize) -> u32 {
    let mut n = buckets as i64;
    let mut out = 0i64;
    let mut rp = relative;
    if bidirectional {
        n /= 2;
        if rp > 0 {
            out += n;
        }
        rp = rp.abs();
    } else {
        rp = -rp.min(0);
    }
    let max_exact = n / 2;
    if rp < max_exact {
        out += rp;
    } else {
        // As torch: the ratio's logarithm in float32, divided by Python's float64 logarithm of the
        // distance ratio (rounded to float32 by the tensor operation), truncated.
        let divisor = (max_distance as f64 / max_exact as f64).ln() as f32;
        let scaled =
            ((rp as f32 / max_exact as f32).ln() / divisor * (n - max_exact) as f32) as i64;
        out += (max_exact + scaled).min(n - 1);
    }
    out as u32
}

/// The relative-position bias (1, heads, tq, tk) of queries at `q_offset..q_offset + tq` over keys
/// `0..tk`.
fn position_bias(
    embedding: &Embedding,
    c: &T5Config,
    q_offset: usize,
    tq: usize,
    tk: usize,
    bidirectional: bool,
    device: &Device,
) -> candle_core::Result<Tensor> {
    let mut ids = Vec::with_capacity(tq * tk);
    for i in 0..tq {
        for j in 0..tk {
            let relative = j as i64 - (q_offset + i) as i64;
            ids.push(bucket(
                relative,
                bidirectional,
                c.relative_attention_num_buckets,
                c.relative_attention_max_distance,
            ));
        }
    }
    let ids = Tensor::from_vec(ids, (tq, tk), device)?;
    embedding
        .forward(&ids)? // (tq, tk, heads)
        .permute((2, 0, 1))?
        .unsqueeze(0)
}

enum FeedForward {
    Relu {
        wi: Linear,
        wo: Linear,
    },
    GatedGelu {
        wi_0: Linear,
        wi_1: Linear,
        wo: Linear,
    },
}

impl FeedForward {
    fn load(vb: VarBuilder, c: &T5Config) -> candle_core::Result<Self> {
        Ok(if c.feed_forward_proj == "gated-gelu" {
            FeedForward::GatedGelu {
                wi_0: linear(vb.pp("wi_0"), c.d_model, c.d_ff)?,
                wi_1: linear(vb.pp("wi_1"), c.d_model, c.d_ff)?,
                wo: linear(vb.pp("wo"), c.d_ff, c.d_model)?,
            }
        } else {
            FeedForward::Relu {
                wi: linear(vb.pp("wi"), c.d_model, c.d_ff)?,
                wo: linear(vb.pp("wo"), c.d_ff, c.d_model)?,
            }
        })
    }

    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            FeedForward::Relu { wi, wo } => wo.forward(&wi.forward(x)?.relu()?),
            // "gelu_new": the tanh approximation, which candle's `gelu` is.
            FeedForward::GatedGelu { wi_0, wi_1, wo } => {
                wo.forward(&(wi_0.forward(x)?.gelu()? * wi_1.forward(x)?)?)
            }
        }
    }
}

struct EncoderLayer {
    norm1: RmsNorm,
    attention: Attention,
    norm2: RmsNorm,
    ff: FeedForward,
}

impl EncoderLayer {
    /// Layer `encoder.block.N.layer` (`first`: N = 0, which holds the position bias).
    fn load(vb: VarBuilder, c: &T5Config, first: bool) -> candle_core::Result<Self> {
        Ok(Self {
            norm1: RmsNorm::load(vb.pp("0.layer_norm"), c)?,
            attention: Attention::load(vb.pp("0.SelfAttention"), c, first)?,
            norm2: RmsNorm::load(vb.pp("1.layer_norm"), c)?,
            ff: FeedForward::load(vb.pp("1.DenseReluDense"), c)?,
        })
    }
}

struct DecoderLayer {
    norm1: RmsNorm,
    attention: Attention,
    norm2: RmsNorm,
    cross: Attention,
    norm3: RmsNorm,
    ff: FeedForward,
}

impl DecoderLayer {
    /// Layer `decoder.block.N.layer` (`first`: N = 0, which holds the position bias).
    fn load(vb: VarBuilder, c: &T5Config, first: bool) -> candle_core::Result<Self> {
        Ok(Self {
            norm1: RmsNorm::load(vb.pp("0.layer_norm"), c)?,
            attention: Attention::load(vb.pp("0.SelfAttention"), c, first)?,
            norm2: RmsNorm::load(vb.pp("1.layer_norm"), c)?,
            cross: Attention::load(vb.pp("1.EncDecAttention"), c, false)?,
            norm3: RmsNorm::load(vb.pp("2.layer_norm"), c)?,
            ff: FeedForward::load(vb.pp("2.DenseReluDense"), c)?,
        })
    }
}

/// A decoder layer's cached keys and values: its own, growing by one position per step, and the
/// encoder's, computed once.
struct LayerCache {
    k: Option<Tensor>,
    v: Option<Tensor>,
    cross_k: Tensor,
    cross_v: Tensor,
}

/// A T5 encoder–decoder.
pub struct T5 {
    config: T5Config,
    shared: Embedding,
    encoder: Vec<EncoderLayer>,
    encoder_norm: RmsNorm,
    decoder: Vec<DecoderLayer>,
    decoder_norm: RmsNorm,
    /// The output projection (d_model, vocab): `lm_head.weight` transposed, or the shared
    /// embedding's.
    output: Tensor,
    device: Device,
}

/// The additive mask (b, 1, 1, s) of a (b, s) 0/1 attention mask: 0 where attended, a large
/// negative number on padding.
fn additive_mask(mask: &Tensor) -> candle_core::Result<Tensor> {
    let (b, s) = mask.dims2()?;
    ((mask.to_dtype(DType::F32)? - 1.0)? * 1e9)?.reshape((b, 1, 1, s))
}

impl T5 {
    /// Loads a checkpoint directory (`config.json`, `model.safetensors`).
    pub fn load(dir: &Path, device: &Device) -> Result<Self, T5Error> {
        let config_path = dir.join("config.json");
        let config: T5Config = read_json(&config_path)?;
        if !matches!(config.feed_forward_proj.as_str(), "relu" | "gated-gelu") {
            return Err(CheckpointError::Config {
                path: config_path,
                message: format!(
                    "feed_forward_proj `{}` is not supported (relu, gated-gelu)",
                    config.feed_forward_proj
                ),
            });
        }
        if config.num_layers == 0 || config.num_decoder_layers == Some(0) {
            return Err(CheckpointError::Config {
                path: config_path,
                message: "num_layers and num_decoder_layers must be at least 1".into(),
            });
        }
        let (vb, _) = checkpoint::map_weights(dir, device)?;
        Self::from_var_builder(config, vb, device)
    }

    /// A model from `config` and weights under Hugging Face names in `vb`.
    fn from_var_builder(
        config: T5Config,
        vb: VarBuilder,
        device: &Device,
    ) -> Result<Self, T5Error> {
        let c = &config;
        let shared = vb
            .pp("shared")
            .get((c.vocab_size, c.d_model), "weight")
            .context(|| "shared.weight".into())?;
        let shared = Embedding::new(shared, c.d_model);
        let encoder = (0..c.num_layers)
            .map(|i| {
                EncoderLayer::load(vb.pp(format!("encoder.block.{i}.layer")), c, i == 0)
                    .context(|| format!("encoder.block.{i}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let decoder = (0..c.num_decoder_layers.unwrap_or(c.num_layers))
            .map(|i| {
                DecoderLayer::load(vb.pp(format!("decoder.block.{i}.layer")), c, i == 0)
                    .context(|| format!("decoder.block.{i}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let encoder_norm = RmsNorm::load(vb.pp("encoder.final_layer_norm"), c)
            .context(|| "encoder.final_layer_norm".into())?;
        let decoder_norm = RmsNorm::load(vb.pp("decoder.final_layer_norm"), c)
            .context(|| "decoder.final_layer_norm".into())?;
        // The output projection as one contiguous (d_model, vocab) matrix: multiplying by a
        // transposed view made candle copy the whole matrix at every generated token.
        let output = if vb.contains_tensor("lm_head.weight") {
            vb.pp("lm_head")
                .get((c.vocab_size, c.d_model), "weight")
                .and_then(|w| w.t()?.contiguous())
                .context(|| "lm_head".into())?
        } else if c.tie_word_embeddings {
            shared
                .embeddings()
                .t()
                .and_then(|w| w.contiguous())
                .context(|| "shared.weight".into())?
        } else {
            return Err(CheckpointError::Candle {
                context: "lm_head.weight".into(),
                source: candle_core::Error::Msg(
                    "tie_word_embeddings is false and the checkpoint has no lm_head.weight".into(),
                ),
            });
        };
        Ok(Self {
            config,
            shared,
            encoder,
            encoder_norm,
            decoder,
            decoder_norm,
            output,
            device: device.clone(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &T5Config {
        &self.config
    }

    /// The encoder's output (b, s, d_model) for token ids (b, s) and their 0/1 attention mask.
    pub fn encode(&self, input_ids: &Tensor, mask: &Tensor) -> Result<Tensor, T5Error> {
        self.encode_inner(input_ids, mask)
            .context(|| "encoder".into())
    }

    fn encode_inner(&self, input_ids: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        let (_, s) = input_ids.dims2()?;
        let mut x = self.shared.forward(input_ids)?;
        let first = &self.encoder[0].attention;
        let bias = position_bias(
            first.relative_bias.as_ref().expect("layer 0 has the bias"),
            &self.config,
            0,
            s,
            s,
            true,
            &self.device,
        )?
        .broadcast_add(&additive_mask(mask)?)?;
        for layer in &self.encoder {
            let h = layer.norm1.forward(&x)?;
            let a = &layer.attention;
            let (q, k, v) = (
                a.split(&a.q.forward(&h)?)?,
                a.split(&a.k.forward(&h)?)?,
                a.split(&a.v.forward(&h)?)?,
            );
            x = (x + a.attend(&q, &k, &v, &bias)?)?;
            x = (&x + layer.ff.forward(&layer.norm2.forward(&x)?)?)?;
        }
        self.encoder_norm.forward(&x)
    }

    /// Teacher-forced logits (b, t, vocab) of the decoder over `decoder_ids` (b, t, starting with
    /// the decoder start token), given the encoder output and its mask.
    pub fn decode(
        &self,
        decoder_ids: &Tensor,
        encoder_out: &Tensor,
        mask: &Tensor,
    ) -> Result<Tensor, T5Error> {
        let mut cache = self
            .cache(encoder_out)
            .context(|| "cross-attention".into())?;
        self.step(decoder_ids, 0, &mut cache, mask)
            .context(|| "decoder".into())
    }

    fn cache(&self, encoder_out: &Tensor) -> candle_core::Result<Vec<LayerCache>> {
        self.decoder
            .iter()
            .map(|layer| {
                let c = &layer.cross;
                Ok(LayerCache {
                    k: None,
                    v: None,
                    cross_k: c.split(&c.k.forward(encoder_out)?)?,
                    cross_v: c.split(&c.v.forward(encoder_out)?)?,
                })
            })
            .collect()
    }

    /// The decoder over new tokens `ids` (b, t) at positions `offset..offset + t`, extending
    /// `cache`: logits (b, t, vocab).
    fn step(
        &self,
        ids: &Tensor,
        offset: usize,
        cache: &mut [LayerCache],
        mask: &Tensor,
    ) -> candle_core::Result<Tensor> {
        let (_, t) = ids.dims2()?;
        let total = offset + t;
        let first = &self.decoder[0].attention;
        let mut bias = position_bias(
            first.relative_bias.as_ref().expect("layer 0 has the bias"),
            &self.config,
            offset,
            t,
            total,
            false,
            &self.device,
        )?;
        if t > 1 {
            // Causal: query i (at offset + i) sees keys 0..=offset + i.
            let causal: Vec<f32> = (0..t)
                .flat_map(|i| (0..total).map(move |j| if j > offset + i { -1e9 } else { 0.0 }))
                .collect();
            let causal = Tensor::from_vec(causal, (1, 1, t, total), &self.device)?;
            bias = bias.broadcast_add(&causal)?;
        }
        let cross_mask = additive_mask(mask)?;
        let mut x = self.shared.forward(ids)?;
        for (layer, cache) in self.decoder.iter().zip(cache.iter_mut()) {
            let h = layer.norm1.forward(&x)?;
            let a = &layer.attention;
            let (q, k, v) = (
                a.split(&a.q.forward(&h)?)?,
                a.split(&a.k.forward(&h)?)?,
                a.split(&a.v.forward(&h)?)?,
            );
            let k = match &cache.k {
                Some(past) => Tensor::cat(&[past, &k], 2)?,
                None => k,
            };
            let v = match &cache.v {
                Some(past) => Tensor::cat(&[past, &v], 2)?,
                None => v,
            };
            x = (x + a.attend(&q, &k, &v, &bias)?)?;
            cache.k = Some(k);
            cache.v = Some(v);
            let h = layer.norm2.forward(&x)?;
            let c = &layer.cross;
            let q = c.split(&c.q.forward(&h)?)?;
            x = (&x + c.attend(&q, &cache.cross_k, &cache.cross_v, &cross_mask)?)?;
            x = (&x + layer.ff.forward(&layer.norm3.forward(&x)?)?)?;
        }
        let mut x = self.decoder_norm.forward(&x)?;
        let c = &self.config;
        if c.scale_decoder_outputs.unwrap_or(c.tie_word_embeddings) {
            x = (x * (c.d_model as f64).powf(-0.5))?;
        }
        x.broadcast_matmul(&self.output)
    }

    /// Pads `inputs` with the pad token into ids (b, s) and a 0/1 mask (b, s).
    fn pad(&self, inputs: &[Vec<u32>]) -> candle_core::Result<(Tensor, Tensor)> {
        let s = inputs.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let mut ids = Vec::with_capacity(inputs.len() * s);
        let mut mask = Vec::with_capacity(inputs.len() * s);
        for input in inputs {
            ids.extend(input.iter().copied());
            ids.extend(std::iter::repeat_n(
                self.config.pad_token_id,
                s - input.len(),
            ));
            mask.extend(std::iter::repeat_n(1u32, input.len()));
            mask.extend(std::iter::repeat_n(0u32, s - input.len()));
        }
        let b = inputs.len();
        Ok((
            Tensor::from_vec(ids, (b, s), &self.device)?,
            Tensor::from_vec(mask, (b, s), &self.device)?,
        ))
    }

    /// Generates from a batch of token-id sequences (each with its end token, as the tokenizer
    /// writes it): greedy with one beam, else beam search as transformers' `generate(num_beams=N)`.
    /// Each output is the generated ids without the decoder start token, ending with the end
    /// token when the model wrote one.
    pub fn generate(
        &self,
        inputs: &[Vec<u32>],
        settings: &Generation,
    ) -> Result<Vec<Vec<u32>>, T5Error> {
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let run = || -> candle_core::Result<Vec<Vec<u32>>> {
            let (ids, mask) = self.pad(inputs)?;
            let encoded = self.encode_inner(&ids, &mask)?;
            if settings.num_beams <= 1 {
                self.greedy(&encoded, &mask, settings.max_new_tokens)
            } else {
                self.beam(&encoded, &mask, settings)
            }
        };
        run().context(|| "generation".into())
    }

    fn greedy(
        &self,
        encoded: &Tensor,
        mask: &Tensor,
        max_new: usize,
    ) -> candle_core::Result<Vec<Vec<u32>>> {
        let b = encoded.dim(0)?;
        let mut cache = self.cache(encoded)?;
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); b];
        let mut done = vec![false; b];
        let mut next = vec![self.config.decoder_start_token_id; b];
        for step in 0..max_new {
            let ids = Tensor::from_vec(next.clone(), (b, 1), &self.device)?;
            let logits = self.step(&ids, step, &mut cache, mask)?.i((.., 0, ..))?;
            let best: Vec<u32> = logits.argmax(D::Minus1)?.to_vec1()?;
            for i in 0..b {
                // A finished sequence is fed padding, as transformers does.
                next[i] = if done[i] {
                    self.config.pad_token_id
                } else {
                    out[i].push(best[i]);
                    done[i] = best[i] == self.config.eos_token_id;
                    best[i]
                };
            }
            if done.iter().all(|d| *d) {
                break;
            }
        }
        Ok(out)
    }

    fn beam(
        &self,
        encoded: &Tensor,
        mask: &Tensor,
        settings: &Generation,
    ) -> candle_core::Result<Vec<Vec<u32>>> {
        let beams = settings.num_beams;
        let (b, s, d) = encoded.dims3()?;
        // Every input repeated `beams` times: rows i*beams..(i+1)*beams are input i's beams.
        let encoded = encoded
            .unsqueeze(1)?
            .broadcast_as((b, beams, s, d))?
            .reshape((b * beams, s, d))?;
        let mask = mask
            .unsqueeze(1)?
            .broadcast_as((b, beams, s))?
            .reshape((b * beams, s))?;
        let mut cache = self.cache(&encoded)?;
        let eos = self.config.eos_token_id;
        // Running beams: tokens and summed log-probabilities; at the start only the first beam of
        // each input is live (the others at -1e9), so the first step's candidates are distinct.
        let mut tokens: Vec<Vec<u32>> = vec![Vec::new(); b * beams];
        let mut scores: Vec<f32> = (0..b * beams)
            .map(|r| if r % beams == 0 { 0.0 } else { -1e9 })
            .collect();
        let mut finished: Vec<Vec<(f32, Vec<u32>)>> = vec![Vec::new(); b];
        let mut done = vec![false; b];
        let mut next = vec![self.config.decoder_start_token_id; b * beams];
        for step in 0..settings.max_new_tokens {
            let ids = Tensor::from_vec(next.clone(), (b * beams, 1), &self.device)?;
            let logits = self.step(&ids, step, &mut cache, &mask)?.i((.., 0, ..))?;
            let logprobs: Vec<Vec<f32>> =
                candle_nn::ops::log_softmax(&logits, D::Minus1)?.to_vec2()?;
            let vocab = logprobs[0].len();
            let mut reorder = Vec::with_capacity(b * beams);
            let mut new_tokens = Vec::with_capacity(b * beams);
            let mut new_scores = Vec::with_capacity(b * beams);
            // Finished hypotheses are scored by their summed log-probability over their length
            // (generated tokens, the end included; transformers' length penalty 1). At the last
            // step every candidate finishes, as transformers' length limit stops them all.
            let length = (step + 1) as f32;
            let last = step + 1 == settings.max_new_tokens;
            for i in 0..b {
                if done[i] {
                    for k in 0..beams {
                        reorder.push((i * beams + k) as u32);
                        new_tokens.push(self.config.pad_token_id);
                        new_scores.push(0.0);
                    }
                    continue;
                }
                // The best 2 × beams continuations over all of the input's beams.
                let mut candidates: Vec<(f32, usize, u32)> = Vec::with_capacity(beams * vocab);
                for k in 0..beams {
                    let r = i * beams + k;
                    for (t, lp) in logprobs[r].iter().enumerate() {
                        candidates.push((scores[r] + lp, r, t as u32));
                    }
                }
                let top = 2 * beams;
                candidates.select_nth_unstable_by(top - 1, |a, b| {
                    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
                });
                candidates.truncate(top);
                candidates
                    .sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
                let mut live = 0;
                for (rank, &(score, r, t)) in candidates.iter().enumerate() {
                    if t == eos || last {
                        // Only a candidate among the best `beams` finishes a hypothesis.
                        if rank < beams {
                            let mut hyp = tokens[r].clone();
                            hyp.push(t);
                            finished[i].push((score / length, hyp));
                        }
                        if t == eos {
                            continue;
                        }
                    }
                    reorder.push(r as u32);
                    new_tokens.push(t);
                    new_scores.push(score);
                    live += 1;
                    if live == beams {
                        break;
                    }
                }
                // Done once `beams` hypotheses are finished and no running beam can beat the
                // worst of them (transformers' `early_stopping=False` heuristic).
                finished[i].sort_by(|a, b| b.0.total_cmp(&a.0));
                finished[i].truncate(beams);
                let best_running = new_scores[new_scores.len() - beams..]
                    .iter()
                    .copied()
                    .fold(f32::MIN, f32::max);
                if finished[i].len() == beams && finished[i][beams - 1].0 >= best_running / length {
                    done[i] = true;
                }
            }
            let index = Tensor::from_vec(reorder.clone(), b * beams, &self.device)?;
            for layer in &mut cache {
                layer.k = Some(layer.k.as_ref().expect("filled").index_select(&index, 0)?);
                layer.v = Some(layer.v.as_ref().expect("filled").index_select(&index, 0)?);
            }
            tokens = reorder
                .iter()
                .zip(&new_tokens)
                .map(|(&r, &t)| {
                    let mut seq = tokens[r as usize].clone();
                    seq.push(t);
                    seq
                })
                .collect();
            scores = new_scores;
            next = new_tokens;
            if done.iter().all(|d| *d) {
                break;
            }
        }
        let out = finished
            .into_iter()
            .map(|mut hyps| {
                hyps.sort_by(|a, b| b.0.total_cmp(&a.0));
                hyps.into_iter().next().map(|h| h.1).unwrap_or_default()
            })
            .collect();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_as_transformers() {
        // Bidirectional, 32 buckets, max distance 128: exact up to 7 either way, log-spaced after.
        assert_eq!(bucket(0, true, 32, 128), 0);
        assert_eq!(bucket(-3, true, 32, 128), 3);
        assert_eq!(bucket(3, true, 32, 128), 19);
        assert_eq!(bucket(-200, true, 32, 128), 15);
        // Unidirectional: later keys all share bucket 0; earlier ones exact up to 15.
        assert_eq!(bucket(5, false, 32, 128), 0);
        assert_eq!(bucket(-12, false, 32, 128), 12);
        assert_eq!(bucket(-1000, false, 32, 128), 31);
    }
}
