//! The Kafka bus, on rdkafka (librdkafka), for any Kafka-protocol broker.
//!
//! - Producer: idempotent (`enable.idempotence=true`, so `acks=all`); [`Producer::send_all`] returns
//!   only when every message is acknowledged; a full local queue makes it wait instead of failing.
//! - Consumer: `enable.auto.offset.store=false` and `enable.auto.commit=true`, so librdkafka commits on
//!   its timer only the offsets the stage stored after its outputs were acknowledged. Stored offsets are
//!   also committed synchronously when partitions are revoked and on close. Assignment is
//!   `cooperative-sticky`: a rebalance revokes only the partitions that move.
//! - librdkafka's poll is a blocking call: it runs on a dedicated thread that hands messages to the
//!   async side through a bounded channel, so the async executor never blocks on the network.
//! - Any librdkafka option can be passed through from the pipeline file.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use async_trait::async_trait;

use crate::sync::lock;
use bytes::Bytes;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::{ClientContext, DefaultClientContext};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer as _, ConsumerContext, Rebalance};
use rdkafka::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use rdkafka::message::Message as _;
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::statistics::Statistics;
use rdkafka::topic_partition_list::{Offset, TopicPartitionList};
use tokio::sync::mpsc;

use super::{
    Bus, BusError, Consumer, Message, OutMessage, Ownership, PartitionLag, Producer, Result,
    TopicSpec,
};

/// Settings of the Kafka backend.
#[derive(Clone, Debug)]
pub struct KafkaSettings {
    /// `bootstrap.servers`.
    pub brokers: String,
    /// Replication factor of topics created by [`Bus::create_topics`].
    pub replication_factor: i32,
    /// How often librdkafka commits stored offsets (`auto.commit.interval.ms`).
    pub commit_interval: Duration,
    /// Whether a closing consumer leaves its group (LeaveGroup) or stops without a word, as a
    /// crashed member does (see [`vanish`]).
    pub leave_group_on_close: bool,
    /// librdkafka options for every client.
    pub options: BTreeMap<String, String>,
    /// librdkafka options for consumers only.
    pub consumer_options: BTreeMap<String, String>,
    /// librdkafka options for producers only.
    pub producer_options: BTreeMap<String, String>,
}

/// The Kafka bus.
pub struct KafkaBus {
    settings: KafkaSettings,
    producer: Mutex<Option<Arc<KafkaProducer>>>,
}

/// How often librdkafka reports statistics: consumer lag, and the group's state that a closing
/// member waits on.
const STATISTICS_INTERVAL: Duration = Duration::from_secs(1);

/// The longest a closing member waits for its group's rebalance to complete ([`settle`]). A round
/// on tansu takes about 3 s and the cooperative protocol's follow-up round as long again; not
/// bounded by the session timeout (the member keeps heartbeating while it waits): with the soak's
/// 6-s sessions, members stopped mid-round used the whole 6 s and left unsettled. A drain has a
/// deadline of its own, and a pod's grace period covers this too (docs/kubernetes.md).
const SETTLE_WAIT: Duration = Duration::from_secs(10);

/// `session.timeout.ms` of altflow's consumers unless `consumer_options` sets it (librdkafka's own
/// default is 45 s).
const DEFAULT_SESSION_TIMEOUT_MS: &str = "10000";

fn kafka(op: &'static str) -> impl FnOnce(KafkaError) -> BusError {
    move |source| BusError::Kafka { op, source }
}

impl KafkaBus {
    /// A bus on the brokers in `settings`. Connects lazily.
    pub fn new(settings: KafkaSettings) -> Self {
        Self {
            settings,
            producer: Mutex::new(None),
        }
    }

    /// How long a closing member's group must have been steady before it leaves ([`settle`]): a
    /// heartbeat (`heartbeat.interval.ms`, 3 s by default) and a statistics interval (1 s).
    fn settle_quiet(&self) -> Duration {
        let heartbeat = self.settings.consumer_options.get("heartbeat.interval.ms");
        let heartbeat = heartbeat.and_then(|ms| ms.parse().ok()).unwrap_or(3000);
        Duration::from_millis(heartbeat) + STATISTICS_INTERVAL
    }

