//! One conformance suite, run against both bus backends: the embedded bus, and the Kafka bus on a real
//! broker (tansu, started by the test setup). Every test uses fresh random topic and group names.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use altflow::bus::embedded::EmbeddedBus;
use altflow::bus::kafka::KafkaBus;
use altflow::bus::{Bus, Consumer, Message, OutMessage, TopicSpec};
use bytes::Bytes;

/// A backend under test.
struct Backend {
    bus: Arc<dyn Bus>,
    /// The most unread messages a partition may hold before producers wait, where the backend bounds it.
    bound: Option<usize>,
    /// How long group changes take to settle.
    patience: Duration,
    /// Whether a rebalance may deliver a message to two members (Kafka is at-least-once there).
    rebalance_may_duplicate: bool,
}

const EMBEDDED_CAPACITY: usize = 16;

fn embedded() -> Option<Backend> {
    Some(Backend {
        bus: Arc::new(EmbeddedBus::new(EMBEDDED_CAPACITY)),
        bound: Some(EMBEDDED_CAPACITY),
        patience: Duration::from_secs(5),
        rebalance_may_duplicate: false,
    })
}

fn kafka() -> Option<Backend> {
    kafka_with(|_| {})
}

/// The Kafka backend with `change` made to its settings.
fn kafka_with(change: impl FnOnce(&mut altflow::bus::kafka::KafkaSettings)) -> Option<Backend> {
    let brokers = common::kafka_broker()?;
    let mut settings = common::kafka_settings(&brokers);
    change(&mut settings);
    // A small local queue, so that the producer has to wait for deliveries (backpressure).
    settings
        .producer_options
        .insert("queue.buffering.max.messages".into(), "64".into());
    Some(Backend {
        bus: Arc::new(KafkaBus::new(settings)),
        bound: None,
        patience: Duration::from_secs(60),
        rebalance_may_duplicate: true,
    })
}

/// Polls `consumer` until it owns `partitions` partitions; fails the test, naming `who`, after
/// `patience`.
async fn poll_until_owning(
    consumer: &mut dyn Consumer,
    partitions: usize,
    patience: Duration,
    who: &str,
) {
    let deadline = Instant::now() + patience;
    while consumer.assignment().len() < partitions {
        assert!(
            Instant::now() < deadline,
            "{who} owns {:?} of {partitions} partitions after {patience:?}",
            consumer.assignment()
        );
        consumer.poll(10, Duration::from_millis(100)).await.unwrap();
    }
}

async fn topic(backend: &Backend, partitions: i32) -> String {
    let name = common::random_name("conf");
    backend
        .bus
        .create_topics(&[TopicSpec {
            name: name.clone(),
            partitions,
        }])
        .await
        .unwrap();
    name
}

fn message(topic: &str, key: &str, payload: String) -> OutMessage {
    OutMessage {
        topic: Arc::from(topic),
        key: Bytes::copy_from_slice(key.as_bytes()),
        payload: Bytes::from(payload),
    }
}

/// Polls until `want` distinct messages arrived or the backend's patience runs out. (A member that
/// takes over a partition without committing may see a message twice: at-least-once.)
async fn collect(consumer: &mut dyn Consumer, want: usize, patience: Duration) -> Vec<Message> {
    let deadline = Instant::now() + patience;
    let mut got = Vec::new();
    let mut distinct = BTreeSet::new();
    while distinct.len() < want && Instant::now() < deadline {
        for m in consumer
            .poll(100, Duration::from_millis(200))
            .await
            .unwrap()
        {
            distinct.insert((m.topic.clone(), m.partition, m.offset));
            got.push(m);
        }
    }
    got
}

/// Stores and commits, per partition of `got`, half of what was read; returns each partition's end
/// (one past its last offset read) and the offset committed.
async fn commit_half(
    consumer: &mut dyn Consumer,
    topic: &str,
    got: &[Message],
) -> (BTreeMap<i32, i64>, BTreeMap<i32, i64>) {
    let mut ends: BTreeMap<i32, i64> = BTreeMap::new();
    for m in got {
        let end = ends.entry(m.partition).or_insert(0);
        *end = (*end).max(m.offset + 1);
    }
    let committed: BTreeMap<i32, i64> = ends.iter().map(|(p, end)| (*p, end / 2)).collect();
    for (p, offset) in &committed {
        consumer.store_offset(topic, *p, *offset).unwrap();
    }
    consumer.commit().await.unwrap();
    (ends, committed)
}

