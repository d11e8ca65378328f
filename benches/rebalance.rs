//! How long a rebalance stops a consumer group, eager against cooperative assignment, on a real
//! Kafka-protocol broker (tansu, started as the tests start it; `ALTFLOW_TANSU` or `.tools/bin/tansu`).
//!
//!   cargo bench --bench rebalance            # 3 rounds of each strategy, interleaved
//!
//! (The broker's timing dominates, so a dev-profile build measures the same:
//! `cargo test --bench rebalance --no-run`, then run the printed binary with `--bench`.)
//!
//! A producer writes a steady stream over 12 partitions; member A reads it. Then member B joins the
//! group, and later leaves it. For each event the figure is A's pause: the longest time between two
//! of A's deliveries from the event until the group has settled (B reading, or A alone again)
//! plus 3 s. A steady stream gives A a delivery every few milliseconds, so a pause is the time A's
//! partitions were taken from it.

#[path = "../tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use altflow::bus::kafka::{KafkaBus, KafkaSettings};
use altflow::bus::{Bus, Consumer, OutMessage, TopicSpec};

const PARTITIONS: i32 = 12;
const ROUNDS: usize = 3;

/// The tests' settings (quick to notice a member come or go), with `strategy` for assignment.
fn settings(brokers: &str, strategy: &str) -> KafkaSettings {
    let mut settings = common::kafka_settings(brokers);
    for (key, value) in [
        ("partition.assignment.strategy", strategy),
        ("heartbeat.interval.ms", "500"),
        ("fetch.wait.max.ms", "50"),
    ] {
        settings.consumer_options.insert(key.into(), value.into());
    }
    settings
}

/// Polls `consumer` until `stop`, storing offsets as a stage does, and returns when each
/// delivery came.
async fn read(mut consumer: Box<dyn Consumer>, stop: Arc<AtomicBool>) -> Vec<Instant> {
    let mut deliveries = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let messages = consumer.poll(500, Duration::from_millis(20)).await.unwrap();
        if !messages.is_empty() {
            deliveries.push(Instant::now());
        }
        for m in messages {
            consumer
                .store_offset(&m.topic, m.partition, m.offset + 1)
                .unwrap();
        }
    }
    consumer.close().await.unwrap();
    deliveries
}

/// The longest time without a delivery within `from..to`.
fn pause(deliveries: &[Instant], from: Instant, to: Instant) -> Duration {
    let mut last = from;
    let mut longest = Duration::ZERO;
    for &at in deliveries.iter().filter(|&&t| t > from && t < to) {
        longest = longest.max(at - last);
        last = at;
    }
    longest.max(to.saturating_duration_since(last))
}

/// One round: B joins, then leaves. Returns A's pauses (join, leave).
async fn round(brokers: &str, strategy: &str) -> (Duration, Duration) {
    let bus = KafkaBus::new(settings(brokers, strategy));
    let topic = format!("rebalance-{strategy}-{}", unique());
    bus.create_topics(&[TopicSpec {
        name: topic.clone(),
        partitions: PARTITIONS,
    }])
    .await
    .unwrap();
    let group = format!("{topic}-group");
    let stop = Arc::new(AtomicBool::new(false));

    // The stream: 50 messages every 10 ms, spread over every partition.
    let producer = bus.producer().unwrap();
    let producing = {
        let (stop, topic) = (stop.clone(), topic.clone());
        tokio::spawn(async move {
            let mut n: u64 = 0;
            while !stop.load(Ordering::Relaxed) {
                let batch = (0..50)
                    .map(|_| {
                        n += 1;
                        OutMessage {
                            topic: topic.as_str().into(),
                            key: n.to_string().into_bytes().into(),
                            payload: vec![0u8; 200].into(),
                        }
                    })
                    .collect();
                producer.send_all(batch).await.unwrap();
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    };
    let a = bus
        .consumer(&group, std::slice::from_ref(&topic))
        .await
        .unwrap();
    let a_stop = Arc::new(AtomicBool::new(false));
    let a_task = tokio::spawn(read(a, a_stop.clone()));
    // A alone owns everything and reads steadily.
    tokio::time::sleep(Duration::from_secs(10)).await;

    let joined = Instant::now();
    let b = bus
        .consumer(&group, std::slice::from_ref(&topic))
        .await
        .unwrap();
    let b_stop = Arc::new(AtomicBool::new(false));
    let b_task = tokio::spawn(read(b, b_stop.clone()));
    tokio::time::sleep(Duration::from_secs(15)).await;
    let left = Instant::now();
    b_stop.store(true, Ordering::Relaxed);
    let b_deliveries = b_task.await.unwrap();
    tokio::time::sleep(Duration::from_secs(15)).await;
    a_stop.store(true, Ordering::Relaxed);
    let a_deliveries = a_task.await.unwrap();
    stop.store(true, Ordering::Relaxed);
    producing.await.unwrap();

    let settled = b_deliveries.first().copied().unwrap_or(left);
    let join_pause = pause(
        &a_deliveries,
        joined,
        settled.max(joined) + Duration::from_secs(3),
    );
    let leave_pause = pause(&a_deliveries, left, left + Duration::from_secs(12));
    eprintln!(
        "  {strategy}: B's first delivery {:.2} s after it joined; A paused {:.2} s on the join, {:.2} s on the leave",
        settled.saturating_duration_since(joined).as_secs_f64(),
        join_pause.as_secs_f64(),
        leave_pause.as_secs_f64()
    );
    (join_pause, leave_pause)
}

/// Nanoseconds since the epoch: a fresh topic and group per round.
fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

fn median(mut values: Vec<Duration>) -> f64 {
    values.sort();
    values[values.len() / 2].as_secs_f64()
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this binary without it, and
    // a measurement minutes long has no place there.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let Some(brokers) = common::kafka_broker() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let strategies = ["range", "cooperative-sticky"];
    let mut results: Vec<(Vec<Duration>, Vec<Duration>)> = vec![Default::default(); 2];
    for r in 0..ROUNDS {
        eprintln!("round {}", r + 1);
        for (i, strategy) in strategies.iter().enumerate() {
            let (join, leave) = runtime.block_on(round(&brokers, strategy));
            results[i].0.push(join);
            results[i].1.push(leave);
        }
    }
    println!("A's pause when B joins / leaves a group of 12 partitions (median of {ROUNDS}):");
    for (i, strategy) in strategies.iter().enumerate() {
        println!(
            "  {:<20} join {:>6.2} s   leave {:>6.2} s",
            if *strategy == "range" {
                "eager (range)"
            } else {
                "cooperative-sticky"
            },
            median(results[i].0.clone()),
            median(results[i].1.clone())
        );
    }
}