    fn config(&self, role: &BTreeMap<String, String>) -> ClientConfig {
        let mut config = ClientConfig::new();
        config.set("bootstrap.servers", &self.settings.brokers);
        for (key, value) in self.settings.options.iter().chain(role) {
            config.set(key, value);
        }
        config
    }
}

#[async_trait]
impl Bus for KafkaBus {
    async fn create_topics(&self, topics: &[TopicSpec]) -> Result<()> {
        let admin: AdminClient<DefaultClientContext> = self
            .config(&BTreeMap::new())
            .create()
            .map_err(kafka("create admin client"))?;
        let new_topics: Vec<NewTopic<'_>> = topics
            .iter()
            .map(|t| {
                NewTopic::new(
                    &t.name,
                    t.partitions,
                    TopicReplication::Fixed(self.settings.replication_factor),
                )
            })
            .collect();
        let results = admin
            .create_topics(
                &new_topics,
                &AdminOptions::new().operation_timeout(Some(Duration::from_secs(30))),
            )
            .await
            .map_err(kafka("create topics"))?;
        for result in results {
            match result {
                Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
                Err((_, code)) => {
                    return Err(BusError::Kafka {
                        op: "create topic",
                        source: KafkaError::AdminOp(code),
                    });
                }
            }
        }
        Ok(())
    }

    fn producer(&self) -> Result<Arc<dyn Producer>> {
        let mut slot = lock(&self.producer);
        if let Some(producer) = slot.as_ref() {
            return Ok(producer.clone());
        }
        let mut config = self.config(&BTreeMap::new());
        config
            .set("enable.idempotence", "true")
            .set("linger.ms", "5");
        for (key, value) in &self.settings.producer_options {
            config.set(key, value);
        }
        let producer = Arc::new(KafkaProducer {
            inner: config.create().map_err(kafka("create producer"))?,
        });
        *slot = Some(producer.clone());
        Ok(producer)
    }

    async fn hand_over(
        &self,
        group: &str,
        topics: &[String],
        from: &[String],
    ) -> Result<Vec<super::Handover>> {
        // librdkafka's offset calls block: off the async executor.
        let bus = KafkaBus::new(self.settings.clone());
        let (group, topics, from) = (group.to_string(), topics.to_vec(), from.to_vec());
        tokio::task::spawn_blocking(move || bus.hand_over_now(&group, &topics, &from))
            .await
            .expect("the offsets hand-over panicked")
    }

    async fn unread(&self, group: &str, topics: &[String]) -> Result<Vec<super::Unread>> {
        let bus = KafkaBus::new(self.settings.clone());
        let (group, topics) = (group.to_string(), topics.to_vec());
        tokio::task::spawn_blocking(move || bus.unread_now(&group, &topics))
            .await
            .expect("reading a group's unread records panicked")
    }

    async fn consumer(&self, group: &str, topics: &[String]) -> Result<Box<dyn Consumer>> {
        let mut config = self.config(&BTreeMap::new());
        config
            .set("group.id", group)
            .set("enable.auto.commit", "true")
            .set("enable.auto.offset.store", "false")
            .set(
                "auto.commit.interval.ms",
                self.settings.commit_interval.as_millis().to_string(),
            )
            .set("auto.offset.reset", "earliest")
            // Incremental rebalancing: a member joining or leaving moves only the partitions that
            // change hands, and the others keep being read (docs/kubernetes.md: measured pause, eager vs
            // cooperative). `range` or `roundrobin` in consumer_options bring back eager
            // rebalancing.
            .set("partition.assignment.strategy", "cooperative-sticky")
            // A stopped member's partitions wait its session out when it does not leave the group
            // (the default, see `vanish`), and so does a stage restarted in the same group: 10 s
            // rather than librdkafka's 45, as in k8s/base. consumer_options can change it.
            .set("session.timeout.ms", DEFAULT_SESSION_TIMEOUT_MS)
            // The group's state tells `close` whether a rebalance is under way.
            .set(
                "statistics.interval.ms",
                STATISTICS_INTERVAL.as_millis().to_string(),
            );
        for (key, value) in &self.settings.consumer_options {
            config.set(key, value);
        }
        let context = Arc::new(GroupState::default());
        let consumer: BaseConsumer<ConsumerCtx> = config
            .create_with_context(ConsumerCtx(context.clone()))
            .map_err(kafka("create consumer"))?;
        let names: Vec<&str> = topics.iter().map(String::as_str).collect();
        consumer.subscribe(&names).map_err(kafka("subscribe"))?;
        let consumer = Arc::new(consumer);

        // Enough to keep a stage busy between polls; small enough that a revoked partition's
        // queued messages are few.
        let (sender, receiver) = mpsc::channel(1024);
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let consumer = consumer.clone();
            let stop = stop.clone();
            std::thread::Builder::new()
                .name(format!("kafka-poll-{group}"))
                .spawn(move || poll_loop(&consumer, &sender, &stop))
                .expect("spawning a thread")
        };
        Ok(Box::new(KafkaConsumer {
            consumer,
            receiver: Some(receiver),
            stop,
            thread: Some(thread),
            state: context,
            leave: self
                .settings
                .leave_group_on_close
                .then(|| self.settle_quiet()),
        }))
    }
}