async fn per_partition_order(backend: Backend) {
    let topic = topic(&backend, 4).await;
    let mut consumer = backend
        .bus
        .consumer(&common::random_name("g"), std::slice::from_ref(&topic))
        .await
        .unwrap();
    let producer = backend.bus.producer().unwrap();
    let messages: Vec<OutMessage> = (0..400)
        .map(|i| {
            message(
                &topic,
                &format!("key-{}", i % 10),
                format!("{}:{i}", i % 10),
            )
        })
        .collect();
    // Concurrently: a bounded bus makes the producer wait for the reader.
    let sending = tokio::spawn(async move { producer.send_all(messages).await });

    let got = collect(consumer.as_mut(), 400, backend.patience).await;
    sending.await.unwrap().unwrap();
    assert_eq!(got.len(), 400, "every message arrives exactly once");
    let mut per_key: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let mut per_partition: BTreeMap<i32, Vec<i64>> = BTreeMap::new();
    let mut key_partition: BTreeMap<Bytes, BTreeSet<i32>> = BTreeMap::new();
    for m in &got {
        let text = std::str::from_utf8(&m.payload).unwrap();
        let (key, seq) = text.split_once(':').unwrap();
        per_key
            .entry(key.into())
            .or_default()
            .push(seq.parse().unwrap());
        per_partition.entry(m.partition).or_default().push(m.offset);
        key_partition
            .entry(m.key.clone())
            .or_default()
            .insert(m.partition);
    }
    for (key, seqs) in &per_key {
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]),
            "key {key} out of order: {seqs:?}"
        );
        assert_eq!(seqs.len(), 40);
    }
    for (partition, offsets) in &per_partition {
        assert!(
            offsets.windows(2).all(|w| w[1] == w[0] + 1),
            "partition {partition} has gaps or reordering"
        );
    }
    assert!(
        key_partition.values().all(|p| p.len() == 1),
        "a key maps to one partition"
    );
    assert!(per_partition.len() > 1, "keys spread over partitions");
    consumer.close().await.unwrap();
}

