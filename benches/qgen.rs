//! Question generation, on one core:
//! - `rules`: the whole rule-based path per caption (reading the caption, parse, candidates,
//!   questions, lexical round trip, zero-count reservoir) over the 120 captions of
//!   examples/qgen/captions.txt, in captions per second; and over the 38 alt texts of
//!   examples/qgen/web_style.txt (wire captions with datelines and credits, headlines, calls to
//!   action), most of which the gate reads as no description.
//!
//! - `t5_small`: the model path with T5-small-shaped random weights (6 + 6 layers, d_model 512, 8
//!   heads, vocabulary 32,128) for both question generation and the round trip's QA, greedy, 16 new
//!   tokens at most (random weights rarely write the end token, so every output is 16 tokens: the
//!   worst case), on the CPU: Q/A checked per second with prompts run one at a time and 16 at a
//!   time, side by side. Needs the model: `python scripts/make_t5_fixtures.py --small
//!   /tmp/t5-small` (or `ALTFLOW_T5_SMALL=DIR`); skipped without it.
//!
//! Run: `cargo bench --bench qgen`. Figures are quoted in docs/performance.md.

use std::hint::black_box;

use altflow::qgen::{Generator, Settings};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// The lines of an examples/qgen file, without comments; the part after a tab, if any.
fn captions_of(name: &str) -> Vec<String> {
    let path = format!("{}/examples/qgen/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .expect(name)
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_once('\t').map_or(l, |(_, c)| c).to_string())
        .collect()
}

fn rules(c: &mut Criterion) {
    for (name, file) in [
        ("rules_120_captions", "captions.txt"),
        ("rules_web_style", "web_style.txt"),
    ] {
        let captions = captions_of(file);
        let mut group = c.benchmark_group("qgen");
        group.throughput(Throughput::Elements(captions.len() as u64));
        // One generator for all iterations: its reservoir fills as in a long stream.
        let mut generator = Generator::new(Settings::default());
        group.bench_function(name, |b| {
            b.iter(|| {
                generator
                    .generate_batch(black_box(&captions))
                    .expect("rules cannot fail")
                    .len()
            })
        });
        group.finish();
    }
}

/// Reading a caption alone (first sentence, credits, dates, the description gate), the share of
/// the rules' time that issue 29 added.
fn read_captions(c: &mut Criterion) {
    let captions = captions_of("captions.txt");
    let mut group = c.benchmark_group("qgen");
    group.throughput(Throughput::Elements(captions.len() as u64));
    group.bench_function("read_120_captions", |b| {
        b.iter(|| {
            black_box(&captions)
                .iter()
                .filter(|c| altflow::qgen::caption::read(c).not_description.is_none())
                .count()
        })
    });
    group.finish();
}

fn t5_small(c: &mut Criterion) {
    let dir = std::env::var("ALTFLOW_T5_SMALL").unwrap_or_else(|_| "/tmp/t5-small".into());
    if !std::path::Path::new(&dir)
        .join("model.safetensors")
        .is_file()
    {
        eprintln!("t5_small: no model in {dir}; see the bench's doc to make one");
        return;
    }
    let caption = vec!["two dogs playing with a red ball in the snow".to_string()];
    let mut group = c.benchmark_group("qgen_t5_small");
    group.sample_size(10);
    for batch_size in [1, 16] {
        let config = altflow::config::QgenConfig {
            qg_model: Some(dir.clone().into()),
            qa_model: Some(dir.clone().into()),
            // 3 questions: 6 span candidates and yes/no, 8 prompts for each model.
            max_questions: 3,
            max_new_tokens: 16,
            batch_size,
            ..Default::default()
        };
        let mut generator = Generator::from_config(&config).expect("the T5-small model loads");
        let proposed = generator.generate_batch(&caption).unwrap()[0].proposed;
        group.throughput(Throughput::Elements(proposed as u64));
        group.bench_function(format!("qg_and_qa_batch_{batch_size}"), |b| {
            b.iter(|| generator.generate_batch(black_box(&caption)).unwrap().len())
        });
    }
    group.finish();
}

criterion_group!(benches, rules, read_captions, t5_small);
criterion_main!(benches);
