//! Every metric altflow exports, in one place.
//!
//! Stage code never touches Prometheus directly: it records through a [`StageMetrics`] handle, which
//! counts into the process-wide registry served at `/metrics` and read back for the run's funnel
//! summary. Labels are bounded: stage names, reason codes, error kinds and partition numbers, never URLs.

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Duration;

use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

struct Metrics {
    registry: Registry,
    records_in: IntCounterVec,
    records_out: IntCounterVec,
    rejected: IntCounterVec,
    retried: IntCounterVec,
    errors: IntCounterVec,
    processing: HistogramVec,
    lag: IntGaugeVec,
    record_wait: HistogramVec,
    in_flight_records: IntGaugeVec,
    http_in_flight: IntGaugeVec,
    http_queued: IntGaugeVec,
    http_hosts_queued: IntGaugeVec,
    crawl_delay_capped: IntCounterVec,
    shards: IntCounter,
    shard_bytes: IntCounter,
    qa: IntCounterVec,
    qa_dropped: IntCounterVec,
    qa_not_described: IntCounterVec,
    partitions_assigned: IntGaugeVec,
    rebalances: IntCounterVec,
    ready: IntGaugeVec,
    last_shard: IntGauge,
    shards_fenced: IntCounter,
    shards_adopted: IntCounter,
    archive_bytes: IntCounterVec,
    archive_segments_skipped: IntCounterVec,
    retry_parked: IntGaugeVec,
    retry_spill_bytes: IntGauge,
    names: Vec<String>,
}

