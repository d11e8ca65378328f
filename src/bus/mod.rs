//! The bus: topics with partitions, producers, and consumer groups with committed offsets.
//!
//! Stage code sees only the traits here. Two backends implement them: [`embedded`] (in-process, the
//! default, no services) and [`kafka`] (rdkafka against any Kafka-protocol broker). Both pass the same
//! conformance suite (`tests/bus_conformance.rs`).
//!
//! Delivery contract, the same on both: messages of one partition are delivered in order; a consumer
//! group splits partitions among its members; a consumer marks progress with
//! [`Consumer::store_offset`] only after the outputs derived from a message are acknowledged, and
//! stored offsets are committed on a timer, on partition revocation and on [`Consumer::close`]; a new
//! member resumes at the committed offset (at-least-once).

pub mod embedded;
pub mod kafka;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;

/// Errors of the bus.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BusError {
    /// The topic does not exist.
    #[error("unknown topic `{0}` (create it with `altflow topics create`)")]
    UnknownTopic(String),
    /// A Kafka client operation failed.
    #[error("kafka {op}: {source}")]
    Kafka {
        /// What was being done.
        op: &'static str,
        /// The client's error.
        #[source]
        source: rdkafka::error::KafkaError,
    },
    /// The bus was closed while waiting.
    #[error("bus closed")]
    Closed,
}

/// `Result` with [`BusError`].
pub type Result<T, E = BusError> = std::result::Result<T, E>;

/// A message read from a topic.
#[derive(Clone, Debug)]
pub struct Message {
    /// Topic it was read from.
    pub topic: Arc<str>,
    /// Partition within the topic.
    pub partition: i32,
    /// Offset within the partition.
    pub offset: i64,
    /// Partitioning key.
    pub key: Bytes,
    /// Encoded record.
    pub payload: Bytes,
}

/// A message to produce. Messages with the same key go to the same partition.
#[derive(Clone, Debug)]
pub struct OutMessage {
    /// Destination topic.
    pub topic: Arc<str>,
    /// Partitioning key.
    pub key: Bytes,
    /// Encoded record.
    pub payload: Bytes,
}

/// A topic to create.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicSpec {
    /// Topic name.
    pub name: String,
    /// Number of partitions.
    pub partitions: i32,
}

/// How far a consumer is behind on one partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionLag {
    /// Topic.
    pub topic: Arc<str>,
    /// Partition.
    pub partition: i32,
    /// Messages between the consumer's position and the end of the partition.
    pub lag: i64,
}

/// A bus backend: creates topics, producers and consumers.
#[async_trait]
pub trait Bus: Send + Sync {
    /// Creates the topics that do not exist yet; existing topics are left as they are.
    async fn create_topics(&self, topics: &[TopicSpec]) -> Result<()>;
    /// A producer. Producers are cheap to share.
    fn producer(&self) -> Result<Arc<dyn Producer>>;
    /// A new member of consumer group `group`, subscribed to `topics`.
    async fn consumer(&self, group: &str, topics: &[String]) -> Result<Box<dyn Consumer>>;
    /// Before `group` joins: for each partition of `topics` where one of the groups `from` has
    /// committed an offset past `group`'s own (or `group` has none), commits that offset for
    /// `group`, so that a stage which takes over a topic from another stage (the pipeline's stages
    /// changed: one added in front of it, or the one that read it removed) starts where the topic's
    /// last reader stopped instead of reading it all again. Returns what it moved. A bus whose
    /// groups do not outlive the process has nothing to hand over.
    async fn hand_over(
        &self,
        _group: &str,
        _topics: &[String],
        _from: &[String],
    ) -> Result<Vec<Handover>> {
        Ok(Vec::new())
    }

    /// The partitions of `topics` (those that exist) where `group` has committed an offset short of
    /// the partition's end: records the group began reading and left. A stage whose input changed
    /// asks it of the topics no stage reads any more, whose unread records would otherwise be lost
    /// (the stage before it was removed). A bus whose groups do not outlive the process has none.
    async fn unread(&self, _group: &str, _topics: &[String]) -> Result<Vec<Unread>> {
        Ok(Vec::new())
    }
}