async fn group_splits_partitions(backend: Backend) {
    let topic = topic(&backend, 4).await;
    let group = common::random_name("g");
    let producer = backend.bus.producer().unwrap();
    let a = backend
        .bus
        .consumer(&group, std::slice::from_ref(&topic))
        .await
        .unwrap();
    let b = backend
        .bus
        .consumer(&group, std::slice::from_ref(&topic))
        .await
        .unwrap();
    let total = 400;
    let seen: Arc<std::sync::Mutex<Vec<(char, i32, i64)>>> = Default::default();
    let run = |name: char,
               mut consumer: Box<dyn Consumer>,
               seen: Arc<std::sync::Mutex<Vec<(char, i32, i64)>>>,
               patience: Duration| async move {
        let deadline = Instant::now() + patience;
        loop {
            let batch = consumer.poll(50, Duration::from_millis(200)).await.unwrap();
            for m in &batch {
                seen.lock().unwrap().push((name, m.partition, m.offset));
            }
            // Record progress so that a partition moved by a rebalance resumes where it was.
            let mut last: BTreeMap<i32, i64> = BTreeMap::new();
            for m in &batch {
                last.insert(m.partition, m.offset + 1);
            }
            for (p, next) in last {
                consumer.store_offset(&batch[0].topic, p, next).unwrap();
            }
            consumer.commit().await.unwrap();
            let distinct: BTreeSet<(i32, i64)> = seen
                .lock()
                .unwrap()
                .iter()
                .map(|(_, p, o)| (*p, *o))
                .collect();
            if distinct.len() >= total || Instant::now() > deadline {
                break;
            }
        }
        consumer.close().await.unwrap();
    };
    let ta = tokio::spawn(run('a', a, seen.clone(), backend.patience));
    let tb = tokio::spawn(run('b', b, seen.clone(), backend.patience));
    // Produce in rounds, so that the messages arrive while the group forms.
    for round in 0..20 {
        let batch = (0..total / 20)
            .map(|i| message(&topic, &format!("k{round}-{i}"), format!("{round}-{i}")))
            .collect();
        producer.send_all(batch).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    ta.await.unwrap();
    tb.await.unwrap();
    let seen = seen.lock().unwrap().clone();
    let distinct: BTreeSet<(i32, i64)> = seen.iter().map(|(_, p, o)| (*p, *o)).collect();
    assert_eq!(distinct.len(), total, "every message reached the group");
    let by_member = |name: char| -> BTreeSet<i32> {
        seen.iter().filter(|s| s.0 == name).map(|s| s.1).collect()
    };
    assert!(
        !by_member('a').is_empty() && !by_member('b').is_empty(),
        "both members got partitions: a {:?}, b {:?}",
        by_member('a'),
        by_member('b')
    );
    let duplicates = seen.len() - distinct.len();
    eprintln!(
        "group split: a {:?}, b {:?}, duplicates {duplicates}",
        by_member('a'),
        by_member('b')
    );
    if !backend.rebalance_may_duplicate {
        assert_eq!(duplicates, 0);
    }
}

async fn commit_and_resume(backend: Backend) {
    let topic = topic(&backend, 2).await;
    let group = common::random_name("g");
    let producer = backend.bus.producer().unwrap();
    let total = 200;
    // Member A reads everything but stores only the first half of each partition, then commits.
    let mut a = backend
        .bus
        .consumer(&group, std::slice::from_ref(&topic))
        .await
        .unwrap();
    let messages = (0..total)
        .map(|i| message(&topic, &format!("k{i}"), i.to_string()))
        .collect();
    let sending = tokio::spawn(async move { producer.send_all(messages).await });
    let got = collect(a.as_mut(), total, backend.patience).await;
    sending.await.unwrap().unwrap();
    assert_eq!(got.len(), total);
    let (ends, committed) = commit_half(a.as_mut(), &topic, &got).await;

    // Member B joins while A is still a member (tansu can strand a group that every member left),
    // then A leaves: B must resume each partition exactly at A's committed offset.
    let mut b = backend
        .bus
        .consumer(&group, std::slice::from_ref(&topic))
        .await
        .unwrap();
    let mut resumed = Vec::new();
    let deadline = Instant::now() + backend.patience;
    while b.assignment().is_empty() {
        assert!(Instant::now() < deadline, "B never joined the group");
        resumed.extend(b.poll(10, Duration::from_millis(100)).await.unwrap());
    }
    a.close().await.unwrap();
    let expected: usize = ends
        .iter()
        .map(|(p, end)| (end - committed[p]) as usize)
        .sum();
    let distinct = |got: &[Message]| {
        got.iter()
            .map(|m| (m.partition, m.offset))
            .collect::<BTreeSet<_>>()
            .len()
    };
    while distinct(&resumed) < expected && Instant::now() < deadline {
        resumed.extend(b.poll(100, Duration::from_millis(200)).await.unwrap());
    }
    let mut first: BTreeMap<i32, i64> = BTreeMap::new();
    for m in &resumed {
        first.entry(m.partition).or_insert(m.offset);
    }
    assert_eq!(first, committed, "resumed at the committed offsets");
    let distinct: BTreeSet<(i32, i64)> = resumed.iter().map(|m| (m.partition, m.offset)).collect();
    assert_eq!(
        distinct.len(),
        expected,
        "everything after the commit, nothing before it"
    );
    b.close().await.unwrap();
}

async fn rebalance_reports_revocations(backend: Backend) {
    let topic = topic(&backend, 2).await;
    let group = common::random_name("g");
    let topics = std::slice::from_ref(&topic);
    let mut a = backend.bus.consumer(&group, topics).await.unwrap();
    // One deadline for A's assignment and the split below.
    let deadline = Instant::now() + backend.patience;
    poll_until_owning(a.as_mut(), 2, backend.patience, "A").await;
    a.take_revoked();
    // Asked from elsewhere, as a stage asks it in the middle of a batch.
    let ownership = a.ownership();
    assert!((0..2).all(|p| ownership.owns(&topic, p)));

    // B joins: whatever B receives must have been reported to A as revoked, and the two members'
    // assignments must split the topic.
    let mut b = backend.bus.consumer(&group, topics).await.unwrap();
    let mut revoked = BTreeSet::new();
    loop {
        a.poll(10, Duration::from_millis(50)).await.unwrap();
        b.poll(10, Duration::from_millis(50)).await.unwrap();
        revoked.extend(a.take_revoked().into_iter().map(|(_, p)| p));
        let owned_a: BTreeSet<i32> = a.assignment().into_iter().map(|(_, p)| p).collect();
        let owned_b: BTreeSet<i32> = b.assignment().into_iter().map(|(_, p)| p).collect();
        if !owned_b.is_empty()
            && owned_a.len() + owned_b.len() == 2
            && owned_a.is_disjoint(&owned_b)
        {
            assert!(
                owned_b.is_subset(&revoked),
                "B owns {owned_b:?}, A was told of {revoked:?}"
            );
            for p in 0..2 {
                assert_eq!(
                    ownership.owns(&topic, p),
                    owned_a.contains(&p),
                    "partition {p}"
                );
            }
            assert!(!ownership.owns("another-topic", 0));
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no clean split: A {owned_a:?}, B {owned_b:?}"
        );
    }
    b.close().await.unwrap();
    a.close().await.unwrap();
}

async fn backpressure_slows_producer_and_drops_nothing(backend: Backend) {
    let topic = topic(&backend, 1).await;
    let mut consumer = backend
        .bus
        .consumer(&common::random_name("g"), std::slice::from_ref(&topic))
        .await
        .unwrap();
    let producer = backend.bus.producer().unwrap();
    let total = 2000usize;
    let produced = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let consumed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let max_ahead = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let sender = {
        let (produced, consumed, max_ahead, topic) = (
            produced.clone(),
            consumed.clone(),
            max_ahead.clone(),
            topic.clone(),
        );
        tokio::spawn(async move {
            for chunk in 0..total / 10 {
                let batch = (0..10)
                    .map(|i| message(&topic, "one-key", (chunk * 10 + i).to_string()))
                    .collect();
                producer.send_all(batch).await.unwrap();
                let ahead = produced.fetch_add(10, std::sync::atomic::Ordering::SeqCst) + 10
                    - consumed.load(std::sync::atomic::Ordering::SeqCst);
                max_ahead.fetch_max(ahead, std::sync::atomic::Ordering::SeqCst);
            }
        })
    };
    // A slow reader: small batches with a pause.
    let deadline = Instant::now() + backend.patience;
    let mut next = 0usize;
    while next < total && Instant::now() < deadline {
        let batch = consumer.poll(7, Duration::from_millis(200)).await.unwrap();
        for m in &batch {
            assert_eq!(
                std::str::from_utf8(&m.payload).unwrap(),
                next.to_string(),
                "in order, no gap"
            );
            next += 1;
        }
        consumed.fetch_add(batch.len(), std::sync::atomic::Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    sender.await.unwrap();
    assert_eq!(next, total, "nothing dropped");
    if let Some(bound) = backend.bound {
        let ahead = max_ahead.load(std::sync::atomic::Ordering::SeqCst);
        // One send_all of 10 may complete in full once the reader freed room for its last message.
        assert!(
            ahead <= bound + 10,
            "producer ran {ahead} messages ahead of a {bound}-message bound"
        );
    }
    consumer.close().await.unwrap();
}

/// A member of a group with more members than partitions owns nothing, and is still a member: it
/// says it has joined (its pod is ready: a rolling update's extra pod must not wait forever).
async fn members_beyond_the_partitions_are_joined(backend: Backend) {
    let topic = topic(&backend, 1).await;
    let group = common::random_name("group");
    let mut first = backend
        .bus
        .consumer(&group, std::slice::from_ref(&topic))
        .await
        .unwrap();
    let mut second = backend
        .bus
        .consumer(&group, std::slice::from_ref(&topic))
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + backend.patience;
    while !(first.joined() && second.joined()) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "joined: first {}, second {}",
            first.joined(),
            second.joined()
        );
        first.poll(10, Duration::from_millis(100)).await.unwrap();
        second.poll(10, Duration::from_millis(100)).await.unwrap();
    }
    let owned = first.assignment().len() + second.assignment().len();
    assert!(owned <= 1, "one partition, owned {owned} times");
    first.close().await.unwrap();
    second.close().await.unwrap();
}

macro_rules! conformance {
    ($($test:ident),* $(,)?) => {
        mod embedded_bus {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    super::$test(super::embedded().unwrap()).await;
                }
            )*
        }
        mod kafka_bus {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    let Some(backend) = super::kafka() else { return };
                    super::$test(backend).await;
                }
            )*
        }
    };
}

