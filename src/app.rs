//! Assembling and running a pipeline: the bus, its topics, the stages, shutdown, and the funnel report.

use std::fmt;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::bus::embedded::EmbeddedBus;
use crate::bus::kafka::{KafkaBus, KafkaSettings};
use crate::bus::{Bus, BusError, Consumer, OutMessage, Producer, TopicSpec};
use crate::config::{BusKind, ConfigError, Pipeline, StageName};
use crate::metrics::{self, StageTotals};
use crate::record::{ArchiveSegment, Candidate, CrawlRequest, Record};
use crate::stage::pipelined::run_pipelined;
use crate::stage::runner::{RunnerSettings, run_stage};
use crate::stage::{Pipelined, Stage, StageError};
use crate::stages::crawl::CrawlStage;
use crate::stages::dedup::DedupStage;
use crate::stages::extract::ExtractStage;
use crate::stages::failures::FailuresStage;
use crate::stages::fetch::FetchStage;
use crate::stages::filter::FilterStage;
use crate::stages::host_key;
use crate::stages::qgen::QgenStage;
use crate::stages::retry::RetryStage;
use crate::stages::score::ScoreStage;
use crate::web::Web;
use crate::writer::WriterStage;
use crate::writer::store::Store;

/// Errors of a run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AppError {
    /// The pipeline file is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The bus failed.
    #[error("bus: {0}")]
    Bus(#[from] BusError),
    /// A stage failed.
    #[error("stage {stage}: {source}")]
    Stage {
        /// Which.
        stage: StageName,
        /// Why.
        #[source]
        source: StageError,
    },
    /// A stage task panicked or was cancelled.
    #[error("stage {0} stopped abnormally")]
    Crashed(StageName),
    /// A local server could not start.
    #[error("cannot serve {what} on {addr}: {source}")]
    Serve {
        /// Which server.
        what: &'static str,
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A URL list could not be read.
    #[error(transparent)]
    Source(#[from] crate::sources::SourceError),
    /// The output store could not be opened.
    #[error("output: {0}")]
    Store(#[from] crate::writer::store::StoreError),
    /// The failures of an earlier run could not be read.
    #[error("reading failures: {0}")]
    Failures(#[from] crate::writer::WriterError),
    /// The command does not fit the pipeline.
    #[error("{0}")]
    Usage(String),
}

/// Opens the bus the pipeline names. The embedded bus is returned twice: as the trait object the
/// stages use, and concretely so that `run` can tell when the pipeline has drained.
pub fn open_bus(pipeline: &Pipeline) -> (Arc<dyn Bus>, Option<EmbeddedBus>) {
    match pipeline.bus.kind {
        BusKind::Embedded => {
            // Topics on a cycle take no backpressure, or the cycle could wait on itself: the
            // crawler reads and writes the frontier (a page with many links would make it wait for
            // itself), and fetch and crawl park transient failures on `retry`, whose stage sends
            // them back to their inputs (fetch waiting on a full `retry` while the retry stage
            // waits on a full `accepted` stops both for good). What enters a cycle from outside
            // still waits, so the cycle holds at most the records admitted into it: each on one of
            // its topics or in its stages, until it succeeds or its attempts are spent. The extract
            // stage feeds its own input too (a file's next segment): `archives` holds one record
            // per file listed, and the seeder that fills it would otherwise wait on the stage that
            // waits on it.
            let bus = EmbeddedBus::with_feedback_topics(
                pipeline.bus.capacity,
                vec![
                    pipeline.topic("frontier"),
                    pipeline.topic("retry"),
                    pipeline.topic("archives"),
                ],
            );
            (Arc::new(bus.clone()), Some(bus))
        }
        BusKind::Kafka => {
            let settings = KafkaSettings {
                brokers: pipeline.bus.brokers.clone().unwrap_or_default(),
                replication_factor: pipeline.bus.replication_factor,
                commit_interval: pipeline.bus.commit_interval,
                leave_group_on_close: pipeline.bus.leave_group_on_close,
                options: pipeline.bus.options.clone(),
                consumer_options: pipeline.bus.consumer_options.clone(),
                producer_options: pipeline.bus.producer_options.clone(),
            };
            (Arc::new(KafkaBus::new(settings)), None)
        }
    }
}

/// Creates every topic of the pipeline that does not exist yet.
pub async fn create_topics(bus: &dyn Bus, pipeline: &Pipeline) -> Result<Vec<TopicSpec>, AppError> {
    let specs: Vec<TopicSpec> = pipeline
        .all_topics()
        .into_iter()
        .map(|name| TopicSpec {
            name,
            partitions: pipeline.bus.partitions,
        })
        .collect();
    bus.create_topics(&specs).await?;
    Ok(specs)
}

/// The base URL of the sample site when the pipeline has one on a fixed port (multi-process runs).
pub fn fixed_site_url(pipeline: &Pipeline) -> Option<String> {
    pipeline
        .sample_site
        .as_ref()
        .filter(|s| s.listen.port() != 0)
        .map(|s| format!("http://{}", s.listen))
}

/// Sends the chunks a source hands to a callback (which cannot return an error), keeping the first
/// bus error for the end.
struct ChunkSender<'a> {
    producer: &'a dyn Producer,
    failed: std::sync::Mutex<Option<BusError>>,
}

impl<'a> ChunkSender<'a> {
    fn new(producer: &'a dyn Producer) -> Self {
        Self {
            producer,
            failed: std::sync::Mutex::new(None),
        }
    }

    async fn send(&self, messages: Vec<OutMessage>) {
        if let Err(error) = self.producer.send_all(messages).await {
            crate::sync::lock(&self.failed).get_or_insert(error);
        }
    }

    fn finish(self) -> Result<(), BusError> {
        match self.failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

/// Publishes the pipeline's seed URLs to the frontier, its URL lists to the candidates and its
/// archives (read here, or named on the archives topic for the extract stage); returns how many.
pub async fn seed(
    producer: &dyn Producer,
    pipeline: &Pipeline,
    site_url: Option<&str>,
) -> Result<usize, AppError> {
    seed_and_remember(producer, pipeline, site_url, &mut Published::default()).await
}

/// The archive files published so far, per `[[archives]]` entry: what a follower does not
/// publish again.
#[derive(Debug, Default)]
pub struct Published(Vec<std::collections::HashSet<String>>);

impl Published {
    /// Keeps those of `files` (listed for entry `source`) not published before, and remembers them.
    fn fresh(&mut self, source: usize, files: Vec<String>) -> Vec<String> {
        if self.0.len() <= source {
            self.0.resize_with(source + 1, Default::default);
        }
        files
            .into_iter()
            .filter(|f| self.0[source].insert(f.clone()))
            .collect()
    }
}

/// [`seed`], remembering the archive files published in `published` (for [`follow_archives`]).
pub async fn seed_and_remember(
    producer: &dyn Producer,
    pipeline: &Pipeline,
    site_url: Option<&str>,
    published: &mut Published,
) -> Result<usize, AppError> {
    let seeds = pipeline.seeds(site_url)?;
    if let Some(unresolved) = seeds.iter().find(|s| s.contains("{sample_site}")) {
        return Err(AppError::Usage(format!(
            "seed `{unresolved}` needs the sample site's address: give [sample_site] a fixed port"
        )));
    }
    let topic: Arc<str> = Arc::from(pipeline.topic("frontier"));
    let messages: Vec<OutMessage> = seeds
        .iter()
        .map(|url| OutMessage {
            topic: topic.clone(),
            key: host_key(url).into_bytes().into(),
            payload: CrawlRequest {
                url: url.clone(),
                depth: 0,
                ..CrawlRequest::default()
            }
            .to_bytes()
            .into(),
        })
        .collect();
    let mut count = messages.len();
    producer.send_all(messages).await?;

    // URL lists and archives go straight to the candidates topic, in chunks: a full bus slows the
    // reading.
    let candidates: Arc<str> = Arc::from(pipeline.topic("candidates"));
    let sender = ChunkSender::new(producer);
    let send = |chunk: Vec<Candidate>| {
        sender.send(
            chunk
                .iter()
                .map(|c| OutMessage {
                    topic: candidates.clone(),
                    key: c.id.clone().into_bytes().into(),
                    payload: c.to_bytes().into(),
                })
                .collect(),
        )
    };
    for list in &pipeline.url_lists {
        let read = crate::sources::read_url_list(list, 1000, send).await?;
        tracing::info!(list = %list.path.display(), candidates = read, "published a URL list");
        count += read as usize;
    }
    let agent = opt_out_agent(pipeline);
    for (source, archive) in pipeline.archives.iter().enumerate() {
        // An entry that cannot be listed does not lose the others: logged, the next one is read.
        let files = match crate::sources::listing::list_archives(archive).await {
            Ok(files) => files,
            Err(error) => {
                tracing::error!(%error, "an [[archives]] entry could not be listed");
                continue;
            }
        };
        if files.is_empty() {
            tracing::warn!(?archive, "an [[archives]] entry names no file");
        }
        if archive.select.is_some() {
            count += publish_selection(producer, pipeline, source, &files).await?;
            continue;
        }
        let files = published.fresh(source, files);
        if pipeline.stages.contains(&StageName::Extract) {
            count += publish_archives(producer, pipeline, source, &files).await?;
            continue;
        }
        for path in files {
            // One damaged archive does not lose the others: its error is logged, the next one is
            // read.
            let options = &archive.store_options;
            match crate::sources::read_archive(&path, options, agent.clone(), 1000, send).await {
                Ok(read) => {
                    tracing::info!(archive = %path, candidates = read, "published an archive");
                    count += read as usize;
                }
                Err(error) => tracing::error!(%error, "archive not read to its end"),
            }
        }
    }
    sender.finish()?;
    Ok(count)
}

/// Names `files` (of `[[archives]]` entry `source`) on the archives topic for the extract stage,
/// whose members share them out: one record each, keyed by the file, so that its segments follow
/// one another on one partition. Returns how many.
async fn publish_archives(
    producer: &dyn Producer,
    pipeline: &Pipeline,
    source: usize,
    files: &[String],
) -> Result<usize, AppError> {
    let topic: Arc<str> = Arc::from(pipeline.topic("archives"));
    let messages: Vec<OutMessage> = files
        .iter()
        .map(|path| {
            archive_message(
                &topic,
                ArchiveSegment {
                    path: path.clone(),
                    source: source as u32,
                    ..Default::default()
                },
            )
        })
        .collect();
    producer.send_all(messages).await?;
    tracing::info!(
        files = files.len(),
        "published archives for the extract stage"
    );
    Ok(files.len())
}

/// A segment for the archives topic, keyed by its file so that a file's records share a partition.
fn archive_message(topic: &Arc<str>, segment: ArchiveSegment) -> OutMessage {
    OutMessage {
        topic: topic.clone(),
        key: segment.path.clone().into_bytes().into(),
        payload: segment.to_bytes().into(),
    }
}

/// Runs `[[archives]]` entry `source`'s selection over the index files `index` and publishes the
/// records it keeps on the archives topic, grouped by WARC file, for the extract stage. Returns how
/// many records. A selection that cannot run (a bad condition, an unreadable index) fails the
/// seeding, naming the entry's key.
#[cfg(feature = "sql")]
async fn publish_selection(
    producer: &dyn Producer,
    pipeline: &Pipeline,
    source: usize,
    index: &[String],
) -> Result<usize, AppError> {
    let archive = &pipeline.archives[source];
    let location = format!("archives[{source}].select");
    let condition = archive.select.as_deref().unwrap_or_default();
    let base = crate::sources::listing::archive_base(archive);
    let mut selection = crate::sources::index::Selection::open(
        index,
        condition,
        &base,
        &archive.store_options,
        &location,
    )
    .await?;
    let topic: Arc<str> = Arc::from(pipeline.topic("archives"));
    let mut records = 0;
    while let Some(groups) = selection.next().await? {
        let messages: Vec<OutMessage> = groups
            .into_iter()
            .map(|group| {
                records += group.ranges.len() / 2;
                archive_message(
                    &topic,
                    ArchiveSegment {
                        path: group.file,
                        source: source as u32,
                        ranges: group.ranges,
                        ..Default::default()
                    },
                )
            })
            .collect();
        producer.send_all(messages).await?;
    }
    tracing::info!(
        index_files = index.len(),
        rows = selection.rows,
        incomplete = selection.incomplete,
        records,
        "published a selection of archive records for the extract stage"
    );
    Ok(records)
}

/// Without the `sql` feature a selection cannot run; the pipeline's validation says so first.
#[cfg(not(feature = "sql"))]
async fn publish_selection(
    _: &dyn Producer,
    _: &Pipeline,
    source: usize,
    _: &[String],
) -> Result<usize, AppError> {
    Err(AppError::Usage(format!(
        "archives[{source}].select needs altflow built with the `sql` feature"
    )))
}

/// Whether an `[[archives]]` entry is followed (listed again at an interval).
pub fn follows_archives(pipeline: &Pipeline) -> bool {
    pipeline.archives.iter().any(|a| !a.follow.is_zero())
}

/// Follow mode: lists each followed `[[archives]]` entry again at its interval and publishes the
/// files not in `published`, until `stop` turns true. A listing that fails is logged and tried
/// again at the next interval.
pub async fn follow_archives(
    producer: Arc<dyn Producer>,
    pipeline: Pipeline,
    mut published: Published,
    mut stop: watch::Receiver<bool>,
) -> Result<(), AppError> {
    let mut next: Vec<Instant> = pipeline
        .archives
        .iter()
        .map(|a| Instant::now() + a.follow)
        .collect();
    loop {
        let Some((source, &due)) = next
            .iter()
            .enumerate()
            .filter(|(i, _)| !pipeline.archives[*i].follow.is_zero())
            .min_by_key(|(_, due)| **due)
        else {
            return Ok(());
        };
        tokio::select! {
            _ = tokio::time::sleep_until(due.into()) => {}
            _ = stop.changed() => return Ok(()),
        }
        let archive = &pipeline.archives[source];
        next[source] = Instant::now() + archive.follow;
        match crate::sources::listing::list_archives(archive).await {
            Ok(files) => {
                let files = published.fresh(source, files);
                if !files.is_empty() {
                    tracing::info!(new = files.len(), "new archives landed");
                    publish_archives(producer.as_ref(), &pipeline, source, &files).await?;
                }
            }
            Err(error) => {
                tracing::warn!(%error, "listing archives to follow failed; trying again later")
            }
        }
    }
}

/// The product token whose opt-outs (`noai`, `noimageai`) archived pages are checked for, as
/// crawled ones are; `None` when robots rules are off.
fn opt_out_agent(pipeline: &Pipeline) -> Option<String> {
    pipeline
        .http
        .respect_robots
        .then(|| crate::web::robots::product_token(&pipeline.http.user_agent))
}

/// A member of `stage`'s consumer group on its input topic.
pub async fn stage_consumer(
    bus: &dyn Bus,
    pipeline: &Pipeline,
    stage: StageName,
) -> Result<Box<dyn Consumer>, AppError> {
    let input = pipeline.input_topic(stage).ok_or_else(|| {
        AppError::Usage(format!(
            "stage `{stage}` is not in this pipeline's `stages`"
        ))
    })?;
    let group = pipeline.group(stage);
    refuse_unread_left_behind(bus, pipeline, stage, &group).await?;
    // A stage that takes over its input from another stage (the pipeline's stages changed) starts
    // where that stage stopped: the other groups of this pipeline's prefix are the candidates.
    let others: Vec<String> = StageName::ALL
        .iter()
        .filter(|s| **s != stage)
        .map(|s| pipeline.group(*s))
        .collect();
    let inputs = [input];
    for moved in bus.hand_over(&group, &inputs, &others).await? {
        tracing::warn!(
            stage = %stage,
            topic = %moved.topic,
            partition = moved.partition,
            before = ?moved.before,
            offset = moved.offset,
            from = %moved.from_group,
            "starting where the topic's last reader stopped (the pipeline's stages changed)"
        );
    }
    Ok(bus.consumer(&group, &inputs).await?)
}

/// Refuses to start `stage` while its group has records unread on a topic that no stage of this
/// pipeline reads any more: the output of a stage removed from in front of it. Its new input is
/// handed over from where the removed stage stopped reading; what that stage had written and this
/// one had not read yet would be lost.
async fn refuse_unread_left_behind(
    bus: &dyn Bus,
    pipeline: &Pipeline,
    stage: StageName,
    group: &str,
) -> Result<(), AppError> {
    let read: Vec<String> = pipeline
        .stages
        .iter()
        .filter_map(|s| pipeline.input_topic(*s))
        .collect();
    let mut orphaned: Vec<String> = StageName::ALL
        .iter()
        .map(|s| pipeline.topic(s.output_topic()))
        .filter(|topic| !read.contains(topic))
        .collect();
    orphaned.sort();
    orphaned.dedup();
    let unread = bus.unread(group, &orphaned).await?;
    if unread.is_empty() {
        return Ok(());
    }
    let records: i64 = unread.iter().map(|u| u.end - u.committed).sum();
    let topics: std::collections::BTreeSet<&str> =
        unread.iter().map(|u| u.topic.as_str()).collect();
    let partitions: Vec<String> = unread
        .iter()
        .map(|u| format!("{}[{}] {}..{}", u.topic, u.partition, u.committed, u.end))
        .collect();
    Err(AppError::Usage(format!(
        "stage `{stage}`: its group `{group}` has at least {records} records unread on {topics:?}, which no          stage of this pipeline reads any more (a stage in front of `{stage}` was removed);          starting would lose them. Stop the removed stage, let the previous pipeline's `{stage}`          read them to the end, then start this one; or, to give them up, delete the topic.          Unread: {}",
        partitions.join(", ")
    )))
}

/// Builds `stage` and runs it on `consumer` in a task until `shutdown`.
pub fn spawn_stage(
    pipeline: &Pipeline,
    stage: StageName,
    consumer: Box<dyn Consumer>,
    producer: Arc<dyn Producer>,
    shutdown: watch::Receiver<bool>,
) -> Result<JoinHandle<Result<(), StageError>>, AppError> {
    let fail = |source: StageError| AppError::Stage { stage, source };
    let topic = |base: &str| -> Arc<str> { Arc::from(pipeline.topic(base)) };
    let settings = RunnerSettings {
        stage: stage.as_str(),
        rejects_topic: topic("rejects"),
        retry_topic: topic("retry"),
        dead_letter_topic: topic("dead_letter"),
        batch_size: pipeline.runtime.batch_size,
        poll_timeout: pipeline.runtime.poll_timeout,
        drain_timeout: pipeline.runtime.drain_timeout,
    };
    let output = topic(stage.output_topic());
    let web = || {
        Web::new(&pipeline.http, stage.as_str())
            .map(Arc::new)
            .map_err(|e| fail(e.into()))
    };
    let rules = || {
        pipeline
            .filter
            .rules()
            .map_err(|e| fail(StageError::failed(format!("filter rules: {e}"))))
    };
    let launch = Launch {
        consumer,
        producer,
        settings,
        max_in_flight: pipeline.runtime.max_in_flight,
        shutdown,
    };
    Ok(match stage {
        StageName::Crawl => {
            let s = CrawlStage::new(
                web()?,
                pipeline.crawl.clone(),
                pipeline.retry.clone(),
                output,
                topic("frontier"),
            );
            launch.pipelined(s)
        }
        StageName::Extract => {
            let mut s = ExtractStage::new(
                pipeline.extract.clone(),
                pipeline.archives.clone(),
                pipeline.retry.clone(),
                opt_out_agent(pipeline),
                output,
            );
            if pipeline.bus.kind == BusKind::Kafka {
                let store = Store::open(&pipeline.write.output, &pipeline.write.store_options)
                    .map_err(|e| fail(e.into()))?;
                s = s.with_progress(store, &pipeline.group(stage));
            }
            // The files read at once are the records in flight; each segment's candidates are
            // held until they are acknowledged.
            let mut launch = launch;
            launch.settings.batch_size = pipeline.extract.files_at_once;
            launch.max_in_flight = pipeline.extract.files_at_once;
            launch.pipelined(s)
        }
        StageName::Filter => {
            let s = FilterStage::new(rules()?, output);
            launch.batch(s)
        }
        StageName::Fetch => {
            // Said once, because a build without libjpeg-turbo's headers encodes JPEG 2.5–3 times
            // slower (build.rs).
            tracing::info!(
                jpeg_encoder = crate::imaging::JPEG_ENCODER,
                "fetch stage encoder"
            );
            let s = FetchStage::new(
                web()?,
                pipeline.fetch.clone(),
                rules()?.image(),
                pipeline.retry.clone(),
                output,
            )
            .keyed_by_content(pipeline.stages.contains(&StageName::Dedup));
            launch.pipelined(s)
        }
        StageName::Score => {
            let s = ScoreStage::from_config(&pipeline.score, output)
                .map_err(|e| fail(e.into()))?
                .keyed_by_content(pipeline.stages.contains(&StageName::Dedup));
            launch.pipelined(s)
        }
        StageName::Dedup => {
            let s = DedupStage::from_config(pipeline.dedup.clone(), output)
                .map_err(|e| fail(e.into()))?;
            launch.batch(s)
        }
        StageName::Qgen => {
            let generator =
                crate::qgen::Generator::from_config(&pipeline.qgen).map_err(|e| fail(e.into()))?;
            let s = QgenStage::new(generator, output);
            launch.batch(s)
        }
        StageName::Retry => {
            let s = RetryStage::from_config(&pipeline.retry).map_err(|e| fail(e.into()))?;
            launch.batch(s)
        }
        StageName::Write => {
            let store = Store::open(&pipeline.write.output, &pipeline.write.store_options)
                .map_err(|e| fail(e.into()))?;
            let input = pipeline.input_topic(stage).unwrap_or_default();
            let mut s = WriterStage::new(store, pipeline.write.clone(), output)
                .for_input(&pipeline.group(stage), &input)
                .owned_by(launch.consumer.ownership());
            match pipeline.bus.kind {
                BusKind::Embedded => s = s.with_run(run_id()),
                // Members of other processes can take partitions over.
                BusKind::Kafka if pipeline.write.fencing => s = s.fenced(),
                BusKind::Kafka => {}
            }
            launch.batch(s)
        }
        StageName::Failures => {
            // Like shard names: only offsets that restart with the process need the run.
            let run = (pipeline.bus.kind == BusKind::Embedded).then(run_id);
            let s = FailuresStage::new(pipeline.write.clone(), run, output)
                .map_err(|e| fail(e.into()))?;
            launch.batch(s)
        }
    })
}

/// What a runner takes besides the stage, handed to the one the stage needs.
struct Launch {
    consumer: Box<dyn Consumer>,
    producer: Arc<dyn Producer>,
    settings: RunnerSettings,
    max_in_flight: usize,
    shutdown: watch::Receiver<bool>,
}

impl Launch {
    /// Runs `stage` a batch at a time.
    fn batch<S: Stage + 'static>(self, stage: S) -> JoinHandle<Result<(), StageError>> {
        tokio::spawn(run_stage(
            stage,
            self.consumer,
            self.producer,
            self.settings,
            self.shutdown,
        ))
    }

    /// Runs `stage` with records in flight across polls.
    fn pipelined<S: Pipelined + 'static>(self, stage: S) -> JoinHandle<Result<(), StageError>> {
        tokio::spawn(run_pipelined(
            stage,
            self.consumer,
            self.producer,
            self.settings,
            self.max_in_flight,
            self.shutdown,
        ))
    }
}

/// This process's run number: milliseconds since the Unix epoch when it was first asked for. It keeps
/// apart the files of runs whose offsets are not durable (embedded shards, failures files).
pub fn run_id() -> u64 {
    static RUN: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *RUN.get_or_init(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0)
    })
}

/// Resolves when the process receives SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("installing a SIGTERM handler");
        tokio::select! {
            _ = interrupt => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}

/// Options of `altflow run`.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Keep running after the input is exhausted (a streaming deployment); otherwise an embedded run
    /// ends once every stage has drained.
    pub follow: bool,
    /// Instead of the seeds, URL lists and archives, publish the failures an earlier run kept.
    pub redrive: Option<Redrive>,
}

