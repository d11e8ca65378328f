//! altflow's CLIP (candle) against Hugging Face transformers on tiny random-weight checkpoints
//! with the real CLIP tokenizer (`scripts/make_clip_fixtures.py` wrote them and transformers'
//! outputs): OpenAI-style (quick_gelu, 224 px, 32 px patches) and OpenCLIP-style (gelu).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use altflow::score::clip::Clip;
use candle_core::{DType, Device, Tensor};

const FIXTURES: [&str; 2] = ["openai-tiny", "openclip-tiny"];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clip")
        .join(name)
}

struct Reference {
    tensors: HashMap<String, Tensor>,
    texts: Vec<String>,
    input_ids: Vec<Vec<u32>>,
}

fn reference(name: &str) -> Reference {
    let dir = fixture(name);
    let tensors = candle_core::safetensors::load(dir.join("reference.safetensors"), &Device::Cpu)
        .unwrap()
        .into_iter()
        .map(|(k, v)| (k, v.to_dtype(DType::F32).unwrap()))
        .collect();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("reference.json")).unwrap())
            .unwrap();
    Reference {
        tensors,
        texts: serde_json::from_value(json["texts"].clone()).unwrap(),
        input_ids: serde_json::from_value(json["input_ids"].clone()).unwrap(),
    }
}

fn rows(t: &Tensor) -> Vec<Vec<f32>> {
    t.to_vec2::<f32>().unwrap()
}

fn max_difference(a: &[Vec<f32>], b: &[Vec<f32>]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| {
            assert_eq!(x.len(), y.len());
            x.iter().zip(y).map(|(p, q)| (p - q).abs())
        })
        .fold(0.0, f32::max)
}

fn load(name: &str) -> Clip {
    Clip::load(&fixture(name), &Device::Cpu).unwrap()
}

#[test]
fn the_tokenizer_gives_transformers_ids() {
    let clip = load("openai-tiny");
    let r = reference("openai-tiny");
    for (text, ids) in r.texts.iter().zip(&r.input_ids) {
        assert_eq!(&clip.tokenize(text).unwrap(), ids, "{text:?}");
    }
    // The real vocabulary: "a photo of a cat" as OpenAI's tokenizer encodes it.
    assert_eq!(
        clip.tokenize("a photo of a cat").unwrap(),
        [49406, 320, 1125, 539, 320, 2368, 49407]
    );
    // Truncated to the 77 positions, still ending with the end token.
    let long = clip.tokenize(&"word ".repeat(200)).unwrap();
    assert_eq!(long.len(), 77);
    assert_eq!(long[76], 49407);
}

#[test]
fn text_embeddings_equal_transformers() {
    for name in FIXTURES {
        let clip = load(name);
        let r = reference(name);
        let texts: Vec<&str> = r.texts.iter().map(String::as_str).collect();
        // One batch, padded to the longest text: padding must not change any row.
        let batched = rows(&clip.embed_texts(&texts).unwrap());
        let expected = rows(&r.tensors["text_embeds"]);
        let difference = max_difference(&batched, &expected);
        eprintln!("{name}: text embeddings differ from transformers' by at most {difference:e}");
        assert!(
            difference < 1e-4,
            "{name}: batched texts differ by {difference}"
        );
        // The embeddings are not all alike (random weights that still tell texts apart).
        assert!(max_difference(&batched[..1], &batched[1..2]) > 0.05);
        for (i, text) in texts.iter().enumerate() {
            let alone = rows(&clip.embed_texts(&[text]).unwrap());
            let difference = max_difference(&alone, &expected[i..=i]);
            assert!(
                difference < 1e-4,
                "{name}: {text:?} differs by {difference}"
            );
        }
    }
}

#[test]
fn image_embeddings_from_pixels_equal_transformers() {
    for name in FIXTURES {
        let clip = load(name);
        let r = reference(name);
        let embeddings = rows(&clip.embed_pixels(&r.tensors["pixel_values"]).unwrap());
        let difference = max_difference(&embeddings, &rows(&r.tensors["image_embeds"]));
        eprintln!("{name}: image embeddings differ from transformers' by at most {difference:e}");
        assert!(difference < 1e-4, "{name}: images differ by {difference}");
        assert!(max_difference(&embeddings[..1], &embeddings[1..]) > 0.05);
    }
}