conformance!(
    per_partition_order,
    group_splits_partitions,
    commit_and_resume,
    rebalance_reports_revocations,
    backpressure_slows_producer_and_drops_nothing,
    members_beyond_the_partitions_are_joined,
);

/// Kafka only (the embedded bus's groups end with the process): a group that takes a topic over
/// from another group (the pipeline's stages changed) starts where that group stopped, not at the
/// topic's start; a second hand-over finds nothing to move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_hand_over_starts_a_group_where_the_topics_last_reader_stopped() {
    let Some(backend) = kafka() else { return };
    let topic = topic(&backend, 2).await;
    let (old, new, absent) = (
        common::random_name("old"),
        common::random_name("new"),
        common::random_name("none"),
    );
    let producer = backend.bus.producer().unwrap();
    let total = 100;
    let messages = (0..total)
        .map(|i| message(&topic, &format!("k{i}"), i.to_string()))
        .collect();
    producer.send_all(messages).await.unwrap();
    // The old reader reads everything and commits half of each partition.
    let mut reader = backend
        .bus
        .consumer(&old, std::slice::from_ref(&topic))
        .await
        .unwrap();
    let got = collect(reader.as_mut(), total, backend.patience).await;
    let (ends, committed) = commit_half(reader.as_mut(), &topic, &got).await;
    reader.close().await.unwrap();

    let from = [old.clone(), absent];
    let moved = backend
        .bus
        .hand_over(&new, std::slice::from_ref(&topic), &from)
        .await
        .unwrap();
    let handed: BTreeMap<i32, i64> = moved.iter().map(|m| (m.partition, m.offset)).collect();
    assert_eq!(handed, committed);
    assert!(
        moved
            .iter()
            .all(|m| m.before.is_none() && m.from_group == old)
    );
    let again = backend
        .bus
        .hand_over(&new, std::slice::from_ref(&topic), &from)
        .await
        .unwrap();
    assert!(again.is_empty(), "{again:?}");

    let mut successor = backend
        .bus
        .consumer(&new, std::slice::from_ref(&topic))
        .await
        .unwrap();
    let expected: usize = ends
        .iter()
        .map(|(p, end)| (end - committed[p]) as usize)
        .sum();
    let resumed = collect(successor.as_mut(), expected, backend.patience).await;
    let mut first: BTreeMap<i32, i64> = BTreeMap::new();
    for m in &resumed {
        let entry = first.entry(m.partition).or_insert(m.offset);
        *entry = (*entry).min(m.offset);
    }
    assert_eq!(first, committed, "started where the old reader stopped");
    let distinct: BTreeSet<(i32, i64)> = resumed.iter().map(|m| (m.partition, m.offset)).collect();
    assert_eq!(distinct.len(), expected);
    successor.close().await.unwrap();
}

