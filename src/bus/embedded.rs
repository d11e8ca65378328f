//! The embedded bus: topics, partitions and consumer groups inside one process.
//!
//! It behaves like a Kafka cluster of one broker that keeps its log in memory:
//! - a topic has a fixed number of partitions, each an append-only log with offsets;
//! - a consumer group splits a topic's partitions among its members (partition `p` goes to the
//!   `p mod n`-th member in join order) and reassigns them when a member joins or leaves; a member
//!   that receives a partition starts at the group's committed offset;
//! - a producer waits while a partition holds `capacity` messages that some group has not read yet
//!   (backpressure: a full topic slows its producer, nothing is dropped);
//! - a topic marked as a feedback loop ([`EmbeddedBus::with_feedback_topics`]: the crawl frontier,
//!   which the crawler both reads and writes) never makes its producers wait, since the only reader
//!   that could make room would be the waiting producer itself;
//! - messages are freed once every group has committed past them, so memory stays bounded by
//!   `capacity` unread messages plus what consumers hold uncommitted. A topic no group reads (rejects,
//!   shard announcements in a local run) keeps its newest `capacity` messages, like Kafka's retention.
//!
//! Committing is immediate: there is nothing more durable to wait for in one process.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;

use crate::sync::lock;
use bytes::Bytes;
use futures::future::select_all;
use tokio::sync::Notify;
use tokio::sync::futures::Notified;

use super::{
    Bus, BusError, Consumer, Message, OutMessage, Ownership, PartitionLag, Producer, Result,
    TopicSpec, partition_for,
};

/// The in-process bus. Clones share the same topics.
#[derive(Clone)]
pub struct EmbeddedBus {
    inner: Arc<Inner>,
}

struct Inner {
    topics: Mutex<HashMap<String, Arc<Topic>>>,
    capacity: usize,
    unbounded: Vec<String>,
    next_member: AtomicU64,
}

struct Topic {
    name: Arc<str>,
    /// Producers never wait on this topic (a feedback loop).
    unbounded: bool,
    state: Mutex<TopicState>,
    /// Woken when messages are appended or partitions are reassigned.
    data: Notify,
    /// Woken when readers advance or messages are freed.
    space: Notify,
}

struct TopicState {
    logs: Vec<Log>,
    groups: HashMap<String, Group>,
}

/// One partition's retained messages: offsets `base .. base + entries.len()`.
#[derive(Default)]
struct Log {
    base: i64,
    entries: VecDeque<(Bytes, Bytes)>,
}

impl Log {
    fn end(&self) -> i64 {
        self.base + self.entries.len() as i64
    }
}

struct Group {
    /// Members in join order.
    members: BTreeMap<u64, Member>,
    committed: Vec<i64>,
}

#[derive(Default)]
struct Member {
    /// Next offset to read, per owned partition.
    positions: BTreeMap<i32, i64>,
    revoked: Vec<i32>,
}

impl Group {
    /// Recomputes who owns which partition after a membership change.
    fn rebalance(&mut self, partitions: i32) {
        let ids: Vec<u64> = self.members.keys().copied().collect();
        if ids.is_empty() {
            return;
        }
        for (index, id) in ids.iter().enumerate() {
            let owned: Vec<i32> = (0..partitions)
                .filter(|p| *p as usize % ids.len() == index)
                .collect();
            let member = self.members.get_mut(id).expect("member listed above");
            let lost: Vec<i32> = member
                .positions
                .keys()
                .copied()
                .filter(|p| !owned.contains(p))
                .collect();
            for p in lost {
                member.positions.remove(&p);
                member.revoked.push(p);
            }
            for p in owned {
                member
                    .positions
                    .entry(p)
                    .or_insert(self.committed[p as usize]);
            }
        }
    }

    /// The lowest offset the group still has to read on `partition`.
    fn read_floor(&self, partition: i32) -> i64 {
        self.members
            .values()
            .find_map(|m| m.positions.get(&partition).copied())
            .unwrap_or(self.committed[partition as usize])
    }
}

