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
    // B's leaving is one of the events measured: it sends LeaveGroup, as on Apache Kafka.
    settings.leave_group_on_close = true;
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

/// A new member of `group` reading `topic` until its flag is set; its task returns its deliveries.
async fn member(
    bus: &KafkaBus,
    group: &str,
    topic: &str,
) -> (tokio::task::JoinHandle<Vec<Instant>>, Arc<AtomicBool>) {
    let consumer = bus.consumer(group, &[topic.to_string()]).await.unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    (tokio::spawn(read(consumer, stop.clone())), stop)
}

/// The figures of one round.
struct Round {
    /// A's longest gap in the 5 s before B joins: what no pause looks like.
    steady: Duration,
    /// A's longest gap from B's join until 3 s after B's first delivery.
    join: Duration,
    /// A's longest gap in the 12 s after B leaves.
    leave: Duration,
    /// From B's join to its first delivery.
    first: Duration,
}

/// One round: B joins, then leaves.
async fn round(brokers: &str, strategy: &str) -> Round {
    let bus = KafkaBus::new(settings(brokers, strategy));
    let topic = common::random_name(&format!("rebalance-{strategy}-"));
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
    let (a_task, a_stop) = member(&bus, &group, &topic).await;
    // A alone owns everything and reads steadily.
    tokio::time::sleep(Duration::from_secs(10)).await;

    let joined = Instant::now();
    let (b_task, b_stop) = member(&bus, &group, &topic).await;
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
    let figures = Round {
        steady: pause(&a_deliveries, joined - Duration::from_secs(5), joined),
        join: pause(
            &a_deliveries,
            joined,
            settled.max(joined) + Duration::from_secs(3),
        ),
        leave: pause(&a_deliveries, left, left + Duration::from_secs(12)),
        first: settled.saturating_duration_since(joined),
    };
    eprintln!(
        "  {strategy}: A's longest gap before {:.2} s; B's first delivery {:.2} s after it joined; A paused {:.2} s on the join, {:.2} s on the leave",
        figures.steady.as_secs_f64(),
        figures.first.as_secs_f64(),
        figures.join.as_secs_f64(),
        figures.leave.as_secs_f64()
    );
    figures
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
    let mut rounds: Vec<Vec<Round>> = vec![Vec::new(), Vec::new()];
    for r in 0..ROUNDS {
        eprintln!("round {}", r + 1);
        for (i, strategy) in strategies.iter().enumerate() {
            rounds[i].push(runtime.block_on(round(&brokers, strategy)));
        }
    }
    println!(
        "member A's longest gap between deliveries, group of 12 partitions, median of {ROUNDS}:"
    );
    for (strategy, rounds) in strategies.iter().zip(&rounds) {
        let of = |figure: fn(&Round) -> Duration| median(rounds.iter().map(figure).collect());
        println!(
            "  {strategy:<20} steady {:>5.2} s   B joins {:>5.2} s   B leaves {:>5.2} s   B's first delivery {:>5.2} s",
            of(|r| r.steady),
            of(|r| r.join),
            of(|r| r.leave),
            of(|r| r.first)
        );
    }
}
