//! The stage runner on the embedded bus: outputs, rejections with reason codes, dead letters for
//! undecodable input (the stage goes on), metrics, and a clean stop.

use std::sync::Arc;
use std::time::{Duration, Instant};

use altflow::bus::embedded::EmbeddedBus;
use altflow::bus::{Bus, Consumer, OutMessage, TopicSpec};
use altflow::config::FilterConfig;
use altflow::record::{Candidate, DeadLetter, Record, Reject, sample_id};
use altflow::stage::runner::{RunnerSettings, run_stage};
use altflow::stages::filter::FilterStage;
use bytes::Bytes;
use tokio::sync::watch;

fn candidate(alt: &str) -> Candidate {
    let url = format!("http://example.com/{}.jpg", alt.len());
    Candidate {
        id: sample_id(&url, alt),
        image_url: url,
        alt: alt.into(),
        ..Default::default()
    }
}

async fn drain(consumer: &mut dyn Consumer, want: usize) -> Vec<Bytes> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut got = Vec::new();
    while got.len() < want && Instant::now() < deadline {
        got.extend(
            consumer
                .poll(100, Duration::from_millis(100))
                .await
                .unwrap()
                .into_iter()
                .map(|m| m.payload),
        );
    }
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_input_goes_to_dead_letter_and_the_stage_goes_on() {
    let bus = EmbeddedBus::new(64);
    let topics = ["in", "accepted", "rejects", "dead"];
    bus.create_topics(
        &topics
            .iter()
            .map(|t| TopicSpec {
                name: t.to_string(),
                partitions: 2,
            })
            .collect::<Vec<_>>(),
    )
    .await
    .unwrap();
    let mut accepted = bus.consumer("check", &["accepted".into()]).await.unwrap();
    let mut rejects = bus.consumer("check", &["rejects".into()]).await.unwrap();
    let mut dead = bus.consumer("check", &["dead".into()]).await.unwrap();

    let settings = RunnerSettings {
        stage: "filter",
        rejects_topic: Arc::from("rejects"),
        retry_topic: Arc::from("retry"),
        dead_letter_topic: Arc::from("dead"),
        batch_size: 2,
        poll_timeout: Duration::from_millis(50),
    };
    let stage = FilterStage::new(
        FilterConfig::default().rules().unwrap(),
        Arc::from("accepted"),
    );
    let (stop, shutdown) = watch::channel(false);
    let input = bus.consumer("filter", &["in".into()]).await.unwrap();
    let task = tokio::spawn(run_stage(
        stage,
        input,
        bus.producer().unwrap(),
        settings,
        shutdown,
    ));

    let garbage = Bytes::from_static(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
    let good = candidate("a red boat on a lake");
    let short = candidate("two words");
    let message = |payload: Bytes| OutMessage {
        topic: Arc::from("in"),
        key: Bytes::from_static(b"same-key"),
        payload,
    };
    bus.producer()
        .unwrap()
        .send_all(vec![
            message(garbage.clone()),
            message(good.to_bytes().into()),
            message(short.to_bytes().into()),
        ])
        .await
        .unwrap();

    let out = drain(accepted.as_mut(), 1).await;
    assert_eq!(
        Candidate::from_bytes(&out[0]).unwrap(),
        good,
        "the record after the bad one passed"
    );
    let rejected = Reject::from_bytes(&drain(rejects.as_mut(), 1).await[0]).unwrap();
    assert_eq!(
        (
            rejected.stage.as_str(),
            rejected.reason.as_str(),
            rejected.id.as_str()
        ),
        ("filter", "too_few_words", short.id.as_str())
    );
    let letter = DeadLetter::from_bytes(&drain(dead.as_mut(), 1).await[0]).unwrap();
    assert_eq!(
        letter.payload,
        garbage.to_vec(),
        "the bad payload is kept whole"
    );
    assert_eq!(
        (letter.stage.as_str(), letter.topic.as_str(), letter.offset),
        ("filter", "in", 0)
    );
    assert!(letter.error.contains("candidate"), "{}", letter.error);

    let deadline = Instant::now() + Duration::from_secs(5);
    // The checker groups only read; the filter's group must have committed everything.
    while bus.outstanding(&["check".into()]) > 0 {
        assert!(
            Instant::now() < deadline,
            "filter never committed its input"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    stop.send(true).unwrap();
    task.await.unwrap().unwrap();

    let totals = altflow::metrics::totals("filter");
    assert_eq!((totals.records_in, totals.records_out), (3, 1));
    assert_eq!(totals.rejected.get("too_few_words"), Some(&1));
    assert_eq!(totals.rejected.get("malformed"), Some(&1));

    let addr = altflow::web::serve::serve_metrics("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let body = reqwest::get(format!("http://{addr}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        body.contains("altflow_records_in_total{stage=\"filter\"} 3"),
        "{body}"
    );
    assert!(
        body.contains("altflow_rejected_total{reason=\"too_few_words\",stage=\"filter\"} 1"),
        "{body}"
    );
    assert!(
        body.contains("altflow_batch_processing_seconds_bucket"),
        "{body}"
    );
}