impl Topic {
    fn lock(&self) -> MutexGuard<'_, TopicState> {
        // A panic while holding the lock leaves plain data behind; keep serving it.
        lock(&self.state)
    }
}

impl TopicState {
    /// Frees messages every group has committed; without groups, keeps the newest `capacity`.
    fn evict(&mut self, partition: usize, capacity: usize) {
        let log = &mut self.logs[partition];
        let keep_from = if self.groups.is_empty() {
            log.end() - capacity as i64
        } else {
            self.groups
                .values()
                .map(|g| g.committed[partition])
                .min()
                .unwrap_or(0)
        };
        while log.base < keep_from && !log.entries.is_empty() {
            log.entries.pop_front();
            log.base += 1;
        }
    }

    fn unread(&self, partition: usize) -> i64 {
        let end = self.logs[partition].end();
        self.groups
            .values()
            .map(|g| end - g.read_floor(partition as i32))
            .max()
            .unwrap_or(0)
    }
}

impl EmbeddedBus {
    /// A bus whose partitions each hold at most `capacity` unread messages before producers wait.
    pub fn new(capacity: usize) -> Self {
        Self::with_feedback_topics(capacity, Vec::new())
    }

    /// A bus like [`EmbeddedBus::new`] whose topics named in `feedback` never make producers wait:
    /// for topics a stage both reads and writes, where waiting could deadlock the stage on itself.
    /// Their growth must be bounded by the producer (the crawler's depth and page limits).
    pub fn with_feedback_topics(capacity: usize, feedback: Vec<String>) -> Self {
        Self {
            inner: Arc::new(Inner {
                topics: Mutex::new(HashMap::new()),
                capacity: capacity.max(1),
                unbounded: feedback,
                next_member: AtomicU64::new(0),
            }),
        }
    }

    fn topic(&self, name: &str) -> Result<Arc<Topic>> {
        lock(&self.inner.topics)
            .get(name)
            .cloned()
            .ok_or_else(|| BusError::UnknownTopic(name.to_string()))
    }

    /// Messages some consumer group has not finished with, over all topics: for the groups in
    /// `read_only`, messages not yet read; for the others, messages not yet committed. Committing
    /// happens after a stage's outputs are produced, so zero means nothing is in flight anywhere.
    pub fn outstanding(&self, read_only: &[String]) -> i64 {
        let topics: Vec<Arc<Topic>> = lock(&self.inner.topics).values().cloned().collect();
        let mut total = 0;
        for topic in topics {
            let state = topic.lock();
            for (name, group) in &state.groups {
                for (p, log) in state.logs.iter().enumerate() {
                    let done = if read_only.contains(name) {
                        group.read_floor(p as i32)
                    } else {
                        group.committed[p]
                    };
                    total += (log.end() - done).max(0);
                }
            }
        }
        total
    }
}

#[async_trait]
impl Bus for EmbeddedBus {
    async fn create_topics(&self, topics: &[TopicSpec]) -> Result<()> {
        let mut map = lock(&self.inner.topics);
        for spec in topics {
            map.entry(spec.name.clone()).or_insert_with(|| {
                Arc::new(Topic {
                    name: Arc::from(spec.name.as_str()),
                    unbounded: self.inner.unbounded.contains(&spec.name),
                    state: Mutex::new(TopicState {
                        logs: (0..spec.partitions.max(1))
                            .map(|_| Log::default())
                            .collect(),
                        groups: HashMap::new(),
                    }),
                    data: Notify::new(),
                    space: Notify::new(),
                })
            });
        }
        Ok(())
    }

    fn producer(&self) -> Result<Arc<dyn Producer>> {
        Ok(Arc::new(EmbeddedProducer { bus: self.clone() }))
    }