impl KafkaBus {
    /// A client of `group` that never joins it: reads and commits the group's offsets as a
    /// simple consumer (generation -1, which a broker accepts while the group has no members).
    fn group_client(&self, group: &str) -> Result<BaseConsumer> {
        let mut config = self.config(&self.settings.consumer_options);
        config
            .set("group.id", group)
            .set("enable.auto.commit", "false");
        config.create().map_err(kafka("create offsets client"))
    }

    /// The committed offset of `client`'s group for each of `partitions` that has one.
    fn committed(
        client: &BaseConsumer,
        partitions: &[(String, i32)],
    ) -> Result<HashMap<(String, i32), i64>> {
        let mut wanted = TopicPartitionList::new();
        for (topic, partition) in partitions {
            wanted.add_partition(topic, *partition);
        }
        let committed = client
            .committed_offsets(wanted, OFFSETS_TIMEOUT)
            .map_err(kafka("read committed offsets"))?;
        Ok(committed
            .elements()
            .iter()
            .filter_map(|e| match e.offset() {
                Offset::Offset(o) => Some(((e.topic().to_string(), e.partition()), o)),
                _ => None,
            })
            .collect())
    }

    /// [`Bus::unread`], blocking.
    fn unread_now(&self, group: &str, topics: &[String]) -> Result<Vec<super::Unread>> {
        let client = self.group_client(group)?;
        // A consumer's metadata request does not create the topic (librdkafka's
        // allow.auto.create.topics is false for consumers): a missing one has no partitions.
        let mut partitions: Vec<(String, i32)> = Vec::new();
        for topic in topics {
            let metadata = client
                .fetch_metadata(Some(topic), OFFSETS_TIMEOUT)
                .map_err(kafka("read topic metadata"))?;
            for t in metadata.topics().iter().filter(|t| t.error().is_none()) {
                partitions.extend(
                    t.partitions()
                        .iter()
                        .map(|p| (t.name().to_string(), p.id())),
                );
            }
        }
        let committed = Self::committed(&client, &partitions)?;
        let mut ends: HashMap<(String, i32), i64> = HashMap::new();
        for (key, &offset) in &committed {
            let (_, high) = client
                .fetch_watermarks(&key.0, key.1, OFFSETS_TIMEOUT)
                .map_err(kafka("read watermarks"))?;
            ends.insert(key.clone(), high.max(offset));
        }
        // A broker's high watermark can lag its last record (tansu's memory engine counts record
        // batches), so where it says nothing is left, a read from the committed offset decides.
        let mut probe = TopicPartitionList::new();
        for (key, &offset) in &committed {
            if ends[key] <= offset {
                probe
                    .add_partition_offset(&key.0, key.1, Offset::Offset(offset))
                    .map_err(kafka("probe unread records"))?;
            }
        }
        if probe.count() > 0 {
            client
                .assign(&probe)
                .map_err(kafka("probe unread records"))?;
            let deadline = Instant::now() + PROBE_TIMEOUT;
            let mut seen = std::collections::HashSet::new();
            while seen.len() < probe.count() && Instant::now() < deadline {
                match client.poll(Duration::from_millis(100)) {
                    Some(Ok(message)) => {
                        let key = (message.topic().to_string(), message.partition());
                        let end = ends.entry(key.clone()).or_default();
                        *end = (*end).max(message.offset() + 1);
                        seen.insert(key);
                    }
                    Some(Err(error)) => return Err(kafka("probe unread records")(error)),
                    None => {}
                }
            }
        }
        let mut unread: Vec<super::Unread> = committed
            .into_iter()
            .filter(|(key, offset)| ends[key] > *offset)
            .map(|((topic, partition), committed)| super::Unread {
                end: ends[&(topic.clone(), partition)],
                topic,
                partition,
                committed,
            })
            .collect();
        unread.sort_by(|a, b| (&a.topic, a.partition).cmp(&(&b.topic, b.partition)));
        Ok(unread)
    }