/// Which failures to re-drive.
#[derive(Clone, Debug, Default)]
pub struct Redrive {
    /// The run whose failures to take (the name of its folder under `failures/`); the newest when
    /// absent.
    pub run: Option<String>,
    /// Only failures with these reason codes; all when empty.
    pub reasons: Vec<String>,
}

/// Publishes the re-drivable failures an earlier run kept under `write.output` back to the topics
/// their records came from; returns how many.
pub async fn redrive(
    producer: &dyn Producer,
    pipeline: &Pipeline,
    redrive: &Redrive,
) -> Result<usize, AppError> {
    let store = Store::open(&pipeline.write.output, &pipeline.write.store_options)?;
    // One file's failures at a time: memory stays bounded whatever the run's size.
    let sender = ChunkSender::new(producer);
    let send = |failures: Vec<crate::record::Reject>| {
        sender.send(
            failures
                .into_iter()
                .map(|f| OutMessage {
                    topic: Arc::from(f.input_topic.as_str()),
                    key: f.input_key.into_bytes().into(),
                    payload: f.payload.into(),
                })
                .collect(),
        )
    };
    let (run, count) = crate::stages::failures::read_failures(
        &store,
        redrive.run.as_deref(),
        &redrive.reasons,
        send,
    )
    .await?;
    sender.finish()?;
    tracing::info!(
        run,
        failures = count,
        "re-drove the failures of an earlier run"
    );
    Ok(count as usize)
}