fn metrics() -> &'static Metrics {
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    METRICS.get_or_init(|| {
        let registry = Registry::new_custom(Some("altflow".into()), None).expect("valid prefix");
        // Every family's exposed name, kept at registration: the text exposition omits labelled
        // families with no series yet, and dashboards may name those too.
        let names = std::cell::RefCell::new(Vec::new());
        let register = |collector: Box<dyn prometheus::core::Collector>| {
            let exposed = collector.desc().into_iter().map(|d| format!("altflow_{}", d.fq_name));
            names.borrow_mut().extend(exposed);
            registry.register(collector).expect("unique metric");
        };
        let counter = |name: &str, help: &str, labels: &[&str]| {
            let c = IntCounterVec::new(Opts::new(name, help), labels).expect("valid metric");
            register(Box::new(c.clone()));
            c
        };
        let records_in = counter("records_in_total", "Records a stage read.", &["stage"]);
        let records_out = counter(
            "records_out_total",
            "Records a stage produced to its output topic.",
            &["stage"],
        );
        let rejected = counter(
            "rejected_total",
            "Records a stage rejected, by reason code.",
            &["stage", "reason"],
        );
        let retried = counter(
            "retried_total",
            "Records a stage sent to the retry topic after a transient failure, by reason code.",
            &["stage", "reason"],
        );
        let errors = counter(
            "errors_total",
            "Errors a stage met, by kind: decode (input sent to dead letters), produce, offset, process.",
            &["stage", "kind"],
        );
        let processing = HistogramVec::new(
            HistogramOpts::new(
                "batch_processing_seconds",
                "Time a stage spent processing one batch, producing included.",
            )
            .buckets(prometheus::exponential_buckets(0.000_5, 2.0, 16).expect("valid buckets")),
            &["stage"],
        )
        .expect("valid metric");
        register(Box::new(processing.clone()));
        let lag = IntGaugeVec::new(
            Opts::new(
                "consumer_lag",
                "Messages not yet read, per input partition.",
            ),
            &["stage", "topic", "partition"],
        )
        .expect("valid metric");
        register(Box::new(lag.clone()));
        let gauge = |name: &str, help: &str| {
            let g = IntGaugeVec::new(Opts::new(name, help), &["stage"]).expect("valid metric");
            register(Box::new(g.clone()));
            g
        };
        let record_wait = HistogramVec::new(
            HistogramOpts::new(
                "record_wait_seconds",
                "Time from a record's poll to its outputs' acknowledgement, in stages that keep \
                 records in flight across polls (queueing, politeness and the work itself).",
            )
            .buckets(prometheus::exponential_buckets(0.001, 2.0, 18).expect("valid buckets")),
            &["stage"],
        )
        .expect("valid metric");
        register(Box::new(record_wait.clone()));
        let in_flight_records = gauge(
            "records_in_flight",
            "Records a stage member has taken from its input and not yet finished.",
        );
        let http_in_flight = gauge(
            "http_requests_in_flight",
            "HTTP requests of a stage member on the wire now.",
        );
        let http_queued = gauge(
            "http_requests_queued",
            "HTTP requests of a stage member waiting for their host's politeness or a connection.",
        );
        let http_hosts_queued = gauge(
            "http_hosts_queued",
            "Hosts with at least one request of a stage member waiting for them.",
        );
        let crawl_delay_capped = counter(
            "crawl_delay_capped_total",
            "Hosts whose robots.txt asked for a Crawl-delay longer than http.max_crawl_delay, paced \
             at the cap instead (counted when a member starts pacing a host so).",
            &["stage"],
        );
        let plain = |name: &str, help: &str| {
            let c = IntCounter::new(name, help).expect("valid metric");
            register(Box::new(c.clone()));
            c
        };
        let shards = plain(
            "shards_written_total",
            "Shards written to the object store.",
        );
        let shard_bytes = plain("shard_bytes_written_total", "Bytes of tar shards written.");
        let qa = counter(
            "qa_total",
            "Question–answer pairs kept, by answer type.",
            &["answer_type"],
        );
        let qa_dropped = counter(
            "qa_dropped_total",
            "Questions written and not kept, by why: round_trip, vocabulary, over_limit.",
            &["reason"],
        );
        let qa_not_described = counter(
            "qa_captions_not_described_total",
            "Captions given no questions because they describe no picture, by why: headline, \
             question, call_to_action, nothing_visible.",
            &["reason"],
        );
        let partitions_assigned = gauge(
            "partitions_assigned",
            "Input partitions a stage member owns now.",
        );
        let rebalances = counter(
            "rebalances_total",
            "Rebalances that took input partitions from a stage member.",
            &["stage"],
        );
        let ready = gauge(
            "ready",
            "1 once a stage member is ready (joined its group, store reachable, models loaded; \
             /readyz), else 0.",
        );
        let last_shard = IntGauge::new(
            "last_shard_timestamp_seconds",
            "Unix time this member last landed a shard; 0 before its first.",
        )
        .expect("valid metric");
        register(Box::new(last_shard.clone()));
        let shards_fenced = plain(
            "shards_fenced_total",
            "Shards a writer did not land, or took back, because another member had taken its \
             partition over (fencing).",
        );
        let shards_adopted = plain(
            "shards_adopted_total",
            "Shards landed but not committed by a partition's previous owner that its new owner \
             kept, skipping their records instead of writing them again.",
        );
        let archive_bytes = counter(
            "archive_bytes_read_total",
            "Bytes of archive files (as stored, compressed) an extract member read.",
            &["stage"],
        );
        let archive_segments_skipped = counter(
            "archive_segments_skipped_total",
            "Archive segments not read because the file's progress was already past them (a \
             segment published twice around a member's crash).",
            &["stage"],
        );
        let retry_parked = IntGaugeVec::new(
            Opts::new(
                "retry_parked_records",
                "Records the retry stage holds until their backoff has passed, by where they wait: \
                 memory, or disk (spilled past retry.memory_mb).",
            ),
            &["location"],
        )
        .expect("valid metric");
        register(Box::new(retry_parked.clone()));
        let retry_spill_bytes = IntGauge::new(
            "retry_spill_bytes",
            "Bytes of the retry stage's spill files on local disk.",
        )
        .expect("valid metric");
        register(Box::new(retry_spill_bytes.clone()));
        let mut names = names.into_inner();
        names.sort();
        Metrics {
            names,
            registry,
            records_in,
            records_out,
            rejected,
            retried,
            errors,
            processing,
            lag,
            record_wait,
            in_flight_records,
            http_in_flight,
            http_queued,
            http_hosts_queued,
            crawl_delay_capped,
            shards,
            shard_bytes,
            qa,
            qa_dropped,
            qa_not_described,
            partitions_assigned,
            rebalances,
            ready,
            last_shard,
            shards_fenced,
            shards_adopted,
            archive_bytes,
            archive_segments_skipped,
            retry_parked,
            retry_spill_bytes,
        }
    })
}

/// The metrics of one stage.
#[derive(Clone)]
pub struct StageMetrics {
    stage: &'static str,
    records_in: IntCounter,
    records_out: IntCounter,
    processing: Histogram,
    record_wait: Histogram,
    in_flight_records: IntGauge,
}

impl StageMetrics {
    /// The handle for `stage`.
    pub fn new(stage: &'static str) -> Self {
        let m = metrics();
        Self {
            stage,
            records_in: m.records_in.with_label_values(&[stage]),
            records_out: m.records_out.with_label_values(&[stage]),
            processing: m.processing.with_label_values(&[stage]),
            record_wait: m.record_wait.with_label_values(&[stage]),
            in_flight_records: m.in_flight_records.with_label_values(&[stage]),
        }
    }

    /// `n` records read.
    pub fn records_in(&self, n: usize) {
        self.records_in.inc_by(n as u64);
    }

    /// `n` records produced to the main output.
    pub fn records_out(&self, n: usize) {
        self.records_out.inc_by(n as u64);
    }