    async fn consumer(&self, group: &str, topics: &[String]) -> Result<Box<dyn Consumer>> {
        let member = self.inner.next_member.fetch_add(1, Ordering::Relaxed);
        let mut subscribed = Vec::with_capacity(topics.len());
        for name in topics {
            let topic = self.topic(name)?;
            {
                let mut state = topic.lock();
                let partitions = state.logs.len();
                let group = state
                    .groups
                    .entry(group.to_string())
                    .or_insert_with(|| Group {
                        members: BTreeMap::new(),
                        committed: vec![0; partitions],
                    });
                group.members.insert(member, Member::default());
                group.rebalance(partitions as i32);
            }
            topic.data.notify_waiters();
            subscribed.push(topic);
        }
        Ok(Box::new(EmbeddedConsumer {
            group: group.to_string(),
            member,
            topics: subscribed,
            capacity: self.inner.capacity,
            rotation: 0,
            left: false,
        }))
    }
}

struct EmbeddedProducer {
    bus: EmbeddedBus,
}

#[async_trait]
impl Producer for EmbeddedProducer {
    async fn send_all(&self, messages: Vec<OutMessage>) -> Result<()> {
        let capacity = self.bus.inner.capacity as i64;
        for message in messages {
            let topic = self.bus.topic(&message.topic)?;
            loop {
                // Register interest before looking, so a reader advancing in between is not missed.
                let mut space = std::pin::pin!(topic.space.notified());
                space.as_mut().enable();
                {
                    let mut state = topic.lock();
                    let partition = partition_for(&message.key, state.logs.len() as i32) as usize;
                    if topic.unbounded || state.unread(partition) < capacity {
                        state.logs[partition]
                            .entries
                            .push_back((message.key.clone(), message.payload.clone()));
                        state.evict(partition, capacity as usize);
                        drop(state);
                        topic.data.notify_waiters();
                        break;
                    }
                }
                space.await;
            }
        }
        Ok(())
    }
}

struct EmbeddedConsumer {
    group: String,
    member: u64,
    topics: Vec<Arc<Topic>>,
    capacity: usize,
    /// Where the next fetch starts, so that no partition starves the others.
    rotation: usize,
    left: bool,
}

impl EmbeddedConsumer {
    fn with_member<R>(&self, topic: &Topic, f: impl FnOnce(&mut TopicState, u64, &str) -> R) -> R {
        let mut state = topic.lock();
        f(&mut state, self.member, &self.group)
    }

    fn leave(&mut self) {
        if self.left {
            return;
        }
        self.left = true;
        for topic in &self.topics {
            {
                let mut state = topic.lock();
                let partitions = state.logs.len() as i32;
                if let Some(group) = state.groups.get_mut(&self.group) {
                    group.members.remove(&self.member);
                    group.rebalance(partitions);
                }
            }
            topic.data.notify_waiters();
            topic.space.notify_waiters();
        }
    }
}

/// Reads up to `max` messages from the partitions `member` owns, advancing its positions.
fn fetch(
    topics: &[Arc<Topic>],
    group: &str,
    member: u64,
    rotation: &mut usize,
    max: usize,
) -> Vec<Message> {
    let mut out = Vec::new();
    *rotation = rotation.wrapping_add(1);
    for topic in topics {
        let mut state = topic.lock();
        let TopicState { logs, groups } = &mut *state;
        let Some(member) = groups
            .get_mut(group)
            .and_then(|g| g.members.get_mut(&member))
        else {
            continue;
        };
        let owned: Vec<i32> = member.positions.keys().copied().collect();
        if owned.is_empty() {
            continue;
        }
        let start = *rotation % owned.len();
        let mut advanced = false;
        for i in 0..owned.len() {
            let p = owned[(start + i) % owned.len()];
            let log = &logs[p as usize];
            let position = member.positions.get_mut(&p).expect("owned partition");
            // A group that joined late starts at the oldest retained message.
            let mut offset = (*position).max(log.base);
            while offset < log.end() && out.len() < max {
                let (key, payload) = &log.entries[(offset - log.base) as usize];
                out.push(Message {
                    topic: topic.name.clone(),
                    partition: p,
                    offset,
                    key: key.clone(),
                    payload: payload.clone(),
                });
                offset += 1;
            }
            advanced |= offset != *position;
            *position = offset;
        }
        drop(state);
        if advanced {
            topic.space.notify_waiters();
        }
        if out.len() >= max {
            break;
        }
    }
    out
}