/// What a run did, stage by stage.
#[derive(Clone, Debug)]
pub struct Funnel {
    /// Totals per stage, in dataflow order.
    pub stages: Vec<(StageName, StageTotals)>,
    /// Shards written.
    pub shards: u64,
    /// Bytes of tar written.
    pub shard_bytes: u64,
    /// Where the shards went.
    pub output: String,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// Question–answer pairs the qgen stage kept, by answer type.
    pub questions: std::collections::BTreeMap<String, u64>,
    /// Captions the qgen stage gave no questions because they describe no picture, by why.
    pub not_descriptions: std::collections::BTreeMap<String, u64>,
}

impl Funnel {
    /// The totals of this process so far.
    pub fn collect(pipeline: &Pipeline, elapsed: Duration) -> Self {
        let (shards, shard_bytes) = metrics::shards_written();
        Self {
            stages: pipeline
                .stages
                .iter()
                .map(|s| (*s, metrics::totals(s.as_str())))
                .collect(),
            shards,
            shard_bytes,
            output: pipeline.write.output.clone(),
            questions: metrics::questions_by_type(),
            not_descriptions: metrics::not_descriptions_by_reason(),
            elapsed,
        }
    }

    /// A one-line summary for progress output.
    pub fn progress_line(&self) -> String {
        self.stages
            .iter()
            .map(|(s, t)| format!("{s} {}→{}", t.records_in, t.records_out))
            .collect::<Vec<_>>()
            .join(" | ")
    }
}