    /// One record rejected for `reason`.
    pub fn rejected(&self, reason: &str) {
        metrics()
            .rejected
            .with_label_values(&[self.stage, reason])
            .inc();
    }

    /// One record sent to the retry topic after a transient failure for `reason`.
    pub fn retried(&self, reason: &str) {
        metrics()
            .retried
            .with_label_values(&[self.stage, reason])
            .inc();
    }

    /// One error of `kind`.
    pub fn error(&self, kind: &'static str) {
        metrics()
            .errors
            .with_label_values(&[self.stage, kind])
            .inc();
    }

    /// Time spent on one batch.
    pub fn batch_time(&self, elapsed: Duration) {
        self.processing.observe(elapsed.as_secs_f64());
    }

    /// Lag of one input partition.
    pub fn lag(&self, topic: &str, partition: i32, lag: i64) {
        metrics()
            .lag
            .with_label_values(&[self.stage, topic, &partition.to_string()])
            .set(lag);
    }

    /// Partitions taken from this member by a rebalance: their lag is another member's to report
    /// now, and a stale value left here would be summed twice.
    pub fn revoked(&self, partitions: &[(std::sync::Arc<str>, i32)]) {
        metrics().rebalances.with_label_values(&[self.stage]).inc();
        for (topic, partition) in partitions {
            let _ = metrics()
                .lag
                .remove_label_values(&[self.stage, topic, &partition.to_string()]);
        }
    }

    /// The number of input partitions this member owns now.
    pub fn partitions_assigned(&self, n: usize) {
        metrics()
            .partitions_assigned
            .with_label_values(&[self.stage])
            .set(n as i64);
    }
}

impl StageMetrics {
    /// One record finished `waited` after it was polled.
    pub fn record_wait(&self, waited: Duration) {
        self.record_wait.observe(waited.as_secs_f64());
    }

    /// The number of records in flight changed by `delta`.
    pub fn records_in_flight(&self, delta: i64) {
        self.in_flight_records.add(delta);
    }

    /// One shard of `bytes` written.
    pub fn shard_written(&self, bytes: u64) {
        metrics().shards.inc();
        metrics().shard_bytes.inc_by(bytes);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        metrics().last_shard.set(now);
    }

    /// One shard not landed, or taken back, because another member owns its partition now.
    pub fn shard_fenced(&self) {
        metrics().shards_fenced.inc();
    }

    /// `bytes` of an archive file read (as stored).
    pub fn archive_read(&self, bytes: u64) {
        metrics()
            .archive_bytes
            .with_label_values(&[self.stage])
            .inc_by(bytes);
    }

    /// An archive segment was skipped: the file's progress was past it.
    pub fn archive_segment_skipped(&self) {
        metrics()
            .archive_segments_skipped
            .with_label_values(&[self.stage])
            .inc();
    }

    /// One shard of a previous owner kept at an adoption.
    pub fn shard_adopted(&self) {
        metrics().shards_adopted.inc();
    }
}

/// The HTTP gauges of one stage's politeness queues.
#[derive(Clone)]
pub struct WebMetrics {
    in_flight: IntGauge,
    queued: IntGauge,
    hosts_queued: IntGauge,
    crawl_delay_capped: IntCounter,
}

impl WebMetrics {
    /// The handle for `stage`.
    pub fn new(stage: &'static str) -> Self {
        let m = metrics();
        Self {
            in_flight: m.http_in_flight.with_label_values(&[stage]),
            queued: m.http_queued.with_label_values(&[stage]),
            hosts_queued: m.http_hosts_queued.with_label_values(&[stage]),
            crawl_delay_capped: m.crawl_delay_capped.with_label_values(&[stage]),
        }
    }

    /// Requests on the wire changed by `delta`.
    pub fn in_flight(&self, delta: i64) {
        self.in_flight.add(delta);
    }

    /// Requests waiting changed by `delta`.
    pub fn queued(&self, delta: i64) {
        self.queued.add(delta);
    }

    /// Hosts with waiting requests changed by `delta`.
    pub fn hosts_queued(&self, delta: i64) {
        self.hosts_queued.add(delta);
    }

    /// A host is now paced at `http.max_crawl_delay`, its robots.txt having asked for more.
    pub fn crawl_delay_capped(&self) {
        self.crawl_delay_capped.inc();
    }

    /// Hosts counted by [`WebMetrics::crawl_delay_capped`] so far.
    pub fn crawl_delays_capped(&self) -> u64 {
        self.crawl_delay_capped.get()
    }
}

/// The retry stage's backlog gauges.
pub struct RetryMetrics {
    memory: IntGauge,
    disk: IntGauge,
    spill_bytes: IntGauge,
}