/// Kafka only: a member that stops while its group rebalances — here the group's leader, stopping
/// after another member asked to join and before the new round completed — does not stall the
/// member that stays, whether it stops without a word (altflow's default) or leaves the group
/// (`leave_group_on_close`, after waiting for the round to end). tansu keeps a leader that *leaves*
/// a forming group as the group's leader for good: every later SyncGroup is answered "rebalance in
/// progress", nothing is assigned again, and the stayer's commits are refused (seen in the soak
/// when an old pipeline's writers stopped as the new ones joined). A member that leaves at once
/// strands the group here every time (the member that stayed owned none of the 2 partitions after
/// 60 s, 2026-11-27).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_a_member_stopping_mid_rebalance_does_not_stall_the_group() {
    let Some(backend) = kafka() else { return };
    stop_mid_rebalance(backend).await;
}

/// The same, for a member that leaves its group on close (see the test above).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_a_member_leaving_mid_rebalance_does_not_stall_the_group() {
    let Some(backend) = kafka_with(|s| s.leave_group_on_close = true) else {
        return;
    };
    stop_mid_rebalance(backend).await;
}

async fn stop_mid_rebalance(backend: Backend) {
    let topic = topic(&backend, 2).await;
    let group = common::random_name("leave");
    let topics = std::slice::from_ref(&topic);
    let mut first = backend.bus.consumer(&group, topics).await.unwrap();
    poll_until_owning(first.as_mut(), 2, backend.patience, "the first member").await;
    // The second member's join starts a round; the first hears of it at its next heartbeat (every
    // second here) and rejoins; the broker answers the joins once every member has rejoined or
    // after a few seconds. The first stops inside that round.
    let mut second = backend.bus.consumer(&group, topics).await.unwrap();
    let until = Instant::now() + Duration::from_millis(2500);
    while Instant::now() < until {
        first.poll(10, Duration::from_millis(50)).await.unwrap();
        second.poll(10, Duration::from_millis(50)).await.unwrap();
    }
    first.close().await.unwrap();
    poll_until_owning(
        second.as_mut(),
        2,
        backend.patience,
        "the member that stayed",
    )
    .await;
    second.close().await.unwrap();
}