    /// [`Bus::hand_over`], blocking.
    fn hand_over_now(
        &self,
        group: &str,
        topics: &[String],
        from: &[String],
    ) -> Result<Vec<super::Handover>> {
        let client = self.group_client(group)?;
        let mut partitions = Vec::new();
        for topic in topics {
            let metadata = client
                .fetch_metadata(Some(topic), OFFSETS_TIMEOUT)
                .map_err(kafka("read topic metadata"))?;
            for t in metadata.topics() {
                partitions.extend(
                    t.partitions()
                        .iter()
                        .map(|p| (t.name().to_string(), p.id())),
                );
            }
        }
        let own = Self::committed(&client, &partitions)?;
        // The furthest point any other group reached on each partition: in a pipeline a topic has
        // one reading stage at a time, so the furthest is where its last reader stopped.
        let mut furthest: HashMap<(String, i32), (i64, &str)> = HashMap::new();
        for other in from.iter().filter(|g| *g != group) {
            for (key, offset) in Self::committed(&self.group_client(other)?, &partitions)? {
                let entry = furthest.entry(key).or_insert((offset, other));
                if offset > entry.0 {
                    *entry = (offset, other);
                }
            }
        }
        let mut moved = Vec::new();
        let mut commit = TopicPartitionList::new();
        for key in &partitions {
            let Some(&(offset, from_group)) = furthest.get(key) else {
                continue;
            };
            let before = own.get(key).copied();
            if before.is_some_and(|b| b >= offset) {
                continue;
            }
            commit
                .add_partition_offset(&key.0, key.1, Offset::Offset(offset))
                .map_err(kafka("hand over offsets"))?;
            moved.push(super::Handover {
                topic: key.0.clone(),
                partition: key.1,
                before,
                offset,
                from_group: from_group.to_string(),
            });
        }
        if moved.is_empty() {
            return Ok(moved);
        }
        if let Err(error) = client.commit(&commit, CommitMode::Sync) {
            // A broker refuses a commit from outside a group that has members: another member
            // starting at the same moment handed over first and joined. Its offsets are the same
            // ones, which is all that matters.
            let now = Self::committed(&client, &partitions)?;
            if moved
                .iter()
                .any(|m| now.get(&(m.topic.clone(), m.partition)) < Some(&m.offset))
            {
                return Err(kafka("hand over offsets")(error));
            }
        }
        Ok(moved)
    }
}

/// How long reading or committing a group's offsets may take before the stage fails to start.
const OFFSETS_TIMEOUT: Duration = Duration::from_secs(30);

/// How long [`Bus::unread`] reads, where the high watermark says a group read everything, for a
/// record past the group's committed offset.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// A message with the epoch of its partition when it was fetched.
struct Fetched {
    epoch: u64,
    message: Message,
}

/// Runs on the poll thread until `stop` is set or the async side goes away.
fn poll_loop(
    consumer: &BaseConsumer<ConsumerCtx>,
    sender: &mpsc::Sender<Fetched>,
    stop: &AtomicBool,
) {
    let state = consumer.context().0.clone();
    let mut topics: HashMap<String, Arc<str>> = HashMap::new();
    // A dropped consumer closes the channel, which ends this thread and frees the client.
    while !stop.load(Ordering::Relaxed) && !sender.is_closed() {
        match consumer.poll(Duration::from_millis(100)) {
            None => {}
            Some(Ok(m)) => {
                let topic = topics
                    .entry(m.topic().to_string())
                    .or_insert_with(|| Arc::from(m.topic()))
                    .clone();
                let message = Message {
                    topic,
                    partition: m.partition(),
                    offset: m.offset(),
                    key: Bytes::copy_from_slice(m.key().unwrap_or_default()),
                    payload: Bytes::copy_from_slice(m.payload().unwrap_or_default()),
                };
                // Rebalance callbacks run inside `poll` on this thread, so the epoch read here is
                // the one the message was fetched under.
                let epoch = state.epoch(&message.topic, message.partition);
                // Waiting here is the backpressure: a slow stage stops the fetching (librdkafka
                // still prefetches up to `queued.max.messages.kbytes`).
                if sender.blocking_send(Fetched { epoch, message }).is_err() {
                    break;
                }
            }
            // A fatal error ends the client: closing the channel fails the stage, so that its
            // supervisor restarts it, rather than leaving it idle.
            Some(Err(error)) if error.rdkafka_error_code() == Some(RDKafkaErrorCode::Fatal) => {
                tracing::error!(%error, "fatal kafka consumer error");
                break;
            }
            Some(Err(error)) => tracing::warn!(%error, "kafka consumer error"),
        }
    }
}

