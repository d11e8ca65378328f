//! The stage runner on the embedded bus: outputs, rejections with reason codes, dead letters for
//! undecodable input (the stage goes on), metrics, and a clean stop.

use std::sync::Arc;
use std::time::{Duration, Instant};

use altflow::bus::embedded::EmbeddedBus;
use altflow::bus::{Bus, Consumer, OutMessage, TopicSpec};
use altflow::config::FilterConfig;
use altflow::record::{Candidate, DeadLetter, Record, Reject, sample_id};
use altflow::stage::pipelined::run_pipelined;
use altflow::stage::runner::{RunnerSettings, run_stage};
use altflow::stage::{Emitter, Input, Pipelined, Stage, StageError, Work, isolate_batch};
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

/// The runner's settings for `stage` in these tests: topics `rejects`, `retry` and `dead`, polls of
/// 50 ms, a drain of up to 30 s.
fn settings(stage: &'static str, batch_size: usize) -> RunnerSettings {
    RunnerSettings {
        stage,
        rejects_topic: Arc::from("rejects"),
        retry_topic: Arc::from("retry"),
        dead_letter_topic: Arc::from("dead"),
        batch_size,
        poll_timeout: Duration::from_millis(50),
        drain_timeout: Duration::from_secs(30),
    }
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

    let settings = settings("filter", 2);
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

/// An embedded bus with topics `in`, `echoed`, `rejects`, `retry` and `dead` of one partition each.
async fn one_partition_bus() -> EmbeddedBus {
    let bus = EmbeddedBus::new(1024);
    let specs: Vec<TopicSpec> = ["in", "echoed", "rejects", "retry", "dead"]
        .iter()
        .map(|t| TopicSpec {
            name: t.to_string(),
            partitions: 1,
        })
        .collect();
    bus.create_topics(&specs).await.unwrap();
    bus
}

/// Echoes each candidate after a delay that depends on its caption, so records finish out of order;
/// the caption "hold" waits until released.
struct Echo {
    release: Arc<tokio::sync::Notify>,
}

impl Pipelined for Echo {
    type Input = Candidate;
    type Done = Candidate;

    fn admit(&mut self, input: Input<Candidate>, _out: &mut Emitter) -> Option<Work<Candidate>> {
        let release = self.release.clone();
        let record = input.record;
        Some(Box::pin(async move {
            if record.alt == "hold" {
                release.notified().await;
            } else {
                let delay = (record.alt.len() as u64 * 37) % 11 * 10;
                tokio::time::sleep(Duration::from_millis(delay)).await;
            }
            record
        }))
    }

    fn complete(&mut self, done: Candidate, out: &mut Emitter) -> Result<(), StageError> {
        out.emit(&Arc::from("echoed"), &done.id, &done);
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_records_finish_out_of_order_and_offsets_wait_for_the_slowest() {
    let bus = one_partition_bus().await;
    let mut echoed = bus.consumer("check", &["echoed".into()]).await.unwrap();
    let mut dead = bus.consumer("check", &["dead".into()]).await.unwrap();
    let settings = settings("echo", 4);
    let release = Arc::new(tokio::sync::Notify::new());
    let stage = Echo {
        release: release.clone(),
    };
    let (stop, shutdown) = watch::channel(false);
    let input = bus.consumer("echo", &["in".into()]).await.unwrap();
    let task = tokio::spawn(run_pipelined(
        stage,
        input,
        bus.producer().unwrap(),
        settings,
        16,
        shutdown,
    ));

    // The first record is held; then a malformed one; then 40 that finish in a shuffled order.
    let alts: Vec<String> = (0..40)
        .map(|i| format!("caption {}", "x".repeat(i)))
        .collect();
    let mut payloads: Vec<Bytes> = vec![
        candidate("hold").to_bytes().into(),
        Bytes::from_static(&[0xff, 0xff, 0xff, 0xff, 0x0f]),
    ];
    payloads.extend(alts.iter().map(|a| Bytes::from(candidate(a).to_bytes())));
    let messages = payloads
        .into_iter()
        .map(|payload| OutMessage {
            topic: Arc::from("in"),
            key: Bytes::from_static(b"k"),
            payload,
        })
        .collect();
    bus.producer().unwrap().send_all(messages).await.unwrap();

    // Everything but the held record comes out, more than the 16 in flight: polling went on.
    let out: Vec<String> = drain(echoed.as_mut(), 40)
        .await
        .iter()
        .map(|b| Candidate::from_bytes(b).unwrap().alt)
        .collect();
    assert_eq!(out.len(), 40);
    assert_ne!(out, alts, "finished out of order");
    let mut sorted = out.clone();
    sorted.sort();
    let mut want = alts.clone();
    want.sort();
    assert_eq!(sorted, want);
    assert_eq!(drain(dead.as_mut(), 1).await.len(), 1);
    // Nothing is committed past the held record: its offset (0) is the group's position.
    assert_eq!(bus.outstanding(&["check".into()]), 42);

    release.notify_one();
    let held = drain(echoed.as_mut(), 1).await;
    assert_eq!(Candidate::from_bytes(&held[0]).unwrap().alt, "hold");
    let deadline = Instant::now() + Duration::from_secs(5);
    while bus.outstanding(&["check".into()]) > 0 {
        assert!(Instant::now() < deadline, "the echo stage never committed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
}

/// A pipelined stage whose work per caption is scripted: "boom" panics, "hold" never finishes,
/// "slow" takes 300 ms, anything else finishes at once. Counts the records it admitted.
struct Scripted {
    admitted: Arc<std::sync::atomic::AtomicUsize>,
}

impl Pipelined for Scripted {
    type Input = Candidate;
    type Done = Candidate;

    fn admit(&mut self, input: Input<Candidate>, _out: &mut Emitter) -> Option<Work<Candidate>> {
        self.admitted
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let record = input.record;
        Some(Box::pin(async move {
            match record.alt.as_str() {
                "boom" => panic!("no way to handle {}", record.image_url),
                "hold" => std::future::pending::<()>().await,
                "slow" => tokio::time::sleep(Duration::from_millis(300)).await,
                _ => {}
            }
            record
        }))
    }

    fn complete(&mut self, done: Candidate, out: &mut Emitter) -> Result<(), StageError> {
        out.emit(&Arc::from("echoed"), &done.id, &done);
        Ok(())
    }
}

/// A [`Scripted`] stage running on topics `in`, `echoed`, `rejects`, `retry` and `dead` of one
/// partition, waiting `drain_timeout` for its records on shutdown: the bus, the stage's count of
/// admitted records, its stop signal and its task.
async fn start_scripted(
    drain_timeout: Duration,
) -> (
    EmbeddedBus,
    Arc<std::sync::atomic::AtomicUsize>,
    watch::Sender<bool>,
    tokio::task::JoinHandle<Result<(), StageError>>,
) {
    let bus = one_partition_bus().await;
    let settings = RunnerSettings {
        drain_timeout,
        ..settings("scripted", 16)
    };
    let admitted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let stage = Scripted {
        admitted: admitted.clone(),
    };
    let (stop, shutdown) = watch::channel(false);
    let input = bus.consumer("scripted", &["in".into()]).await.unwrap();
    let task = tokio::spawn(run_pipelined(
        stage,
        input,
        bus.producer().unwrap(),
        settings,
        16,
        shutdown,
    ));
    (bus, admitted, stop, task)
}

async fn send_captions(bus: &EmbeddedBus, alts: &[&str]) {
    let messages = alts
        .iter()
        .enumerate()
        .map(|(n, alt)| {
            let mut record = candidate(alt);
            record.image_url = format!("http://example.com/{n}.jpg");
            OutMessage {
                topic: Arc::from("in"),
                key: Bytes::from_static(b"k"),
                payload: Bytes::from(record.to_bytes()),
            }
        })
        .collect();
    bus.producer().unwrap().send_all(messages).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_whose_work_panics_is_dead_lettered_and_the_stage_goes_on() {
    let (bus, _, stop, task) = start_scripted(Duration::from_secs(5)).await;
    let mut echoed = bus.consumer("check", &["echoed".into()]).await.unwrap();
    let mut dead = bus.consumer("check", &["dead".into()]).await.unwrap();
    send_captions(&bus, &["a", "boom", "b"]).await;

    let out: Vec<String> = drain(echoed.as_mut(), 2)
        .await
        .iter()
        .map(|b| Candidate::from_bytes(b).unwrap().alt)
        .collect();
    assert_eq!(out.len(), 2, "{out:?}");
    let letters = drain(dead.as_mut(), 1).await;
    assert_eq!(letters.len(), 1);
    let letter = DeadLetter::from_bytes(&letters[0]).unwrap();
    assert_eq!(letter.offset, 1);
    assert!(
        letter.error.contains("panicked") && letter.error.contains("http://example.com/1.jpg"),
        "{}",
        letter.error
    );
    assert_eq!(Candidate::from_bytes(&letter.payload).unwrap().alt, "boom");
    // The stage is still running, and committed past the poisoned record.
    assert!(!task.is_finished());
    let deadline = Instant::now() + Duration::from_secs(5);
    while bus.outstanding(&["check".into()]) > 0 {
        assert!(Instant::now() < deadline, "the stage never committed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
}

/// A batch stage whose work on a whole batch of captions panics if any caption is "boom" (as a
/// batched model fails on one bad input), run through `isolate_batch` as the qgen stage runs it.
struct Batched;

#[async_trait::async_trait]
impl Stage for Batched {
    type Input = Candidate;

    async fn process(
        &mut self,
        batch: Vec<Input<Candidate>>,
        out: &mut Emitter,
    ) -> Result<(), StageError> {
        let alts: Vec<&str> = batch.iter().map(|i| i.record.alt.as_str()).collect();
        let done = isolate_batch(&alts, |alts| {
            if let Some(at) = alts.iter().position(|a| *a == "boom") {
                panic!("caption {at} of {} is poison", alts.len());
            }
            Ok::<_, StageError>(alts.iter().map(|a| a.to_uppercase()).collect::<Vec<_>>())
        })?;
        for (input, upper) in batch.into_iter().zip(done) {
            match upper {
                Ok(upper) => {
                    let mut record = input.record;
                    record.alt = upper;
                    out.emit(&Arc::from("echoed"), &record.id, &record);
                }
                Err(panic) => out.panicked(&input, &panic),
            }
        }
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_that_panics_a_batch_stage_is_dead_lettered_and_its_batch_goes_on() {
    let bus = one_partition_bus().await;
    let mut echoed = bus.consumer("check", &["echoed".into()]).await.unwrap();
    let mut dead = bus.consumer("check", &["dead".into()]).await.unwrap();
    // One batch holds all three: the poison is in the middle of it.
    send_captions(&bus, &["a", "boom", "b"]).await;
    let (stop, shutdown) = watch::channel(false);
    let input = bus.consumer("batched", &["in".into()]).await.unwrap();
    let task = tokio::spawn(run_stage(
        Batched,
        input,
        bus.producer().unwrap(),
        settings("batched", 16),
        shutdown,
    ));

    let mut out: Vec<String> = drain(echoed.as_mut(), 2)
        .await
        .iter()
        .map(|b| Candidate::from_bytes(b).unwrap().alt)
        .collect();
    out.sort();
    assert_eq!(out, ["A", "B"]);
    let letters = drain(dead.as_mut(), 1).await;
    assert_eq!(letters.len(), 1);
    let letter = DeadLetter::from_bytes(&letters[0]).unwrap();
    assert_eq!((letter.stage.as_str(), letter.offset), ("batched", 1));
    assert!(
        letter.error.contains("panicked: caption 0 of 1 is poison"),
        "the panic of the record alone: {}",
        letter.error
    );
    assert_eq!(Candidate::from_bytes(&letter.payload).unwrap().alt, "boom");
    assert!(!task.is_finished());
    let deadline = Instant::now() + Duration::from_secs(5);
    while bus.outstanding(&["check".into()]) > 0 {
        assert!(Instant::now() < deadline, "the stage never committed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
    assert_eq!(
        altflow::metrics::totals("batched").rejected.get("panicked"),
        Some(&1)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drain_that_times_out_commits_what_finished() {
    let (bus, admitted, stop, task) = start_scripted(Duration::from_secs(2)).await;
    // Ten records that finish during the drain, then one that never does.
    let mut alts = vec!["slow"; 10];
    alts.push("hold");
    send_captions(&bus, &alts).await;
    let deadline = Instant::now() + Duration::from_secs(5);
    while admitted.load(std::sync::atomic::Ordering::SeqCst) < alts.len() {
        assert!(Instant::now() < deadline, "the stage never took its input");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    stop.send(true).unwrap();
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .expect("the drain gave up on the record that never finishes")
        .unwrap()
        .unwrap();
    // The next member of the group replays only the record that never finished.
    let mut next = bus.consumer("scripted", &["in".into()]).await.unwrap();
    let replayed = next.poll(100, Duration::from_millis(500)).await.unwrap();
    let offsets: Vec<i64> = replayed.iter().map(|m| m.offset).collect();
    assert_eq!(offsets, [10]);
}