impl fmt::Display for Funnel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "funnel ({:.1}s):", self.elapsed.as_secs_f64())?;
        writeln!(
            f,
            "  {:<8} {:>8} {:>8} {:>9}  reasons",
            "stage", "in", "out", "rejected"
        )?;
        for (stage, t) in &self.stages {
            let rejected: u64 = t.rejected.values().sum();
            let mut reasons: Vec<String> =
                t.rejected.iter().map(|(r, n)| format!("{r}={n}")).collect();
            reasons.extend(t.retried.iter().map(|(r, n)| format!("retry:{r}={n}")));
            reasons.extend(t.errors.iter().map(|(k, n)| format!("error:{k}={n}")));
            writeln!(
                f,
                "  {:<8} {:>8} {:>8} {:>9}  {}",
                stage.as_str(),
                t.records_in,
                t.records_out,
                rejected,
                reasons.join(" ")
            )?;
        }
        // Counts by kind, "kind=n …", after their total.
        let tally = |label: &str, counts: &std::collections::BTreeMap<String, u64>| {
            let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{k}={n}")).collect();
            let total: u64 = counts.values().sum();
            format!("  {label}: {total} ({})", parts.join(" "))
        };
        if !self.questions.is_empty() {
            writeln!(f, "{}", tally("questions", &self.questions))?;
        }
        if !self.not_descriptions.is_empty() {
            let label = "captions describing no picture (no questions)";
            writeln!(f, "{}", tally(label, &self.not_descriptions))?;
        }
        write!(
            f,
            "  {} shard(s), {} bytes, in {}",
            self.shards, self.shard_bytes, self.output
        )
    }
}

