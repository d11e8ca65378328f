//! The qgen stage on both buses: the same samples give the same questions on the embedded bus and
//! on Kafka (a real tansu broker started by the test setup), and a malformed record goes to the
//! dead-letter topic while the stage goes on. One partition, so that the stream-state (the zero-count
//! reservoir) sees the same order on both.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use altflow::app;
use altflow::bus::OutMessage;
use altflow::config::{Pipeline, StageName};
use altflow::record::{Candidate, DeadLetter, Record, Sample, sample_id};
use bytes::Bytes;
use tokio::sync::watch;

const CAPTIONS: &[&str] = &[
    "two dogs playing with a red ball in the snow",
    "a man riding a horse on a dirt road",
    "PERSON speaking at an event in LOC",
    "a bathroom with a toilet and a sink",
    "three people sitting at a table in a restaurant",
    "a cat on a bed",
];

fn pipeline(dir: &Path, brokers: Option<&str>) -> Pipeline {
    let bus = match brokers {
        Some(brokers) => format!(
            "kind = \"kafka\"\nbrokers = \"{brokers}\"\ngroup_prefix = \"{}\"\ncommit_interval = \"200ms\"",
            common::random_name("grp")
        ),
        None => "kind = \"embedded\"".to_string(),
    };
    let text = format!(
        "stages = [\"qgen\"]\n[bus]\n{bus}\npartitions = 1\n[topics]\nprefix = \"{}.\"\n\
         [write]\noutput = \"memory://\"\n",
        common::random_name("qgen")
    );
    let path = dir.join("p.toml");
    std::fs::write(&path, &text).unwrap();
    Pipeline::load(&path).unwrap()
}

/// Runs the qgen stage over the captions (and one malformed record) on the pipeline's bus; returns
/// each sample's questions and answers, and the dead letters' count.
async fn questions(pipeline: &Pipeline) -> (BTreeMap<String, Vec<String>>, usize) {
    let (bus, _) = app::open_bus(pipeline);
    app::create_topics(bus.as_ref(), pipeline).await.unwrap();
    let mut check = bus
        .consumer(
            &common::random_name("check"),
            &[pipeline.topic("samples"), pipeline.topic("dead_letter")],
        )
        .await
        .unwrap();
    let producer = bus.producer().unwrap();
    let consumer = app::stage_consumer(bus.as_ref(), pipeline, StageName::Qgen)
        .await
        .unwrap();
    let (stop, shutdown) = watch::channel(false);
    let task = app::spawn_stage(
        pipeline,
        StageName::Qgen,
        consumer,
        producer.clone(),
        shutdown,
    )
    .unwrap();
    let input: std::sync::Arc<str> = pipeline.input_topic(StageName::Qgen).unwrap().into();
    for (i, caption) in CAPTIONS.iter().enumerate() {
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
        if i == 2 {
            // A malformed record before the third caption: its own dead letter, nothing else lost.
            producer
                .send_all(vec![OutMessage {
                    topic: input.clone(),
                    key: Bytes::from_static(b"bad"),
                    payload: Bytes::from_static(b"\xff\xff\xff not a record"),
                }])
                .await
                .unwrap();
        }
        producer
            .send_all(vec![OutMessage {
                topic: input.clone(),
                key: Bytes::from(sample.id().to_string()),
                payload: Bytes::from(sample.to_bytes()),
            }])
            .await
            .unwrap();
    }
    let samples = pipeline.topic("samples");
    let mut out = BTreeMap::new();
    let mut dead = 0;
    let deadline = Instant::now() + Duration::from_secs(90);
    while out.len() < CAPTIONS.len() || dead < 1 {
        assert!(
            Instant::now() < deadline,
            "{} samples, {dead} dead letters",
            out.len()
        );
        for message in check.poll(100, Duration::from_millis(200)).await.unwrap() {
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
        }
    }
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
    check.close().await.unwrap();
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
