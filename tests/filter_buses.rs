//! Same input, same filter decisions on the embedded bus and on Kafka (a real tansu broker started by
//! the test setup): every candidate's outcome (accepted with its transformed caption, or rejected
//! with its reason code) is read back from the output topics of both runs and compared.
//!
//! The counting rules (rare words, boilerplate frequency) depend on the order a member sees
//! captions in. Within a partition that order is the bus's; across partitions it is not defined, so
//! the run over four partitions uses captions whose counts stay clear of the thresholds, and the run
//! where a word crosses its threshold mid-stream uses one partition.

mod common;

use altflow::config::{Pipeline, StageName};
use altflow::record::{Candidate, Record, Reject, sample_id};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::path::Path;

/// Captions of every kind the cc12m chain meets: kept ones, names to substitute, and each rule's
/// failures (language, length, POS, repetition, rare words, unwanted phrases).
const CAPTIONS: &[&str] = &[
    "a red boat on a calm blue lake at sunset",
    "the jellyfish is a beautiful creature",
    "Harrison Ford and Calista Flockhart at the party",
    "a portrait of Emma Watson in the garden",
    "Joe Biden Joined TikTok Because He Had To",
    "the Rose Garden at the White House",
    "une photo de la tour au bord de la mer",
    "boat",
    "running quickly and happily",
    "red boats on water",
    "a red dog and a red dog and a dog",
    "a qwxzvbn on the table",
    "click here for a larger image",
    "An employee signals a plane out of the gate at the airport on Tuesday.",
    "Donald Glover and Maya Erskine smiling while sitting on a park bench",
    "the old harbour with small boats in the morning",
    "Result of Desaturating the Background",
    "a close up of the leaves of a tree in the rain",
];

fn pipeline(dir: &Path, brokers: Option<&str>, partitions: u32) -> Pipeline {
    let text = format!(
        "stages = [\"filter\"]\n{}[topics]\nprefix = \"{}.\"\n[filter]\npreset = \"cc12m\"\n\
         [write]\noutput = \"memory://\"\n",
        common::bus_table(brokers, partitions),
        common::random_name("parity")
    );
    let path = dir.join("p.toml");
    std::fs::write(&path, &text).unwrap();
    Pipeline::load(&path).unwrap()
}

fn candidates(captions: &[&str]) -> Vec<Candidate> {
    captions
        .iter()
        .enumerate()
        .map(|(i, alt)| {
            let url = format!("http://img{}.example.com/{i}.jpg", i % 5);
            Candidate {
                id: sample_id(&url, alt),
                image_url: url,
                alt: alt.to_string(),
                ..Default::default()
            }
        })
        .collect()
}

/// Runs the filter stage over `candidates` on the pipeline's bus; returns each sample id's outcome.
async fn decisions(pipeline: &Pipeline, candidates: &[Candidate]) -> BTreeMap<String, String> {
    let inputs = candidates
        .iter()
        .map(|c| (Bytes::from(c.id.clone()), Bytes::from(c.to_bytes())))
        .collect();
    let accepted = pipeline.topic("accepted");
    let mut outcomes = BTreeMap::new();
    common::run_stage_alone(
        pipeline,
        StageName::Filter,
        inputs,
        &[accepted.clone(), pipeline.topic("rejects")],
        |message| {
            let (id, outcome) = if *message.topic == *accepted {
                let c = Candidate::from_bytes(&message.payload).unwrap();
                let caption = if c.caption.is_empty() {
                    c.alt
                } else {
                    c.caption
                };
                (c.id, format!("accept: {caption}"))
            } else {
                let r = Reject::from_bytes(&message.payload).unwrap();
                (r.id, format!("reject: {}", r.reason))
            };
            assert!(outcomes.insert(id.clone(), outcome).is_none(), "{id} twice");
            outcomes.len() == candidates.len()
        },
    )
    .await;
    outcomes
}

fn assert_same_on_both_buses(partitions: u32, captions: &[&str]) -> BTreeMap<String, String> {
    let Some(brokers) = common::kafka_broker() else {
        return BTreeMap::new();
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let input = candidates(captions);
    let embedded = runtime.block_on(decisions(&pipeline(dir.path(), None, partitions), &input));
    let kafka = runtime.block_on(decisions(
        &pipeline(dir.path(), Some(&brokers), partitions),
        &input,
    ));
    assert_eq!(embedded.len(), input.len());
    assert_eq!(embedded, kafka);
    embedded
}

#[test]
fn stateless_decisions_match_across_four_partitions() {
    let outcomes = assert_same_on_both_buses(4, CAPTIONS);
    if outcomes.is_empty() {
        return;
    }
    let accepted: Vec<&String> = outcomes
        .values()
        .filter(|o| o.starts_with("accept"))
        .collect();
    assert!(
        accepted.contains(&&"accept: PERSON and PERSON at the party".to_string()),
        "{outcomes:#?}"
    );
    let kinds: std::collections::BTreeSet<&str> = outcomes
        .values()
        .filter_map(|o| o.strip_prefix("reject: "))
        .collect();
    for reason in [
        "language",
        "too_few_words",
        "no_noun",
        "no_determiner",
        "repetition",
        "rare_word",
        "unwanted_phrase",
    ] {
        assert!(kinds.contains(reason), "no {reason} in {outcomes:#?}");
    }
}

#[test]
fn a_word_crossing_the_rare_threshold_is_decided_alike_in_one_partition() {
    // "jabuticaba" is outside the vocabulary: cc12m calls it rare below 20 sightings.
    let captions = vec!["a jabuticaba on a wooden plate"; 25];
    let outcomes = assert_same_on_both_buses(1, &captions);
    if outcomes.is_empty() {
        return;
    }
    let accepted = outcomes
        .values()
        .filter(|o| o.starts_with("accept"))
        .count();
    assert_eq!(accepted, 25 - 19, "{outcomes:#?}");
}