/// Runs every stage of the pipeline in this process until drained (embedded bus, unless `follow`) or
/// until SIGINT/SIGTERM, then shuts down gracefully and returns the funnel.
pub async fn run_all(pipeline: &Pipeline, options: RunOptions) -> Result<Funnel, AppError> {
    let started = Instant::now();
    let site_url = match &pipeline.sample_site {
        Some(site) => {
            let addr = crate::web::serve::serve_dir(site.dir.clone(), site.listen)
                .await
                .map_err(|source| AppError::Serve {
                    what: "the sample site",
                    addr: site.listen,
                    source,
                })?;
            tracing::info!(dir = %site.dir.display(), %addr, "serving the sample site");
            Some(format!("http://{addr}"))
        }
        None => None,
    };
    start_metrics(pipeline).await?;
    let (bus, embedded) = open_bus(pipeline);
    create_topics(bus.as_ref(), pipeline).await?;
    let producer = bus.producer()?;

    // Every group joins before the first message exists, so no stage misses input. Each stage has
    // its own stop signal, so that shutdown can go in dataflow order.
    let mut tasks = Vec::new();
    for stage in &pipeline.stages {
        let consumer = stage_consumer(bus.as_ref(), pipeline, *stage).await?;
        let (stop, shutdown) = watch::channel(false);
        let task = spawn_stage(pipeline, *stage, consumer, producer.clone(), shutdown)?;
        tasks.push((*stage, stop, task));
    }
    let (stop_following, _) = watch::channel(false);
    let mut follower = None;
    match &options.redrive {
        Some(failures) => {
            redrive(producer.as_ref(), pipeline, failures).await?;
        }
        None => {
            let mut published = Published::default();
            let site = site_url.as_deref();
            let count =
                seed_and_remember(producer.as_ref(), pipeline, site, &mut published).await?;
            tracing::info!(seeds = count, "seeded the frontier, URL lists and archives");
            if follows_archives(pipeline) {
                follower = Some(tokio::spawn(follow_archives(
                    producer.clone(),
                    pipeline.clone(),
                    published,
                    stop_following.subscribe(),
                )));
            }
        }
    }
    // A followed archive source never runs dry.
    let follow = options.follow || follower.is_some();

    let progress = Progress::start(pipeline.clone(), started);
    // Stages that hold input until a file is full or idle: drained once they have read everything.
    let holding_groups: Vec<String> = [StageName::Write, StageName::Failures]
        .into_iter()
        .filter(|stage| pipeline.stages.contains(stage))
        .map(|stage| pipeline.group(stage))
        .collect();
    let mut first_error = None;
    let mut drained_checks = 0;
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let mut interval = tokio::time::interval(Duration::from_millis(100));
    loop {
        tokio::select! {
            _ = &mut signal => {
                tracing::info!("signal received, draining");
                break;
            }
            _ = interval.tick() => {
                if let Some(index) = tasks.iter().position(|(_, _, t)| t.is_finished()) {
                    let (stage, _, task) = tasks.remove(index);
                    first_error = Some(join_error(stage, task.await));
                    break;
                }
                if let (Some(bus), false) = (&embedded, follow) {
                    // Two quiet checks in a row: nothing unread or uncommitted anywhere.
                    drained_checks = if bus.outstanding(&holding_groups) == 0 { drained_checks + 1 } else { 0 };
                    if drained_checks >= 2 {
                        break;
                    }
                }
            }
        }
    }

    let _ = stop_following.send(true);
    if let Some(follower) = follower
        && let Ok(Err(error)) = follower.await
    {
        first_error.get_or_insert(Err(error));
    }
    // Stop upstream first: a stage drains into a downstream stage that is still reading, so nothing
    // waits on a full topic whose reader has left.
    for (stage, stop, task) in tasks {
        let _ = stop.send(true);
        let abort = task.abort_handle();
        match tokio::time::timeout(stop_limit(pipeline), task).await {
            Ok(joined) => {
                if let Err(e) = flatten(stage, joined) {
                    first_error.get_or_insert(Err(e));
                }
            }
            Err(_) => {
                tracing::error!(%stage, "did not drain within {:?}", stop_limit(pipeline));
                abort.abort();
                first_error.get_or_insert(Err(AppError::Crashed(stage)));
            }
        }
    }
    progress.finish();
    if let Some(Err(e)) = first_error {
        return Err(e);
    }
    Ok(Funnel::collect(pipeline, started.elapsed()))
}