/// What the rebalance and statistics callbacks share with the consumer.
#[derive(Default)]
struct GroupState {
    revoked: Mutex<Vec<(Arc<str>, i32)>>,
    assigned: Mutex<HashSet<(String, i32)>>,
    lag: Mutex<HashMap<(String, i32), i64>>,
    /// Bumped for a partition each time it is revoked. Messages fetched before a revocation may
    /// still sit in the channel; if the partition comes back, librdkafka fetches again from the
    /// committed offset, and those stale copies must not be processed ahead of the replay.
    epochs: Mutex<HashMap<(String, i32), u64>>,
    /// Set by the first assignment, or by statistics that show the group steady with this member
    /// in it (a member with nothing to own may get no assignment at all).
    joined: AtomicBool,
    /// Since when the statistics have shown no rebalance under way (librdkafka's join state
    /// "steady"), without a rebalance callback since; `None` while one is.
    steady_since: Mutex<Option<Instant>>,
}

impl GroupState {
    /// Notes that this member is in the group, and says so in the log the first time (the line
    /// an operator, or a script, waits for before stopping the member it replaces).
    fn mark_joined(&self) {
        if !self.joined.swap(true, Ordering::Relaxed) {
            tracing::info!("joined the consumer group");
        }
    }

    fn epoch(&self, topic: &str, partition: i32) -> u64 {
        let epochs = lock(&self.epochs);
        epochs
            .get(&(topic.to_string(), partition))
            .copied()
            .unwrap_or(0)
    }
}

/// `topic[partition]` for each element, comma-separated.
fn listed(partitions: &TopicPartitionList) -> String {
    let names: Vec<String> = partitions
        .elements()
        .iter()
        .map(|e| format!("{}[{}]", e.topic(), e.partition()))
        .collect();
    if names.is_empty() {
        return "none".to_string();
    }
    names.join(",")
}

struct ConsumerCtx(Arc<GroupState>);

impl ClientContext for ConsumerCtx {
    fn stats(&self, statistics: Statistics) {
        // A member that owns no partition (more members than partitions) gets no assignment to
        // tell it has joined; the group state says so.
        let steady = statistics
            .cgrp
            .as_ref()
            .is_some_and(|g| g.state == "up" && g.join_state == "steady");
        let mut since = lock(&self.0.steady_since);
        if !steady {
            *since = None;
        } else if since.is_none() {
            *since = Some(Instant::now());
        }
        drop(since);
        if steady {
            self.0.mark_joined();
        }
        let mut lag = lock(&self.0.lag);
        for (topic, t) in statistics.topics {
            for (partition, p) in t.partitions {
                // librdkafka reports the internal partition -1 and unknown lags as -1.
                if partition >= 0 && p.consumer_lag >= 0 {
                    lag.insert((topic.clone(), partition), p.consumer_lag);
                }
            }
        }
    }
}

impl ConsumerContext for ConsumerCtx {
    fn pre_rebalance(&self, consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Revoke(partitions) = rebalance {
            *lock(&self.0.steady_since) = None;
            // Offsets are stored only for work whose outputs were acknowledged: commit them before
            // another member takes the partitions over, so it does not redo that work.
            if let Err(error) = commit_sync(consumer) {
                tracing::warn!(%error, "commit on revoke failed");
            }
            tracing::info!(partitions = %listed(partitions), "partitions revoked");
            let mut assigned = lock(&self.0.assigned);
            let mut revoked = lock(&self.0.revoked);
            let mut epochs = lock(&self.0.epochs);
            for element in partitions.elements() {
                let key = (element.topic().to_string(), element.partition());
                assigned.remove(&key);
                *epochs.entry(key).or_insert(0) += 1;
                revoked.push((Arc::from(element.topic()), element.partition()));
            }
        }
    }