#[async_trait]
impl Consumer for EmbeddedConsumer {
    async fn poll(&mut self, max: usize, timeout: Duration) -> Result<Vec<Message>> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let mut waits: Vec<Pin<Box<Notified<'_>>>> = self
                .topics
                .iter()
                .map(|t| Box::pin(t.data.notified()))
                .collect();
            for wait in &mut waits {
                wait.as_mut().enable();
            }
            let batch = fetch(
                &self.topics,
                &self.group,
                self.member,
                &mut self.rotation,
                max.max(1),
            );
            if !batch.is_empty() {
                return Ok(batch);
            }
            if tokio::time::timeout_at(deadline, select_all(waits))
                .await
                .is_err()
            {
                return Ok(Vec::new());
            }
        }
    }

    fn store_offset(&mut self, topic: &str, partition: i32, next_offset: i64) -> Result<()> {
        let Some(t) = self.topics.iter().find(|t| &*t.name == topic).cloned() else {
            return Err(BusError::UnknownTopic(topic.to_string()));
        };
        let capacity = self.capacity;
        self.with_member(&t, |state, member, group| {
            let Some(g) = state.groups.get_mut(group) else {
                return;
            };
            let Some(m) = g.members.get_mut(&member) else {
                return;
            };
            if m.positions.contains_key(&partition) {
                // In one process a store is as durable as a commit can be: commit at once.
                g.committed[partition as usize] = next_offset;
                state.evict(partition as usize, capacity);
            }
        });
        t.space.notify_waiters();
        Ok(())
    }

    async fn commit(&mut self) -> Result<()> {
        // Stores are committed as they happen (see `store_offset`).
        Ok(())
    }

    fn assignment(&self) -> Vec<(Arc<str>, i32)> {
        let mut out = Vec::new();
        for topic in &self.topics {
            self.with_member(topic, |state, member, group| {
                if let Some(m) = state.groups.get(group).and_then(|g| g.members.get(&member)) {
                    out.extend(m.positions.keys().map(|p| (topic.name.clone(), *p)));
                }
            });
        }
        out
    }

    fn ownership(&self) -> Ownership {
        let (topics, group, member) = (self.topics.clone(), self.group.clone(), self.member);
        Ownership::new(move |name, partition| {
            topics.iter().filter(|t| &*t.name == name).any(|topic| {
                let state = topic.lock();
                state
                    .groups
                    .get(&group)
                    .and_then(|g| g.members.get(&member))
                    .is_some_and(|m| m.positions.contains_key(&partition))
            })
        })
    }

    fn take_revoked(&mut self) -> Vec<(Arc<str>, i32)> {
        let mut out = Vec::new();
        for topic in &self.topics {
            self.with_member(topic, |state, member, group| {
                if let Some(m) = state
                    .groups
                    .get_mut(group)
                    .and_then(|g| g.members.get_mut(&member))
                {
                    out.extend(m.revoked.drain(..).map(|p| (topic.name.clone(), p)));
                }
            });
        }
        out
    }

    fn lag(&self) -> Vec<PartitionLag> {
        let mut out = Vec::new();
        for topic in &self.topics {
            self.with_member(topic, |state, member, group| {
                if let Some(m) = state.groups.get(group).and_then(|g| g.members.get(&member)) {
                    for (p, position) in &m.positions {
                        out.push(PartitionLag {
                            topic: topic.name.clone(),
                            partition: *p,
                            lag: state.logs[*p as usize].end() - position,
                        });
                    }
                }
            });
        }
        out
    }

    async fn close(mut self: Box<Self>) -> Result<()> {
        self.leave();
        Ok(())
    }
}

impl Drop for EmbeddedConsumer {
    fn drop(&mut self) {
        self.leave();
    }
}