/// Runs one stage of the pipeline (the unit deployed and scaled on a cluster) until SIGINT/SIGTERM.
pub async fn run_one(pipeline: &Pipeline, stage: StageName) -> Result<(), AppError> {
    if pipeline.bus.kind == BusKind::Embedded {
        return Err(AppError::Usage(
            "the embedded bus lives inside one process: run every stage with `altflow run`, or use a \
             pipeline with bus.kind = \"kafka\""
                .into(),
        ));
    }
    start_metrics(pipeline).await?;
    let (bus, _) = open_bus(pipeline);
    let producer = bus.producer()?;
    let consumer = stage_consumer(bus.as_ref(), pipeline, stage).await?;
    let (stop, shutdown) = watch::channel(false);
    let task = spawn_stage(pipeline, stage, consumer, producer, shutdown)?;
    tokio::pin!(task);
    tokio::select! {
        joined = &mut task => return flatten(stage, joined),
        _ = shutdown_signal() => tracing::info!(%stage, "signal received, draining"),
    }
    let _ = stop.send(true);
    match tokio::time::timeout(stop_limit(pipeline), task).await {
        Ok(joined) => flatten(stage, joined),
        Err(_) => Err(AppError::Crashed(stage)),
    }
}

/// How long a stage told to stop may take before it is aborted: its drain (after which a pipelined
/// stage abandons what is still in flight and commits what finished), then its last produce and
/// commit.
fn stop_limit(pipeline: &Pipeline) -> Duration {
    pipeline.runtime.drain_timeout + Duration::from_secs(15)
}