    fn commit_callback(&self, result: KafkaResult<()>, offsets: &TopicPartitionList) {
        // The timer's commits (`enable.auto.commit`) fail silently otherwise: a member whose
        // commits do not take looks healthy while its group's offsets stand still (a soak's
        // writer landed 36 shards and its group had committed nothing there, no line saying why).
        if let Err(error) = nothing_to_commit_is_fine(result) {
            tracing::warn!(%error, partitions = %listed(offsets), "offset commit failed")
        }
    }

    fn post_rebalance(&self, _consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Assign(partitions) = rebalance {
            // Which member reads what, for an operator following a rebalance in the logs.
            tracing::info!(partitions = %listed(partitions), "partitions assigned");
            // An assignment ends a round, but with the cooperative protocol a member that gave
            // partitions up joins again at once for the round that hands them over: only the
            // statistics after it say whether the group is steady.
            *lock(&self.0.steady_since) = None;
            self.0.mark_joined();
            let mut assigned = lock(&self.0.assigned);
            for element in partitions.elements() {
                assigned.insert((element.topic().to_string(), element.partition()));
            }
        }
    }
}

struct KafkaProducer {
    inner: FutureProducer,
}

#[async_trait]
impl Producer for KafkaProducer {
    async fn send_all(&self, messages: Vec<OutMessage>) -> Result<()> {
        let mut deliveries = Vec::with_capacity(messages.len());
        for message in &messages {
            let mut record = FutureRecord::to(&message.topic)
                .key(&message.key[..])
                .payload(&message.payload[..]);
            loop {
                match self.inner.send_result(record) {
                    Ok(delivery) => {
                        deliveries.push(delivery);
                        break;
                    }
                    Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                        // The local queue is full: wait for deliveries to make room.
                        record = back;
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                    Err((error, _)) => return Err(kafka("produce")(error)),
                }
            }
        }
        for delivery in deliveries {
            match delivery.await {
                Ok(Ok(_)) => {}
                Ok(Err((error, _))) => return Err(kafka("deliver")(error)),
                Err(_) => return Err(BusError::Closed),
            }
        }
        Ok(())
    }
}

/// Waits, up to [`SETTLE_WAIT`], for the member's group to have been steady for `quiet` before
/// the member leaves it (with `leave_group_on_close`; by default a member does not leave, see
/// [`vanish`]).
///
/// tansu keeps a member that leaves a *forming* group (after the JoinGroup round began, before its
/// leader's SyncGroup) as the group's leader for good: its `leave` removes the member but not the
/// leadership (its session expiry clears both), so every later SyncGroup is answered "rebalance in
/// progress", no partition is assigned again and the members that stay have their commits refused.
/// Seen in the soak (every member's JoinGroup answer naming a leader that had left minutes before)
/// and in `tests/bus_conformance.rs`. So a member whose group is rebalancing pauses its partitions
/// and keeps serving the group's protocol until the statistics have shown it steady for a
/// heartbeat and a statistics interval (with the cooperative protocol a round that revoked
/// partitions is followed at once by the round that hands them over: the assignment callback
/// alone is no sign of the end), then leaves. That holds for a member that finds its group steady
/// too: one steady for less than that span waits out the rest of it (seen in the soak: the leader,
/// steady for half a second after the round that let two new members in, left at once; the
/// follow-up round had begun, and the group stayed stranded). A member steady for longer leaves at
/// once; so does one whose group does not settle within the limit. Neither closes the race
/// entirely: a join that reaches the broker in the last heartbeat interval before the LeaveGroup
/// still finds a forming group, and if the leaving member is its leader, tansu stalls. On any broker
/// this costs at most one round and a heartbeat at shutdown, and spares the group a round started
/// by a member that then vanishes. Messages polled meanwhile are dropped: their offsets are never
/// stored, so the next owner reads them.
fn settle(consumer: &BaseConsumer<ConsumerCtx>, state: &GroupState, quiet: Duration) {
    let steady_for = || lock(&state.steady_since).map(|since| since.elapsed());
    let settled = || steady_for().is_some_and(|d| d >= quiet);
    if settled() {
        return;
    }
    tracing::info!(
        steady_for = ?steady_for(),
        "waiting for the group to be steady for a heartbeat before leaving it"
    );
    let started = Instant::now();
    // Steady for a heartbeat and a statistics interval: a round that a new member's join started
    // just before is then known (the heartbeat says so, the next statistics show it). Seen without
    // it: statistics taken a moment before the heartbeat's "rebalance in progress" said steady,
    // the member left, and the JoinGroup it had in flight had made it the new round's leader.
    while !settled() && started.elapsed() < SETTLE_WAIT {
        if let Ok(assignment) = consumer.assignment() {
            let _ = consumer.pause(&assignment);
        }
        let _ = consumer.poll(Duration::from_millis(100));
    }
    if !settled() {
        tracing::warn!(
            waited = ?SETTLE_WAIT,
            "leaving a group whose rebalance did not complete"
        );
    }
}