/// Kafka only: a stage whose predecessor was removed (the writer reading `pairs` once `dedup` is
/// gone) while its group had records unread on the removed stage's output (`unique`) refuses to
/// start, naming the topic and the records; once the group has read them, it starts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_a_stage_refuses_to_start_while_a_removed_stages_output_is_unread() {
    let Some(backend) = kafka() else { return };
    let brokers = common::kafka_broker().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let prefix = format!("{}.", common::random_name("rm"));
    let group_prefix = common::random_name("rmg");
    let path = dir.path().join("pipeline.toml");
    std::fs::write(
        &path,
        format!(
            "stages = [\"filter\", \"fetch\", \"write\"]\n\n[bus]\nkind = \"kafka\"\n\
             brokers = {brokers:?}\ngroup_prefix = {group_prefix:?}\n\n\
             [bus.consumer_options]\n\"session.timeout.ms\" = \"6000\"\n\
             \"heartbeat.interval.ms\" = \"1000\"\n\n\
             [topics]\nprefix = {prefix:?}\n\n[write]\noutput = {:?}\n",
            dir.path().join("out").to_str().unwrap()
        ),
    )
    .unwrap();
    let pipeline = altflow::config::Pipeline::load(&path).unwrap();
    let group = pipeline.group(altflow::config::StageName::Write);
    let unique = pipeline.topic("unique");
    backend
        .bus
        .create_topics(&[TopicSpec {
            name: unique.clone(),
            partitions: 2,
        }])
        .await
        .unwrap();
    let producer = backend.bus.producer().unwrap();
    let total = 40;
    let messages = (0..total)
        .map(|i| message(&unique, &format!("k{i}"), i.to_string()))
        .collect();
    producer.send_all(messages).await.unwrap();
    // The writer of the pipeline with dedup read half of what dedup wrote.
    let mut writer = backend
        .bus
        .consumer(&group, std::slice::from_ref(&unique))
        .await
        .unwrap();
    let got = collect(writer.as_mut(), total, backend.patience).await;
    let (ends, committed) = commit_half(writer.as_mut(), &unique, &got).await;
    writer.close().await.unwrap();

    let unread = backend
        .bus
        .unread(&group, &[unique.clone(), common::random_name("absent")])
        .await
        .unwrap();
    // Every partition the group left, from where it stopped; its end is the high watermark, or
    // (where the broker's lags, as tansu's memory engine's does) past the first record found.
    let seen: BTreeMap<i32, i64> = unread.iter().map(|u| (u.partition, u.committed)).collect();
    assert_eq!(seen, committed, "{unread:?}");
    assert!(
        unread
            .iter()
            .all(|u| u.end > u.committed && u.end <= ends[&u.partition]),
        "{unread:?}"
    );

    let stage = |patience: Duration| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_altflow"))
            .args(["stage", "write", "--pipeline"])
            .arg(&path)
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let lines = std::thread::spawn(move || {
            use std::io::BufRead;
            let mut log = String::new();
            for line in std::io::BufReader::new(stderr).lines() {
                let line = line.unwrap_or_default();
                log.push_str(&line);
                log.push('\n');
                if line.contains("stage started") {
                    break;
                }
            }
            log
        });
        let deadline = Instant::now() + patience;
        let exited = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if lines.is_finished() || Instant::now() > deadline {
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let _ = child.kill();
        let _ = child.wait();
        (exited, lines.join().unwrap())
    };
    let (exited, log) = stage(backend.patience);
    assert!(exited.is_some_and(|s| !s.success()), "{log}");
    assert!(
        log.contains(&unique) && log.contains("records unread"),
        "{log}"
    );
    for (p, offset) in &committed {
        assert!(log.contains(&format!("{unique}[{p}] {offset}..")), "{log}");
    }
    let left: i64 = ends.iter().map(|(p, end)| end - committed[p]).sum();

    // The old writer reads the rest: nothing is left behind, and the new one starts.
    let mut writer = backend
        .bus
        .consumer(&group, std::slice::from_ref(&unique))
        .await
        .unwrap();
    collect(writer.as_mut(), left as usize, backend.patience).await;
    for (p, end) in &ends {
        writer.store_offset(&unique, *p, *end).unwrap();
    }
    writer.commit().await.unwrap();
    writer.close().await.unwrap();
    let (exited, log) = stage(backend.patience);
    assert!(exited.is_none() && log.contains("stage started"), "{log}");
}