async fn start_metrics(pipeline: &Pipeline) -> Result<(), AppError> {
    if let Some(listen) = pipeline.metrics.listen {
        let addr = crate::web::serve::serve_metrics(listen)
            .await
            .map_err(|source| AppError::Serve {
                what: "metrics",
                addr: listen,
                source,
            })?;
        tracing::info!(%addr, "metrics at http://{addr}/metrics");
    }
    Ok(())
}

fn flatten(
    stage: StageName,
    joined: Result<Result<(), StageError>, tokio::task::JoinError>,
) -> Result<(), AppError> {
    match joined {
        Ok(Ok(())) => Ok(()),
        Ok(Err(source)) => Err(AppError::Stage { stage, source }),
        Err(_) => Err(AppError::Crashed(stage)),
    }
}

fn join_error(
    stage: StageName,
    joined: Result<Result<(), StageError>, tokio::task::JoinError>,
) -> Result<(), AppError> {
    match flatten(stage, joined) {
        Ok(()) => Err(AppError::Crashed(stage)),
        error => error,
    }
}

/// Progress output: a bar on a terminal, a log line every ten seconds otherwise.
struct Progress {
    task: JoinHandle<()>,
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn start(pipeline: Pipeline, started: Instant) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        let shown = bar.clone();
        let task = tokio::spawn(async move {
            let period = if shown.is_some() {
                Duration::from_millis(250)
            } else {
                Duration::from_secs(10)
            };
            let mut interval = tokio::time::interval(period);
            interval.tick().await;
            loop {
                interval.tick().await;
                let funnel = Funnel::collect(&pipeline, started.elapsed());
                let line = format!("{} | {} shard(s)", funnel.progress_line(), funnel.shards);
                match &shown {
                    Some(bar) => bar.set_message(line),
                    None => tracing::info!("{line}"),
                }
            }
        });
        Self { task, bar }
    }

    fn finish(self) {
        self.task.abort();
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