#[test]
fn a_jpeg_file_end_to_end_matches_transformers() {
    let photo = image::open(fixture("photo.jpg")).unwrap().to_rgb8();
    for name in FIXTURES {
        let clip = load(name);
        let r = reference(name);
        // Preprocessing alone: Pillow's and this resizer's bicubic, and two JPEG decoders, agree
        // to a few grey levels (1/255 is 0.015 after normalisation).
        let size = clip.image_size();
        let pixels = clip.preprocess(&photo);
        let expected = r.tensors["photo_pixel_values"]
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        assert_eq!(pixels.len(), 3 * size * size);
        let largest = pixels
            .iter()
            .zip(&expected)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        let mean_difference = pixels
            .iter()
            .zip(&expected)
            .map(|(a, b)| (a - b).abs())
            .sum::<f32>()
            / pixels.len() as f32;
        assert!(
            mean_difference < 0.02,
            "{name}: preprocessing differs by {mean_difference} on average"
        );
        let embedding = rows(&clip.embed_images(&[&photo]).unwrap());
        let difference = max_difference(&embedding, &rows(&r.tensors["photo_embeds"]));
        eprintln!(
            "{name}: JPEG input differs by {mean_difference:e} on average (at most {largest:e}); \
             its embedding by at most {difference:e}"
        );
        assert!(difference < 1e-2, "{name}: photo differs by {difference}");
        let texts: Vec<&str> = r.texts.iter().map(String::as_str).collect();
        let photos = vec![&photo; texts.len()];
        let similarities = clip.similarities(&photos, &texts).unwrap();
        let expected = r.tensors["photo_similarity"].to_vec2::<f32>().unwrap();
        for (i, s) in similarities.iter().enumerate() {
            assert!(
                (s - expected[0][i]).abs() < 1e-2,
                "{name}: similarity to {:?}: {s} vs {}",
                texts[i],
                expected[0][i]
            );
        }
        let scale = r.tensors["logit_scale"].to_vec1::<f32>().unwrap()[0];
        assert!((clip.logit_scale() - scale).abs() < 1e-3);
    }
}

#[test]
fn broken_checkpoints_fail_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("openclip-tiny");
    for file in ["config.json", "preprocessor_config.json", "tokenizer.json"] {
        std::fs::copy(source.join(file), dir.path().join(file)).unwrap();
    }
    let error = Clip::load(dir.path(), &Device::Cpu)
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("model.safetensors"), "{error}");

    std::fs::copy(
        source.join("model.safetensors"),
        dir.path().join("model.safetensors"),
    )
    .unwrap();
    let config = std::fs::read_to_string(source.join("config.json")).unwrap();
    std::fs::write(
        dir.path().join("config.json"),
        config.replace("\"gelu\"", "\"swish\""),
    )
    .unwrap();
    let error = Clip::load(dir.path(), &Device::Cpu)
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.contains("config.json") && error.contains("swish"),
        "{error}"
    );

    // A checkpoint whose shapes disagree with its config names the weights file.
    std::fs::write(
        dir.path().join("config.json"),
        config.replace("\"hidden_size\": 16", "\"hidden_size\": 24"),
    )
    .unwrap();
    let error = Clip::load(dir.path(), &Device::Cpu)
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("model.safetensors"), "{error}");
}

#[test]
fn devices_are_checked_by_name() {
    assert!(matches!(
        altflow::score::clip::device("cpu").unwrap(),
        Device::Cpu
    ));
    for (name, expected) in [
        ("tpu", "unknown device `tpu`"),
        ("cuda:x", "not a device number"),
    ] {
        let error = altflow::score::clip::device(name)
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains(expected), "{name}: {error}");
    }
    if !cfg!(feature = "cuda") {
        let error = altflow::score::clip::device("cuda")
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("--features cuda"), "{error}");
    }
}