impl RetryMetrics {
    /// The process's handle (one retry stage per process).
    pub fn new() -> Self {
        let m = metrics();
        Self {
            memory: m.retry_parked.with_label_values(&["memory"]),
            disk: m.retry_parked.with_label_values(&["disk"]),
            spill_bytes: m.retry_spill_bytes.clone(),
        }
    }

    /// `parked` records wait now, `on_disk` of them in spill files of `spill_bytes` bytes.
    pub fn parked(&self, parked: usize, on_disk: usize, spill_bytes: u64) {
        self.memory.set((parked - on_disk) as i64);
        self.disk.set(on_disk as i64);
        self.spill_bytes.set(spill_bytes as i64);
    }
}

impl Default for RetryMetrics {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether `stage` is ready (see `crate::health`).
pub fn ready(stage: &str, ready: bool) {
    metrics()
        .ready
        .with_label_values(&[stage])
        .set(i64::from(ready));
}

/// The name of every metric altflow exports, whether or not it has a value yet (the text
/// exposition omits labelled families with no series): what dashboards and alert rules may name.
pub fn names() -> Vec<String> {
    metrics().names.clone()
}

/// Counts question–answer pairs kept, by answer type, and dropped, by reason.
pub fn questions(kept_by_type: &[(&str, u64)], dropped: &[(&'static str, u64)]) {
    let m = metrics();
    for (t, n) in kept_by_type {
        m.qa.with_label_values(&[*t]).inc_by(*n);
    }
    for (reason, n) in dropped {
        if *n > 0 {
            m.qa_dropped.with_label_values(&[*reason]).inc_by(*n);
        }
    }
}

/// Captions the qgen stage gave no questions because they describe no picture, by why.
pub fn not_descriptions(by_reason: &[(&'static str, u64)]) {
    let m = metrics();
    for (reason, n) in by_reason {
        if *n > 0 {
            m.qa_not_described.with_label_values(&[*reason]).inc_by(*n);
        }
    }
}

/// The values of counter family `name` so far in this process, by its label `label`.
fn counter_by_label(name: &str, label: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for family in metrics().registry.gather() {
        if family.name() != name {
            continue;
        }
        for metric in family.get_metric() {
            let t = metric
                .get_label()
                .iter()
                .find(|l| l.name() == label)
                .map(|l| l.value().to_string())
                .unwrap_or_default();
            out.insert(t, metric.get_counter().get_value() as u64);
        }
    }
    out
}

/// Question–answer pairs kept so far in this process, by answer type.
pub fn questions_by_type() -> BTreeMap<String, u64> {
    counter_by_label("altflow_qa_total", "answer_type")
}

/// Captions given no questions so far in this process because they describe no picture, by why.
pub fn not_descriptions_by_reason() -> BTreeMap<String, u64> {
    counter_by_label("altflow_qa_captions_not_described_total", "reason")
}

/// Shards and tar bytes written so far in this process.
pub fn shards_written() -> (u64, u64) {
    (metrics().shards.get(), metrics().shard_bytes.get())
}

/// The Prometheus text exposition of every metric.
pub fn render() -> String {
    let mut out = Vec::new();
    TextEncoder::new()
        .encode(&metrics().registry.gather(), &mut out)
        .expect("text encoding cannot fail");
    String::from_utf8(out).expect("text exposition is UTF-8")
}

/// What one stage did, for the funnel summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageTotals {
    /// Records read.
    pub records_in: u64,
    /// Records produced to the main output.
    pub records_out: u64,
    /// Rejections by reason code.
    pub rejected: BTreeMap<String, u64>,
    /// Retries by reason code.
    pub retried: BTreeMap<String, u64>,
    /// Errors by kind.
    pub errors: BTreeMap<String, u64>,
}

/// Totals of `stage` so far in this process.
pub fn totals(stage: &str) -> StageTotals {
    let m = metrics();
    let mut totals = StageTotals {
        records_in: m.records_in.with_label_values(&[stage]).get(),
        records_out: m.records_out.with_label_values(&[stage]).get(),
        ..Default::default()
    };
    for family in m.registry.gather() {
        let target = match family.name() {
            "altflow_rejected_total" => &mut totals.rejected,
            "altflow_retried_total" => &mut totals.retried,
            "altflow_errors_total" => &mut totals.errors,
            _ => continue,
        };
        for metric in family.get_metric() {
            let label = |name: &str| {
                metric
                    .get_label()
                    .iter()
                    .find(|l| l.name() == name)
                    .map(|l| l.value().to_string())
            };
            if label("stage").as_deref() == Some(stage) {
                let key = label("reason")
                    .or_else(|| label("kind"))
                    .unwrap_or_default();
                let value = metric.get_counter().get_value() as u64;
                if value > 0 {
                    target.insert(key, value);
                }
            }
        }
    }
    totals
}