/// Ends a consumer without leaving its group, as a crashed member ends: librdkafka's instance is
/// destroyed with `RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE` (no LeaveGroup, no revoke callback), and
/// the broker removes the member once its session times out; its partitions then move to the
/// members that stay. The caller has committed what it finished.
///
/// Why not leave: tansu keeps a member that leaves a group mid-rebalance as that group's leader
/// for good ([`settle`]), and two members stopped together — a stage change, a scale-down — leave
/// within a heartbeat of each other, too close for either to see the round the other's LeaveGroup
/// started (seen in the 5-minute soak: the old writers' LeaveGroups 190 ms apart, the group's
/// writers assigned nothing for the four minutes left). A member whose session expires has its
/// leadership cleared with it, which is why a SIGKILLed member never stranded a group. The cost is
/// the session timeout: the member's partitions wait that long for a new owner.
///
/// Falls back to leaving (dropping the consumer) when another handle on it is still alive, which
/// `close` rules out by joining the poll thread first.
fn vanish(consumer: Arc<BaseConsumer<ConsumerCtx>>) {
    let consumer = match Arc::try_unwrap(consumer) {
        Ok(consumer) => consumer,
        Err(shared) => {
            tracing::warn!("consumer still shared at close: leaving the group instead");
            drop(shared);
            return;
        }
    };
    let native = consumer.client().native_ptr();
    // SAFETY: `native` is this consumer's live librdkafka instance, and this is its only handle
    // (the `Arc` was unique), so nothing uses the instance after it is destroyed here. The Rust
    // wrapper is then forgotten, not dropped: its `Drop` would close and destroy the instance a
    // second time. What it leaks — the wrapper, its queue handle and the context — is a few
    // hundred bytes per closed consumer, and consumers close once per stage run.
    unsafe {
        rdkafka::bindings::rd_kafka_destroy_flags(
            native,
            rdkafka::bindings::RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE,
        );
    }
    std::mem::forget(consumer);
    tracing::info!(
        "stopped without leaving the group: its partitions move after the session timeout"
    );
}

/// Commits the stored offsets and waits; having nothing to commit is fine.
fn commit_sync(consumer: &BaseConsumer<ConsumerCtx>) -> Result<()> {
    nothing_to_commit_is_fine(consumer.commit_consumer_state(CommitMode::Sync))
        .map_err(kafka("commit"))
}

/// A commit's result, with "no offset stored" (nothing to commit) as success.
fn nothing_to_commit_is_fine(result: KafkaResult<()>) -> KafkaResult<()> {
    match result {
        Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::NoOffset)) => Ok(()),
        other => other,
    }
}

struct KafkaConsumer {
    consumer: Arc<BaseConsumer<ConsumerCtx>>,
    receiver: Option<mpsc::Receiver<Fetched>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    state: Arc<GroupState>,
    /// Whether `close` leaves the group, and if so how long it wants the group steady first (see
    /// [`settle`]); `None`: it stops without leaving ([`vanish`]).
    leave: Option<Duration>,
}

impl KafkaConsumer {
    async fn commit_now(&self) -> Result<()> {
        let consumer = self.consumer.clone();
        tokio::task::spawn_blocking(move || commit_sync(&consumer))
            .await
            .map_err(|_| BusError::Closed)?
    }
}

