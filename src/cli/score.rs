//! The commands about scores and hashes: `score` (pairs on stdin), `hash` (image files) and
//! `idf build` (the relatedness score's table).

use std::path::PathBuf;

use anyhow::bail;

use altflow::config::Pipeline;
use altflow::score::relatedness::IdfTable;

use super::answer_json_lines;

/// `altflow score`.
#[derive(clap::Args)]
pub struct ScoreArgs {
    /// Pipeline file whose `[score]` table (and `[http]`, for image URLs) to use.
    #[arg(long)]
    pipeline: Option<PathBuf>,
    /// CLIP checkpoint directory in Hugging Face layout (gives `clip_similarity`, `labels`).
    #[arg(long)]
    clip_model: Option<PathBuf>,
    /// Downstream texts S, one per line (gives `relatedness`).
    #[arg(long)]
    downstream: Option<PathBuf>,
    /// GloVe vectors: the text format, or a `.npy` matrix with its `*index.parquet`
    /// vocabulary beside it (gives `quality`).
    #[arg(long)]
    glove: Option<PathBuf>,
    /// IDF table written by `altflow idf build`.
    #[arg(long, conflicts_with = "idf_corpus")]
    idf: Option<PathBuf>,
    /// Pretraining text D, one document per line, to count the IDF table from.
    #[arg(long)]
    idf_corpus: Option<PathBuf>,
    /// The open-nsfw ONNX model (gives `nsfw`; ONNX Runtime from ORT_DYLIB_PATH or the
    /// pipeline's `score.onnxruntime`).
    #[arg(long)]
    nsfw_model: Option<PathBuf>,
}

/// `altflow hash`.
#[derive(clap::Args)]
pub struct HashArgs {
    /// Image files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Longer side the image is resized to before the perceptual hash (the pipeline's
    /// `fetch.max_side`).
    #[arg(long, default_value_t = 512)]
    max_side: u32,
}

/// `altflow idf`.
#[derive(clap::Subcommand)]
pub enum IdfCommand {
    /// Count document frequencies over a corpus (one document per line) and write the table.
    Build {
        /// The corpus.
        #[arg(long)]
        corpus: PathBuf,
        /// Where the table goes (`#documents N`, then `word<TAB>frequency` lines).
        #[arg(long)]
        out: PathBuf,
        /// Drop words seen in fewer documents (bounds the table).
        #[arg(long, default_value_t = 1)]
        min_df: u64,
    },
}

/// `altflow score`: the pipeline's `[score]` table with the flags over it.
pub async fn score(args: ScoreArgs) -> anyhow::Result<()> {
    let (mut config, http, fetch) = match &args.pipeline {
        Some(path) => {
            let p = Pipeline::load(path)?;
            (p.score, p.http, p.fetch)
        }
        None => Default::default(),
    };
    // Flags override the file; an IDF flag replaces the file's IDF source.
    if args.idf.is_some() || args.idf_corpus.is_some() {
        config.idf = args.idf;
        config.idf_corpus = args.idf_corpus;
    }
    for (flag, value) in [
        (&mut config.clip_model, args.clip_model),
        (&mut config.downstream, args.downstream),
        (&mut config.glove, args.glove),
        (&mut config.nsfw_model, args.nsfw_model),
    ] {
        if value.is_some() {
            *flag = value;
        }
    }
    score_stdin(config, http, fetch.max_image_bytes).await
}

/// `altflow hash`: a test-set line per image file.
pub fn hash(args: HashArgs) -> anyhow::Result<()> {
    for file in args.files {
        let (sha256, phash) = altflow::stages::dedup::hash_image_file(&file, args.max_side)
            .map_err(anyhow::Error::msg)?;
        println!("{sha256} {phash} {}", file.display());
    }
    Ok(())
}

/// `altflow idf build`.
pub fn idf(command: IdfCommand) -> anyhow::Result<()> {
    let IdfCommand::Build {
        corpus,
        out,
        min_df,
    } = command;
    let mut table = IdfTable::from_corpus(&corpus)?;
    table.prune(min_df);
    table.save(&out)?;
    println!(
        "{}: {} documents, {} words",
        out.display(),
        table.documents(),
        table.len()
    );
    Ok(())
}

/// `altflow score`: one JSON line out per JSON line in.
async fn score_stdin(
    config: altflow::config::ScoreConfig,
    http: altflow::config::HttpConfig,
    max_image_bytes: usize,
) -> anyhow::Result<()> {
    use altflow::score::{Item, Scorer};
    if config.clip_model.is_none()
        && config.glove.is_none()
        && config.downstream.is_none()
        && config.nsfw_model.is_none()
    {
        bail!(
            "nothing to score: give --clip-model, --glove, --nsfw-model or --downstream (with \
             --idf or --idf-corpus), or a --pipeline whose [score] table names them"
        );
    }
    let scorer = Scorer::from_config(&config)?;
    let web = altflow::web::Web::new(&http, "score")?;
    let runtime = tokio::runtime::Handle::current();
    let image = |value: &serde_json::Value| -> Result<Option<image::RgbImage>, String> {
        let bytes = if let Some(path) = value.get("image_path").and_then(|v| v.as_str()) {
            std::fs::read(path).map_err(|e| format!("image_path {path}: {e}"))?
        } else if let Some(url) = value.get("image_url").and_then(|v| v.as_str()) {
            // The crawler's HTTP rules (address guard, robots, size limit) hold here too.
            let fetched =
                tokio::task::block_in_place(|| runtime.block_on(web.get(url, max_image_bytes)));
            fetched
                .map_err(|e| format!("image_url {url}: {} {}", e.reason, e.detail))?
                .body
        } else {
            return Ok(None);
        };
        // As the fetch stage prepares images: upright by EXIF, transparency on white.
        let format = image::guess_format(&bytes).map_err(|e| format!("image: {e}"))?;
        // The image crate's default allocation limit: a hostile file is refused, not decoded.
        let decoded = altflow::imaging::Decoder::new(&bytes, format)
            .and_then(|decoder| decoder.decode_opaque(512 << 20))
            .map_err(|e| format!("image: {e}"))?;
        Ok(Some(image::DynamicImage::ImageRgba8(decoded).into_rgb8()))
    };
    answer_json_lines("text", |text, value| {
        let image = match image(value) {
            Ok(image) => image,
            Err(error) => return serde_json::json!({ "error": error }),
        };
        let labels: Vec<String> = value["labels"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|l| l.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let item = Item {
            text,
            image: image.as_ref(),
            labels: &labels,
        };
        match scorer.score(&[item]) {
            Err(error) => serde_json::json!({ "error": error.to_string() }),
            Ok(mut scores) => {
                let scores = scores.pop().expect("one item, one result");
                let mut out = serde_json::Map::new();
                for (name, value) in scores.values {
                    out.insert(name.into(), value.into());
                }
                if scorer.clip().is_some() || !labels.is_empty() {
                    out.insert("labels".into(), scores.labels.into());
                }
                serde_json::Value::Object(out)
            }
        }
    })
}
