//! Question generation, on one core:
//! - `rules`: the whole rule-based path per caption (parse, candidates, questions, lexical round
//!   trip, zero-count reservoir) over the 120 captions of examples/qgen/captions.txt, in captions
//!   per second.
//!
//! Run: `cargo bench --bench qgen`. Figures are quoted in README.md.

use std::hint::black_box;

use altflow::qgen::{Generator, Settings};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn captions() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/qgen/captions.txt");
    std::fs::read_to_string(path)
        .expect("examples/qgen/captions.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

fn rules(c: &mut Criterion) {
    let captions = captions();
    let mut group = c.benchmark_group("qgen");
    group.throughput(Throughput::Elements(captions.len() as u64));
    // One generator for all iterations: its reservoir fills as in a long stream.
    let mut generator = Generator::new(Settings::default());
    group.bench_function("rules_120_captions", |b| {
        b.iter(|| {
            generator
                .generate_batch(black_box(&captions))
                .expect("rules cannot fail")
                .len()
        })
    });
    group.finish();
}

criterion_group!(benches, rules);
criterion_main!(benches);
