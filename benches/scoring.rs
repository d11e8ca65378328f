//! The scoring stage's models on CPU: CLIP image–text similarity with ViT-B/32-shaped random
//! weights (the real checkpoint's shapes and cost; no weights can be had here), one pair per
//! forward pass against 32 per pass, with glibc's default allocator settings and with the
//! altflow binary's, in one run.
//!
//!   cargo bench --bench scoring

use std::path::Path;

use altflow::score::clip::Clip;
use candle_core::{DType, Device};
use candle_nn::{VarBuilder, VarMap};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// The shapes of openai/clip-vit-base-patch32.
const VIT_B_32: &str = r#"{
  "projection_dim": 512,
  "text_config": {"hidden_size": 512, "intermediate_size": 2048, "num_hidden_layers": 12,
    "num_attention_heads": 8, "max_position_embeddings": 77, "vocab_size": 49408,
    "hidden_act": "quick_gelu", "eos_token_id": 49407},
  "vision_config": {"hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12,
    "num_attention_heads": 12, "image_size": 224, "patch_size": 32, "hidden_act": "quick_gelu"}
}"#;

const BATCH: usize = 32;

fn clip(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = root.join("tests/fixtures/clip/openai-tiny");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.json"), VIT_B_32).unwrap();
    for file in ["tokenizer.json", "preprocessor_config.json"] {
        std::fs::copy(fixture.join(file), dir.path().join(file)).unwrap();
    }
    let weights = VarMap::new();
    let vb = VarBuilder::from_varmap(&weights, DType::F32, &Device::Cpu);
    let model = Clip::with_weights(dir.path(), vb, "random ViT-B/32 weights").unwrap();

    // Training JPEGs as the fetch stage writes them (longer side 512), decoded.
    let photo = image::open(root.join("tests/fixtures/clip/photo.jpg"))
        .unwrap()
        .to_rgb8();
    let photo = altflow::imaging::resize(&photo, 512, 384);
    let images = vec![&photo; BATCH];
    let captions = [
        "three small boats with white sails in a quiet harbour",
        "a red and white striped lighthouse on a rocky coast",
        "colourful hot air balloons floating in a bright morning sky",
        "a smiling snowman with a carrot nose in a snowy garden",
    ];
    let texts: Vec<&str> = (0..BATCH).map(|i| captions[i % captions.len()]).collect();

    let mut group = c.benchmark_group("clip_vit_b32_cpu");
    group.sample_size(10);
    group.throughput(Throughput::Elements(BATCH as u64));
    // First with glibc's defaults, then as the altflow binary runs (it keeps freed buffers from
    // its first instruction): tensors of megabytes are allocated per operation, and by default each
    // is a fresh mapping whose pages the kernel faults in and zeroes.
    for (suffix, prepare) in [("", false), ("_kept_buffers", true)] {
        if prepare {
            altflow::stage::cpu::keep_freed_buffers();
        }
        group.bench_function(format!("batch_1{suffix}"), |b| {
            b.iter(|| {
                for (image, text) in images.iter().zip(&texts) {
                    model.similarities(&[image], &[text]).unwrap();
                }
            })
        });
        group.bench_function(format!("batch_32{suffix}"), |b| {
            b.iter(|| model.similarities(&images, &texts).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, clip);
criterion_main!(benches);