/// A partition a group has read part of: its committed offset is below the partition's end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unread {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// The group's committed offset.
    pub committed: i64,
    /// Where the partition ends, as far as is known: its high watermark (the offset its next
    /// record will take), or one past the record a read found there where the broker's watermark
    /// lags (a lower bound).
    pub end: i64,
}

/// A partition whose start [`Bus::hand_over`] moved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handover {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// The group's committed offset before, if it had one.
    pub before: Option<i64>,
    /// The offset committed for the group: where `from_group` stopped.
    pub offset: i64,
    /// The group whose committed offset it took.
    pub from_group: String,
}

/// Sends messages.
#[async_trait]
pub trait Producer: Send + Sync {
    /// Sends every message and returns once all of them are acknowledged by the bus. A full bus makes
    /// this wait (backpressure); nothing is dropped.
    async fn send_all(&self, messages: Vec<OutMessage>) -> Result<()>;
}

/// A member of a consumer group.
#[async_trait]
pub trait Consumer: Send {
    /// Waits up to `timeout` for messages and returns at most `max` of them (possibly none).
    ///
    /// Cancel-safe: a poll dropped before it returns has taken no message (the pipelined runner
    /// races it against finished work).
    async fn poll(&mut self, max: usize, timeout: Duration) -> Result<Vec<Message>>;
    /// Marks every message of `topic`/`partition` before `next_offset` as done. Stored offsets are
    /// committed later (timer, revocation, close). Storing for a partition this member no longer owns
    /// is ignored.
    fn store_offset(&mut self, topic: &str, partition: i32, next_offset: i64) -> Result<()>;
    /// Commits the stored offsets now and waits for the commit.
    async fn commit(&mut self) -> Result<()>;
    /// Partitions this member owns now.
    fn assignment(&self) -> Vec<(Arc<str>, i32)>;
    /// A handle that tells, from any task and at any moment, whether this member owns a
    /// partition: unlike [`Consumer::take_revoked`], it sees a rebalance that happens while a
    /// batch is being processed.
    fn ownership(&self) -> Ownership {
        Ownership::everything()
    }
    /// Partitions taken from this member since the last call (by a rebalance).
    fn take_revoked(&mut self) -> Vec<(Arc<str>, i32)>;
    /// Current lag per owned partition, where the backend knows it.
    fn lag(&self) -> Vec<PartitionLag>;
    /// Whether this member has joined its group: it has received an assignment, or its group is
    /// steady with it in it (a member of a group with more members than partitions owns nothing).
    /// A member of an in-process bus is a member from the start.
    fn joined(&self) -> bool {
        true
    }
    /// Commits stored offsets and leaves the group.
    async fn close(self: Box<Self>) -> Result<()>;
}

/// Whether this member owns a partition now ([`Consumer::ownership`]).
#[derive(Clone, Default)]
pub struct Ownership(Option<Arc<OwnsFn>>);

/// `owns(topic, partition)`.
type OwnsFn = dyn Fn(&str, i32) -> bool + Send + Sync;

impl Ownership {
    /// Every partition, always: a bus whose members never lose partitions to other processes.
    pub fn everything() -> Self {
        Self(None)
    }

    /// Ownership as `owns(topic, partition)` answers it.
    pub fn new(owns: impl Fn(&str, i32) -> bool + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(owns)))
    }

    /// Whether this member owns `topic`/`partition` now.
    pub fn owns(&self, topic: &str, partition: i32) -> bool {
        self.0.as_ref().is_none_or(|owns| owns(topic, partition))
    }
}

/// FNV-1a of `bytes`: a 64-bit hash stable across processes and versions (the standard library's
/// hashers are seeded per process).
pub fn stable_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The partition a key maps to: [`stable_hash`], so that every process agrees.
pub fn partition_for(key: &[u8], partitions: i32) -> i32 {
    (stable_hash(key) % partitions.max(1) as u64) as i32
}