#[async_trait]
impl Consumer for KafkaConsumer {
    async fn poll(&mut self, max: usize, timeout: Duration) -> Result<Vec<Message>> {
        let receiver = self.receiver.as_mut().ok_or(BusError::Closed)?;
        let mut fetched = Vec::new();
        match tokio::time::timeout(timeout, receiver.recv()).await {
            Err(_) => return Ok(Vec::new()),
            Ok(None) => return Err(BusError::Closed),
            Ok(Some(first)) => fetched.push(first),
        }
        while fetched.len() < max.max(1) {
            match receiver.try_recv() {
                Ok(next) => fetched.push(next),
                Err(_) => break,
            }
        }
        // Drop what was fetched before its partition was last revoked.
        Ok(fetched
            .into_iter()
            .filter(|f| f.epoch == self.state.epoch(&f.message.topic, f.message.partition))
            .map(|f| f.message)
            .collect())
    }

    fn store_offset(&mut self, topic: &str, partition: i32, next_offset: i64) -> Result<()> {
        // `rd_kafka_offsets_store` takes the next offset to read, unlike `rd_kafka_offset_store`
        // (rdkafka's `store_offset`), which takes the last offset processed and adds one.
        let mut list = TopicPartitionList::new();
        list.add_partition_offset(topic, partition, Offset::Offset(next_offset))
            .map_err(kafka("store offset"))?;
        match self.consumer.store_offsets(&list) {
            Ok(()) => Ok(()),
            // The partition was revoked meanwhile; its new owner redoes the work.
            Err(KafkaError::StoreOffset(
                RDKafkaErrorCode::State | RDKafkaErrorCode::UnknownPartition,
            )) => Ok(()),
            Err(error) => Err(kafka("store offset")(error)),
        }
    }

    async fn commit(&mut self) -> Result<()> {
        self.commit_now().await
    }

    fn assignment(&self) -> Vec<(Arc<str>, i32)> {
        let assigned = lock(&self.state.assigned);
        assigned
            .iter()
            .map(|(topic, partition)| (Arc::from(topic.as_str()), *partition))
            .collect()
    }

    fn take_revoked(&mut self) -> Vec<(Arc<str>, i32)> {
        std::mem::take(&mut *lock(&self.state.revoked))
    }

    fn ownership(&self) -> Ownership {
        // Revocations take the partition out of `assigned` inside librdkafka's poll, on the
        // polling thread, before the rebalance can hand it to another member.
        let state = self.state.clone();
        Ownership::new(move |topic, partition| {
            lock(&state.assigned).contains(&(topic.to_string(), partition))
        })
    }

    fn lag(&self) -> Vec<PartitionLag> {
        let assigned = lock(&self.state.assigned);
        let lag = lock(&self.state.lag);
        assigned
            .iter()
            .filter_map(|key| {
                lag.get(key).map(|l| PartitionLag {
                    topic: Arc::from(key.0.as_str()),
                    partition: key.1,
                    lag: *l,
                })
            })
            .collect()
    }

    fn joined(&self) -> bool {
        self.state.joined.load(Ordering::Relaxed)
    }

    async fn close(self: Box<Self>) -> Result<()> {
        self.stop.store(true, Ordering::Relaxed);
        let this = *self;
        // Dropping the receiver frees a poll thread blocked on a full channel.
        drop(this.receiver);
        if let Some(thread) = this.thread {
            let _ = tokio::task::spawn_blocking(move || thread.join()).await;
        }
        let (consumer, state, leave) = (this.consumer, this.state, this.leave);
        // Settling, committing and leaving the group are blocking network exchanges.
        tokio::task::spawn_blocking(move || {
            if let Some(quiet) = leave {
                settle(&consumer, &state, quiet);
            }
            let result = commit_sync(&consumer);
            if leave.is_some() {
                // Dropping the consumer closes it: its partitions are revoked and it leaves the
                // group at once. (`unsubscribe` first would, with the cooperative protocol, start
                // one more JoinGroup round and leave in the middle of it — the case `settle`
                // avoids.)
                drop(consumer);
            } else {
                vanish(consumer);
            }
            result
        })
        .await
        .map_err(|_| BusError::Closed)?
    }
}
