//! The qgen stage on both buses: the same samples give the same questions on the embedded bus and
//! on Kafka (a real tansu broker started by the test setup), and a malformed record goes to the
//! dead-letter topic while the stage goes on. One partition, so that the stream-state (the zero-count
//! reservoir) sees the same order on both.

mod common;

use altflow::config::{Pipeline, StageName};
use altflow::record::{Candidate, DeadLetter, Record, Sample, sample_id};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::path::Path;

const CAPTIONS: &[&str] = &[
    "two dogs playing with a red ball in the snow",
    "a man riding a horse on a dirt road",
    "PERSON speaking at an event in LOC",
    "a bathroom with a toilet and a sink",
    "three people sitting at a table in a restaurant",
    "a cat on a bed",
];

fn pipeline(dir: &Path, brokers: Option<&str>) -> Pipeline {
    let text = format!(
        "stages = [\"qgen\"]\n{}[topics]\nprefix = \"{}.\"\n[write]\noutput = \"memory://\"\n",
        common::bus_table(brokers, 1),
        common::random_name("qgen")
    );
    let path = dir.join("p.toml");
    std::fs::write(&path, &text).unwrap();
    Pipeline::load(&path).unwrap()
}

/// Runs the qgen stage over the captions (and one malformed record) on the pipeline's bus; returns
/// each sample's questions and answers, and the dead letters' count.
async fn questions(pipeline: &Pipeline) -> (BTreeMap<String, Vec<String>>, usize) {
    let mut inputs = Vec::new();
    for (i, caption) in CAPTIONS.iter().enumerate() {
        if i == 2 {
            // A malformed record before the third caption: its own dead letter, nothing else lost.
            inputs.push((
                Bytes::from_static(b"bad"),
                Bytes::from_static(b"\xff\xff\xff not a record"),
            ));
        }
        let url = format!("http://img.example.com/{i}.jpg");
        let sample = Sample {
            candidate: Some(Candidate {
                id: sample_id(&url, caption),
                image_url: url,
                alt: caption.to_string(),
                ..Default::default()
            }),
            ..Default::default()
        };
        inputs.push((
            Bytes::from(sample.id().to_string()),
            Bytes::from(sample.to_bytes()),
        ));
    }
    let samples = pipeline.topic("samples");
    let mut out = BTreeMap::new();
    let mut dead = 0;
    common::run_stage_alone(
        pipeline,
        StageName::Qgen,
        inputs,
        &[samples.clone(), pipeline.topic("dead_letter")],
        |message| {
            if *message.topic == *samples {
                let s = Sample::from_bytes(&message.payload).unwrap();
                let qa = s
                    .qa
                    .iter()
                    .map(|q| format!("{} {} {} {}", q.question, q.answer, q.answer_type, q.source))
                    .collect();
                assert!(out.insert(s.id().to_string(), qa).is_none(), "twice");
            } else {
                let d = DeadLetter::from_bytes(&message.payload).unwrap();
                assert_eq!(d.stage, "qgen");
                dead += 1;
            }
            out.len() == CAPTIONS.len() && dead >= 1
        },
    )
    .await;
    (out, dead)
}

#[test]
fn the_same_questions_on_both_buses() {
    let Some(brokers) = common::kafka_broker() else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (embedded, dead) = runtime.block_on(questions(&pipeline(dir.path(), None)));
    assert_eq!((embedded.len(), dead), (CAPTIONS.len(), 1));
    assert!(embedded.values().all(|qa| !qa.is_empty()), "{embedded:#?}");
    // Zero counts were borrowed within the stream.
    assert!(
        embedded
            .values()
            .flatten()
            .any(|q| q.contains("how_many_zero"))
    );
    let (kafka, dead) = runtime.block_on(questions(&pipeline(dir.path(), Some(&brokers))));
    assert_eq!(dead, 1);
    assert_eq!(embedded, kafka);
}
